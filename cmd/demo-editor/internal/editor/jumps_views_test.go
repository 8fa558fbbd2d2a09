package editor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
)

// M-, goes back to where a jump (here a grep match opened with Enter)
// left, and M-> forward to it again.
func TestJumpListBackAndForward(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.txt")
	b := filepath.Join(dir, "b.txt")
	require.NoError(t, os.WriteFile(a, []byte("one\ntwo\nthree\n"), 0o644))
	require.NoError(t, os.WriteFile(b, []byte("x\ny\nthe zebra\n"), 0o644))
	h := startEditor(t, Options{Path: a})
	h.until("a read", func(e *session) bool { return e.cur.path == a && !e.cur.loading })
	h.key(tcell.KeyDown)
	h.key(tcell.KeyRight)
	h.ctrl('f')
	h.waitText("grep")
	h.typeText("zebra")
	h.waitText("b.txt:3")
	h.key(tcell.KeyEnter)
	h.until("b at the match", func(e *session) bool { return e.cur.path == b && e.cur.cursor == pos{2, 4} })
	h.alt(',')
	h.until("back in a where the jump left", func(e *session) bool { return e.cur.path == a && e.cur.cursor == pos{1, 1} })
	h.alt('>')
	h.until("forward to the match", func(e *session) bool { return e.cur.path == b && e.cur.cursor == pos{2, 4} })
	h.alt(',')
	h.until("back again", func(e *session) bool { return e.cur.path == a && e.cur.cursor == pos{1, 1} })
	h.alt(',')
	h.waitScreen("the end of the list", func(rows []string) bool { return messageLine(rows) == "no jump to go back to" })
}

// q and Esc close a view (*buffers*, *keys*' neighbours, *grep*) and show
// the buffer shown before it; on *messages*, which cannot be closed, they
// only go back.
func TestQAndEscCloseViews(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.txt")
	require.NoError(t, os.WriteFile(path, []byte("text\n"), 0o644))
	h := startEditor(t, Options{Path: path})
	h.until("the file read", func(e *session) bool { return e.cur.path == path && !e.cur.loading })
	back := func(what string) {
		h.until(what, func(e *session) bool { return e.cur.path == path })
	}
	h.ctrl('b')
	h.waitText("*buffers*")
	h.typeText("q")
	back("q closed *buffers*")
	var found bool
	h.e.call(func() { found = h.e.findBuffer("*buffers*") != nil })
	require.False(t, found, "*buffers* is closed")
	require.Equal(t, "text\n", h.text(), "q typed nothing into the file")

	h.ctrl('w')
	h.waitText("Active jobs:")
	h.key(tcell.KeyEsc)
	back("Esc closed *workers*")

	h.ctrl('e')
	h.waitText("*messages*")
	h.typeText("q")
	back("q went back from *messages*")

	// In a file, q is a letter and Esc clears the selection.
	h.typeText("q")
	h.waitBuffer("q typed", "qtext\n")
}

// M-w closes the shown buffer, asking first when it has unsaved changes;
// M-R reloads it from the disk, asking likewise; M-S saves every modified
// file.
func TestCloseReloadAndSaveAll(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.txt")
	b := filepath.Join(dir, "b.txt")
	require.NoError(t, os.WriteFile(a, []byte("a\n"), 0o644))
	require.NoError(t, os.WriteFile(b, []byte("b\n"), 0o644))
	h := startEditor(t, Options{Path: a})
	h.until("a read", func(e *session) bool { return e.cur.path == a && !e.cur.loading })

	// Reload: the file changed on the disk.
	require.NoError(t, os.WriteFile(a, []byte("changed\n"), 0o644))
	h.post(tcell.NewEventKey(tcell.KeyRune, 'R', tcell.ModAlt))
	h.waitBuffer("reloaded", "changed\n")
	h.typeText("x")
	h.post(tcell.NewEventKey(tcell.KeyRune, 'R', tcell.ModAlt))
	h.waitText("a.txt is modified: reload it from the disk anyway? (y/n)")
	h.typeText("n")
	h.waitScreen("nothing done", func(rows []string) bool { return messageLine(rows) == "nothing done" })
	require.Equal(t, "xchanged\n", h.text())

	// Save all: a and b both modified.
	h.ctrl('o')
	h.ctrl('u')
	h.typeText(b)
	h.key(tcell.KeyEnter)
	h.until("b read", func(e *session) bool { return e.cur.path == b && !e.cur.loading })
	h.typeText("y")
	h.post(tcell.NewEventKey(tcell.KeyRune, 'S', tcell.ModAlt))
	h.until("both saved", func(e *session) bool {
		da, _ := os.ReadFile(a)
		db, _ := os.ReadFile(b)
		return string(da) == "xchanged\n" && string(db) == "yb\n" && !e.cur.Modified()
	})

	// Close: unmodified b closes at once, and a shows again; a modified a
	// asks.
	h.alt('w')
	h.until("b closed", func(e *session) bool { return e.cur.path == a && e.findBuffer(b) == nil })
	h.typeText("z")
	h.alt('w')
	h.waitText("a.txt is modified: close it anyway? (y/n)")
	h.typeText("y")
	h.until("a closed", func(e *session) bool { return e.findBuffer(a) == nil })
	require.True(t, strings.HasPrefix(h.text(), ""), "the window shows another buffer")
}
