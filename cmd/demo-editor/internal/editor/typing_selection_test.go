package editor

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
)

// Typing, Enter, Tab and a terminal paste over a selection replace it, and
// Backspace and Delete delete it; each is one undo step that puts the
// selected text back.
func TestTypingOverASelectionReplacesIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sel.txt")
	require.NoError(t, os.WriteFile(path, []byte("keeps going\n"), 0o644))
	h := startEditor(t, Options{Path: path})
	h.waitText("keeps going")
	selectKeeps := func() {
		h.key(tcell.KeyHome)
		for range 5 {
			h.shift(tcell.KeyRight)
		}
		h.until("keeps selected", func(e *session) bool { _, en, ok := e.cur.selection(); return ok && en == pos{0, 5} })
	}
	undoBack := func(what string) {
		h.ctrl('z')
		h.until(what+" undone in one step", func(e *session) bool { return e.cur.Text() == "keeps going\n" })
	}

	selectKeeps()
	h.typeText("holds")
	h.until("the selection replaced", func(e *session) bool { return e.cur.Text() == "holds going\n" })
	undoBack("the typing")

	selectKeeps()
	h.key(tcell.KeyBackspace2)
	h.until("the selection deleted by Backspace", func(e *session) bool { return e.cur.Text() == " going\n" })
	undoBack("the Backspace")

	selectKeeps()
	h.key(tcell.KeyDelete)
	h.until("the selection deleted by Delete", func(e *session) bool { return e.cur.Text() == " going\n" })
	undoBack("the Delete")

	selectKeeps()
	h.key(tcell.KeyEnter)
	h.until("the selection replaced by a line break", func(e *session) bool { return e.cur.Text() == "\n going\n" })
	undoBack("the Enter")

	selectKeeps()
	h.key(tcell.KeyTab)
	h.until("the selection replaced by a tab", func(e *session) bool { return e.cur.Text() == "\t going\n" })
	undoBack("the Tab")

	selectKeeps()
	h.pasteEvents("holds")
	h.until("the selection replaced by the paste", func(e *session) bool { return e.cur.Text() == "holds going\n" })
	undoBack("the paste")
}
