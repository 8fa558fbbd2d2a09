package editor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
)

func (h *harness) shift(k tcell.Key) { h.post(tcell.NewEventKey(k, 0, tcell.ModShift)) }

func (h *harness) text() string {
	var s string
	h.e.call(func() { s = h.e.cur.Text() })
	return s
}

func (h *harness) cursor() pos {
	var p pos
	h.e.call(func() { p = h.e.cur.cursor })
	return p
}

// reversed reports whether the screen cell at (x, y) is drawn reversed
// (selected).
func (h *harness) reversed(x, y int) bool {
	var r bool
	h.e.call(func() {
		cells, w, _ := h.scr.GetContents()
		_, _, attr := cells[y*w+x].Style.Decompose()
		r = attr&tcell.AttrReverse != 0
	})
	return r
}

// Issue 14, features: shift+movement selects (drawn reversed) and a plain
// movement ends it; C-c copies to the register and the terminal clipboard
// (OSC 52); C-v pastes; C-Space sets a mark that movement extends; C-x
// cuts as one undo step.
func TestSelectionCopyCutPaste(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.txt")
	require.NoError(t, os.WriteFile(path, []byte("alpha beta\ngamma\n"), 0o644))
	h := startEditor(t, Options{Path: path})
	h.waitText("gamma")

	for range 5 {
		h.shift(tcell.KeyRight)
	}
	h.until("five columns selected", func(e *session) bool { return e.cur.cursor == pos{0, 5} })
	require.True(t, h.reversed(0, 0) && h.reversed(4, 0), "the selection is drawn")
	require.False(t, h.reversed(5, 0), "and ends where it ends")
	h.ctrl('c')
	h.waitScreen("the copy", func(rows []string) bool { return messageLine(rows) == "copied 5 bytes" })
	require.Equal(t, "alpha", string(h.scr.GetClipboardData()), "OSC 52 carries the text")
	require.False(t, h.reversed(0, 0), "a copy ends the selection")

	h.shift(tcell.KeyRight)
	h.key(tcell.KeyRight) // a plain movement ends a shift selection
	h.until("no selection", func(e *session) bool { _, _, ok := e.cur.selection(); return !ok && e.cur.mark == nil })

	h.key(tcell.KeyDown)
	h.key(tcell.KeyHome)
	h.ctrl('v')
	h.waitText("alphagamma")
	require.Equal(t, "alpha beta\nalphagamma\n", h.text())

	// C-Space, then movement without shift extends; C-x cuts.
	h.post(tcell.NewEventKey(tcell.KeyCtrlSpace, 0, tcell.ModCtrl))
	h.waitScreen("the mark", func(rows []string) bool { return strings.HasPrefix(messageLine(rows), "mark set") })
	h.key(tcell.KeyUp)
	h.key(tcell.KeyEnd)
	h.until("the selection", func(e *session) bool { return e.cur.cursor == pos{0, 10} })
	h.ctrl('x')
	h.waitScreen("the cut", func(rows []string) bool { return messageLine(rows) == "cut 6 bytes" })
	require.Equal(t, "alpha betagamma\n", h.text())
	require.Equal(t, "\nalpha", string(h.scr.GetClipboardData()))
	h.ctrl('z')
	h.until("the cut undone", func(e *session) bool { return e.cur.Text() == "alpha beta\nalphagamma\n" })

	// Paste replaces a selection.
	h.key(tcell.KeyHome) // row 0: undo put the cursor back where the cut was made
	h.shift(tcell.KeyEnd)
	h.ctrl('v')
	h.until("the replacement", func(e *session) bool { return e.cur.Text() == "\nalpha\nalphagamma\n" })

	// Keys may not cut or paste into a read-only buffer.
	h.ctrl('e')
	h.waitText("*messages*")
	h.shift(tcell.KeyLeft)
	h.ctrl('x')
	h.waitScreen("the refusal", func(rows []string) bool { return messageLine(rows) == "cut: *messages* is read-only" })
}

// Issue 14, features: M-g goes to a line (or LINE:COL), and refuses what
// is not a line of the buffer with a message.
func TestGoToLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.txt")
	require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("line\n", 50)), 0o644))
	h := startEditor(t, Options{Path: path})
	h.until("the file read", func(e *session) bool { return e.cur.path == path && !e.cur.loading })
	goTo := func(text string) {
		h.alt('g')
		h.waitText("go to line (1 to 50, or LINE:COL):")
		h.typeText(text)
		h.key(tcell.KeyEnter)
	}
	goTo("40")
	h.until("row 39", func(e *session) bool { return e.cur.cursor == pos{39, 0} })
	h.waitText("40:1") // the status line
	goTo("7:3")
	h.until("row 6 col 2", func(e *session) bool { return e.cur.cursor == pos{6, 2} })
	goTo("51")
	h.waitScreen("out of range", func(rows []string) bool {
		return messageLine(rows) == "go to line: 51 is out of range (1 to 50)"
	})
	goTo("x")
	h.waitScreen("not a number", func(rows []string) bool {
		return messageLine(rows) == `go to line: "x" is not a line number (1 to 50, or LINE:COL)`
	})
	require.Equal(t, pos{6, 2}, h.cursor(), "a refused line leaves the cursor")
}

// F1 lists every key in *keys*, made from the bindings and their
// descriptions (so M-c, M-! and the M-x commands such as mcp-connect are
// there), and F1 or Esc goes back.
func TestF1ListsTheKeys(t *testing.T) {
	h := startEditor(t, Options{Path: t.TempDir()})
	h.waitText("..")
	h.key(tcell.KeyF1)
	h.waitText("Keys (Esc or F1 goes back)")
	var text string
	h.until("*keys* filled", func(e *session) bool { text = e.cur.Text(); return e.cur.name == "*keys*" })
	for _, row := range []string{
		"  M-c ", "  M-! ", "  C-c ", "  M-g ", "  C-Space ", "  C-o ", "  C-f ", "  C-w ", "  M-x ", "  C-q ",
		"  Up, Down, Left, Right, Home, End", "  C-g ", "  mcp-connect ", "  q, Esc ", "  M-, ",
	} {
		require.Contains(t, text, "\n"+row, "%q is listed", row)
	}
	require.Contains(t, text, "compile: run a command into *compile*", "M-c's description")
	require.NotContains(t, text, "(no description)", "every key has a description")
	h.key(tcell.KeyEsc)
	h.waitScreen("the directory back", func(rows []string) bool { return !anyContains(rows, "Keys (") && anyContains(rows, "..") })
	h.key(tcell.KeyF1)
	h.waitText("Keys (")
	h.key(tcell.KeyF1)
	h.waitScreen("the directory back", func(rows []string) bool { return !anyContains(rows, "Keys (") })
}

// ed.map takes a description as a fourth argument or in a table, and
// ed.keys lists a scope's bindings with them, in the order they were made.
func TestMapDescriptionsAndKeys(t *testing.T) {
	h := startEditor(t, Options{Path: t.TempDir()})
	h.waitText("..")
	var got string
	h.e.call(func() {
		require.NoError(t, h.e.L.DoString(`
			local ed = pmacs.editor
			local b = ed.create("*desc*")
			ed.map(b, "x", function() end, "the x key")
			ed.map(b, "C-t", {fn = function() end, desc = "the t key"})
			ed.map(b, "y", function() end)
			local out = {}
			for _, k in ipairs(ed.keys(b)) do out[#out + 1] = k.key .. "=" .. k.desc end
			keys_listed = table.concat(out, ";")`))
		got = h.e.L.GetGlobal("keys_listed").String()
		err := h.e.L.DoString(`pmacs.editor.map("global", "z", {desc = "no fn"})`)
		require.ErrorContains(t, err, "pmacs.editor.map: argument #3 (binding) field fn expected a function, got nil")
		err = h.e.L.DoString(`pmacs.editor.map("global", "z", function() end, 5)`)
		require.ErrorContains(t, err, "pmacs.editor.map: argument #4 (desc) expected a string")
	})
	require.Equal(t, "x=the x key;C-t=the t key;y=", got)
}

// pasteEvents sends text as the terminal sends a bracketed paste: a start
// mark, the text as keys (a line break as CR LF), an end mark.
func (h *harness) pasteEvents(text string) {
	h.post(tcell.NewEventPaste(true))
	for _, r := range text {
		if r == '\n' {
			h.key(tcell.KeyEnter)
			h.key(tcell.KeyLF)
			continue
		}
		h.typeText(string(r))
	}
	h.post(tcell.NewEventPaste(false))
}

// A paste from the terminal (the system clipboard) is text, not keys: in a
// file it is one undo step, in a prompt one line that is not submitted, and
// in a list view it triggers no binding.
func TestTerminalPasteIsTextNotKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.txt")
	require.NoError(t, os.WriteFile(path, []byte("end\n"), 0o644))
	h := startEditor(t, Options{Path: path})
	h.waitText("end")
	h.pasteEvents("one\ntwo\n")
	h.waitText("two")
	require.Equal(t, "one\ntwo\nend\n", h.text(), "CR LF is one line break")
	h.ctrl('z')
	h.until("the paste undone in one step", func(e *session) bool { return e.cur.Text() == "end\n" })

	h.ctrl('o')
	h.ctrl('u')
	h.pasteEvents("a\nb")
	h.until("the prompt text", func(e *session) bool { return e.prompt != nil && e.prompt.text == "a b" })

	h.key(tcell.KeyEsc)
	h.ctrl('w')
	h.waitText("Active jobs:")
	h.pasteEvents("c")
	h.waitScreen("the refusal", func(rows []string) bool {
		return messageLine(rows) == "paste in *workers*: buffer is read-only"
	})
}
