package editor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
)

// openText starts the editor on a file called name holding text and waits
// for it to be read.
func openText(t *testing.T, name, text string) *harness {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	h := startEditor(t, Options{Path: path})
	h.until("the file read", func(e *session) bool { return e.cur.path == path && !e.cur.loading })
	return h
}

func (h *harness) mod(k tcell.Key, m tcell.ModMask) { h.post(tcell.NewEventKey(k, 0, m)) }

func (h *harness) waitBuffer(what, text string) {
	h.t.Helper()
	h.until(what, func(e *session) bool { return e.cur.Text() == text })
}

// C-Right/C-Left and M-Right/M-Left move by words across rows; C-S-Right
// selects a word; M-Backspace and M-d delete a word each way (or the
// selection).
func TestWordMotionAndWordDelete(t *testing.T) {
	h := openText(t, "w.txt", "alpha beta_2, gamma\ndelta\n")
	h.mod(tcell.KeyRight, tcell.ModCtrl)
	h.until("after alpha", func(e *session) bool { return e.cur.cursor == pos{0, 5} })
	h.mod(tcell.KeyRight, tcell.ModAlt)
	h.until("after beta_2", func(e *session) bool { return e.cur.cursor == pos{0, 12} })
	h.mod(tcell.KeyRight, tcell.ModCtrl)
	h.mod(tcell.KeyRight, tcell.ModCtrl)
	h.until("after delta, on the next row", func(e *session) bool { return e.cur.cursor == pos{1, 5} })
	h.mod(tcell.KeyLeft, tcell.ModCtrl)
	h.mod(tcell.KeyLeft, tcell.ModAlt)
	h.until("at gamma", func(e *session) bool { return e.cur.cursor == pos{0, 14} })
	h.mod(tcell.KeyLeft, tcell.ModCtrl|tcell.ModShift)
	h.until("beta_2 selected", func(e *session) bool {
		s, en, ok := e.cur.selection()
		return ok && s == pos{0, 6} && en == pos{0, 14}
	})
	h.mod(tcell.KeyBackspace2, tcell.ModAlt)
	h.waitBuffer("the selection deleted", "alpha gamma\ndelta\n")
	h.alt('d')
	h.waitBuffer("gamma deleted", "alpha \ndelta\n")
	h.ctrl('z')
	h.waitBuffer("one undo step", "alpha gamma\ndelta\n")
	h.key(tcell.KeyEnd)
	h.mod(tcell.KeyBackspace2, tcell.ModAlt)
	h.waitBuffer("the word before deleted", "alpha \ndelta\n")
}

// C-k kills to the end of the line into the register C-v pastes; at the
// end of a line it joins the next.
func TestKillLine(t *testing.T) {
	h := openText(t, "k.txt", "one two\nthree\n")
	h.mod(tcell.KeyRight, tcell.ModCtrl)
	h.ctrl('k')
	h.waitBuffer("the rest killed", "one\nthree\n")
	require.Equal(t, " two", string(h.scr.GetClipboardData()))
	h.ctrl('k')
	h.waitBuffer("the next line joined", "onethree\n")
	h.ctrl('v')
	h.waitBuffer("the last kill pasted", "one\nthree\n")
}

// M-Up and M-Down move the cursor's line, M-S-Down duplicates it; each is
// one undo step and the cursor stays on the moved text.
func TestMoveAndDuplicateLines(t *testing.T) {
	h := openText(t, "m.txt", "a\nb\nc\n")
	h.key(tcell.KeyDown)
	h.mod(tcell.KeyUp, tcell.ModAlt)
	h.waitBuffer("b moved up", "b\na\nc\n")
	require.Equal(t, pos{0, 0}, h.cursor())
	h.mod(tcell.KeyDown, tcell.ModAlt)
	h.mod(tcell.KeyDown, tcell.ModAlt)
	h.waitBuffer("b moved down twice", "a\nc\nb\n")
	h.mod(tcell.KeyDown, tcell.ModAlt|tcell.ModShift)
	h.waitBuffer("b duplicated", "a\nc\nb\nb\n")
	require.Equal(t, pos{3, 0}, h.cursor())
	h.ctrl('z')
	h.waitBuffer("the duplicate undone", "a\nc\nb\n")
}

// Enter keeps the indent of the line it breaks, and replaces a selection.
func TestEnterKeepsTheIndent(t *testing.T) {
	h := openText(t, "i.go", "func f() {\n\tif x {\n\t\ty()\n\t}\n}\n")
	h.key(tcell.KeyDown)
	h.key(tcell.KeyDown)
	h.key(tcell.KeyEnd)
	h.key(tcell.KeyEnter)
	h.typeText("z()")
	h.waitBuffer("the indent kept", "func f() {\n\tif x {\n\t\ty()\n\t\tz()\n\t}\n}\n")
	h.shift(tcell.KeyLeft)
	h.shift(tcell.KeyLeft)
	h.shift(tcell.KeyLeft)
	h.key(tcell.KeyEnter)
	h.waitBuffer("the selection replaced by an indented line", "func f() {\n\tif x {\n\t\ty()\n\t\t\n\t\t\n\t}\n}\n")
}

// M-; comments the line (or the selected lines) out with the language's
// line comment, and back in.
func TestToggleComment(t *testing.T) {
	for _, c := range []struct{ name, text, commented string }{
		{"c.go", "\tx := 1\n\ty := 2\n", "\t// x := 1\n\t// y := 2\n"},
		{"c.lua", "local x = 1\nlocal y = 2\n", "-- local x = 1\n-- local y = 2\n"},
		{"c.py", "x = 1\ny = 2\n", "# x = 1\n# y = 2\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := openText(t, c.name, c.text)
			h.shift(tcell.KeyDown)
			h.shift(tcell.KeyEnd)
			h.alt(';')
			h.waitBuffer("commented out", c.commented)
			h.key(tcell.KeyHome)
			h.alt(';')
			want := strings.Replace(c.text, strings.Split(c.commented, "\n")[1], strings.Split(c.text, "\n")[1], 1)
			h.waitBuffer("the cursor's line back in", strings.Split(c.commented, "\n")[0]+"\n"+strings.Split(want, "\n")[1]+"\n")
		})
	}
}

// M-l numbers the rows of a file buffer in a gutter and moves the text
// right of it; M-l again takes them away.
func TestLineNumbersToggle(t *testing.T) {
	h := openText(t, "n.txt", "first\nsecond\n")
	h.waitText("first")
	h.alt('l')
	h.waitScreen("numbered rows", func(rows []string) bool {
		return rows[0] == "  1 first" && rows[1] == "  2 second"
	})
	h.typeText("x")
	h.waitScreen("typing in a numbered row", func(rows []string) bool { return rows[0] == "  1 xfirst" })
	var cx int
	h.e.call(func() { cx, _, _ = h.scr.GetCursor() })
	require.Equal(t, 5, cx, "the cursor is drawn right of the gutter")
	h.alt('l')
	h.waitScreen("the numbers gone", func(rows []string) bool { return rows[0] == "xfirst" })
}
