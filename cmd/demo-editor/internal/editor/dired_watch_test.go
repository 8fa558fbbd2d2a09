package editor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
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

// TestDiredShowsChangesMadeOnDisk covers dired's following of the disk:
// with no key pressed, a directory view shows a file another program
// creates, and drops one it removes, the cursor staying on its entry; the
// project's one watch serves it (no watch of its own), while a view of a
// directory outside the project runs a watch of its own, cancelled with
// its last view.
func TestDiredShowsChangesMadeOnDisk(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "old-file.txt"), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "zz-kept.txt"), []byte("x"), 0o644))
	h := startEditor(t, Options{Path: dir})
	h.waitText("old-file.txt")
	h.until("the project watch has scanned the tree", func(e *session) bool {
		running, ready := watchesRunning(e)
		return running == 1 && ready == 1
	})
	// The cursor on zz-kept.txt: rows are "..", old-file.txt, zz-kept.txt.
	h.key(tcell.KeyDown)
	h.key(tcell.KeyDown)
	h.key(tcell.KeyDown)
	h.until("the cursor on zz-kept.txt", func(e *session) bool {
		return strings.HasSuffix(e.cur.lines.row(e.cur.cursor.Row), "zz-kept.txt")
	})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "made-elsewhere.txt"), []byte("y"), 0o644))
	h.waitText("made-elsewhere.txt")
	require.NoError(t, os.Remove(filepath.Join(dir, "old-file.txt")))
	h.waitScreen("old-file.txt gone", func(rows []string) bool { return !anyContains(rows, "old-file.txt") })
	var line string
	h.e.call(func() { line = h.e.cur.lines.row(h.e.cur.cursor.Row) })
	require.True(t, strings.HasSuffix(line, "zz-kept.txt"), "the cursor stays on its entry: %q", line)
	var running int
	h.e.call(func() { running, _ = watchesRunning(h.e) })
	require.Equal(t, 1, running, "views under the project share its watch")

	outside := t.TempDir()
	h.alt('x')
	h.waitText("command (")
	h.typeText("dired " + outside + "\r")
	h.until("a watch of the outside directory", func(e *session) bool {
		running, ready := watchesRunning(e)
		return running == 2 && ready == 2
	})
	require.NoError(t, os.WriteFile(filepath.Join(outside, "out-there.txt"), []byte("y"), 0o644))
	h.waitText("out-there.txt")
	var closeErr error
	h.e.call(func() {
		for _, b := range h.e.bufs {
			if b.name == "dired "+outside {
				closeErr = h.e.closeBuffer(b)
			}
		}
	})
	require.NoError(t, closeErr)
	h.until("the outside watch is cancelled with its last view", func(e *session) bool {
		running, _ := watchesRunning(e)
		return running == 1
	})
}
