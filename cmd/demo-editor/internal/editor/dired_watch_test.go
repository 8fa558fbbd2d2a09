package editor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/kinds/watchjob"
)

// watchesRunning counts the watch jobs running, with whether each has
// finished its first scan.
func watchesRunning(e *session) (running, ready int) {
	for _, a := range e.rt.Snapshot().Active {
		if a.Kind == watchjob.Kind {
			running++
			if p, _ := e.rt.StreamProgress(a.ID); p > 0 {
				ready++
			}
		}
	}
	return running, ready
}

// TestDiredShowsChangesMadeOnDisk covers dired's following of the disk: no
// watch runs until f is pressed in a view; then the view shows a file
// another program creates, and drops one it removes, without a key; f
// again stops the watch, and closing the last following view does too.
func TestDiredShowsChangesMadeOnDisk(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "old-file.txt"), []byte("x"), 0o644))
	h := startEditor(t, Options{Path: dir})
	h.waitText("old-file.txt")
	var running int
	h.e.call(func() { running, _ = watchesRunning(h.e) })
	require.Zero(t, running, "no watch until asked for")

	h.typeText("f")
	h.waitText("dired: following changes on disk")
	h.until("the watch has scanned the tree", func(e *session) bool {
		running, ready := watchesRunning(e)
		return running == 1 && ready == 1
	})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "made-elsewhere.txt"), []byte("y"), 0o644))
	h.waitText("made-elsewhere.txt")
	require.NoError(t, os.Remove(filepath.Join(dir, "old-file.txt")))
	h.waitScreen("old-file.txt gone", func(rows []string) bool { return !anyContains(rows, "old-file.txt") })

	h.typeText("f")
	h.waitText("dired: not following changes on disk")
	h.until("the watch is cancelled", func(e *session) bool {
		running, _ := watchesRunning(e)
		return running == 0
	})

	h.typeText("f")
	h.until("the watch runs again", func(e *session) bool {
		running, _ := watchesRunning(e)
		return running == 1
	})
	var closeErr error
	h.e.call(func() {
		for _, b := range h.e.bufs {
			if strings.HasPrefix(b.name, "dired ") {
				closeErr = h.e.closeBuffer(b)
			}
		}
	})
	require.NoError(t, closeErr)
	h.until("the watch is cancelled with its last view", func(e *session) bool {
		running, _ := watchesRunning(e)
		return running == 0
	})
}
