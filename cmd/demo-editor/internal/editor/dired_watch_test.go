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

// TestDiredShowsChangesMadeOnDisk covers dired's watch: a directory view
// shows a file another program creates, and drops one it removes, without
// a key; closing the last view cancels the watch.
func TestDiredShowsChangesMadeOnDisk(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "old-file.txt"), []byte("x"), 0o644))
	h := startEditor(t, Options{Path: dir})
	h.waitText("old-file.txt")
	h.until("the watch has scanned the tree", func(e *session) bool {
		running, ready := watchesRunning(e)
		return running == 1 && ready == 1
	})

	require.NoError(t, os.WriteFile(filepath.Join(dir, "made-elsewhere.txt"), []byte("y"), 0o644))
	h.waitText("made-elsewhere.txt")
	require.NoError(t, os.Remove(filepath.Join(dir, "old-file.txt")))
	h.waitScreen("old-file.txt gone", func(rows []string) bool { return !anyContains(rows, "old-file.txt") })

	var closeErr error
	h.e.call(func() {
		for _, b := range h.e.bufs {
			if strings.HasPrefix(b.name, "dired ") {
				closeErr = h.e.closeBuffer(b)
			}
		}
	})
	require.NoError(t, closeErr)
	h.until("the watch is cancelled", func(e *session) bool {
		running, _ := watchesRunning(e)
		return running == 0
	})
}
