package editor

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// fileBuffer adds a loaded file buffer holding lines to an idle editor and
// names it B in Lua.
func fileBuffer(t *testing.T, e *session, lines ...string) *buffer {
	t.Helper()
	b := newBuffer(e.nextBuf, "x.go")
	e.nextBuf++
	b.path = "/src/x.go"
	b.load(fileText{lines: newRows(lines)})
	b.edits = editLog{} // as a language client that took the load's resync
	e.addBuffer(b)
	e.L.SetGlobal("B", lua.LNumber(b.id))
	return b
}

// TestApplyTextEditsIsOneUndoStep covers ed.apply_text_edits, the path
// completion and rename edits take: ranges in UTF-16 columns measured on
// the text before any edit, given in any order, applied as one undo step;
// inserts at one place keep their order; the cursor follows the text.
func TestApplyTextEditsIsOneUndoStep(t *testing.T) {
	e := newIdleEditor(t)
	b := fileBuffer(t, e, "héllo wörld", "second line", "third")
	b.cursor = pos{2, 3}
	runLua(t, e, `
local ed = pmacs.editor
local n, err = ed.apply_text_edits(B, {
  {line = 2, col = 0, end_line = 2, end_col = 5, text = "THIRD"},
  {line = 0, col = 6, end_line = 0, end_col = 11, text = "earth"},   -- wörld: UTF-16 columns 6 to 11
  {line = 1, col = 0, end_line = 1, end_col = 0, text = "a"},
  {line = 1, col = 0, end_line = 1, end_col = 0, text = "b\n"},
})
assert(n == 4, tostring(err))
local log = ed.take_edits(B)
assert(#log == 4 and log[1].line == 2 and log[4].line == 0, "the server gets each edit, the last first")
assert(ed.get_text(B) == "héllo earth\nab\nsecond line\nTHIRD", ed.get_text(B))
local r, c = ed.cursor(B)
assert(r == 3 and c == 5, "the cursor inside an edit goes to its end: " .. r .. ":" .. c)
assert(ed.undo(B))
assert(ed.get_text(B) == "héllo wörld\nsecond line\nthird", "one undo takes every edit back: " .. ed.get_text(B))
assert(ed.redo(B))
assert(ed.get_text(B) == "héllo earth\nab\nsecond line\nTHIRD")
`)
}

// TestApplyTextEditsRefusesBadRanges: ranges outside the text, reversed or
// overlapping change nothing and say why; a column past a row's end is its
// end, and the position just past the last row is the end of the text, as
// LSP reads them; malformed edits raise.
func TestApplyTextEditsRefusesBadRanges(t *testing.T) {
	e := newIdleEditor(t)
	fileBuffer(t, e, "abc", "def")
	runLua(t, e, `
local ed = pmacs.editor
local function refused(edits, want)
  local n, err = ed.apply_text_edits(B, edits)
  assert(n == nil and err:find(want, 1, true), tostring(err))
  assert(ed.get_text(B) == "abc\ndef", "a refused list changed the text")
end
refused({{line = 5, col = 0, end_line = 5, end_col = 1, text = "x"}}, "line 5 is past the end of x.go (2 rows)")
refused({{line = 1, col = 2, end_line = 0, end_col = 1, text = "x"}}, "ends (0:1) before it starts (1:2)")
refused({{line = 0, col = 0, end_line = 0, end_col = 2, text = "x"},
         {line = 0, col = 1, end_line = 0, end_col = 3, text = "y"}}, "edits 1 and 2 overlap")
assert(ed.apply_text_edits(B, {{line = 0, col = 99, end_line = 2, end_col = 0, text = "!"}}) == 1)
assert(ed.get_text(B) == "abc!", ed.get_text(B))
local ok, err = pcall(ed.apply_text_edits, B, {{line = "0", col = 0, end_line = 0, end_col = 0, text = ""}})
assert(not ok and err:find("edit 1: line must be a whole number", 1, true), err)
ok, err = pcall(ed.apply_text_edits, B, {{line = 0, col = 0, end_line = 0, end_col = 0}})
assert(not ok and err:find("text must be a string", 1, true), err)
ok, err = pcall(ed.apply_text_edits, B, "x")
assert(not ok and err:find("argument #2 (edits)", 1, true), err)
`)
}

// TestCheckTextEditsChangesNothing covers ed.check_text_edits: the count
// apply_text_edits would give, or its refusal, with the text untouched.
func TestCheckTextEditsChangesNothing(t *testing.T) {
	e := newIdleEditor(t)
	fileBuffer(t, e, "abc", "def")
	runLua(t, e, `
local ed = pmacs.editor
assert(ed.check_text_edits(B, {{line = 0, col = 0, end_line = 0, end_col = 1, text = "x"},
                               {line = 1, col = 0, end_line = 1, end_col = 0, text = "y"}}) == 2)
assert(ed.get_text(B) == "abc\ndef", ed.get_text(B))
assert(ed.take_edits(B)[1] == nil, "a check records no edit")
local n, err = ed.check_text_edits(B, {{line = 5, col = 0, end_line = 5, end_col = 0, text = "x"}})
assert(n == nil and err == "check_text_edits: edit 1: line 5 is past the end of x.go (2 rows)", tostring(err))
local ok, perr = pcall(ed.check_text_edits, B, {{line = 0}})
assert(not ok and perr:find("pmacs.editor.check_text_edits: edit 1", 1, true), perr)
`)
}

// TestSignsAndPopupDrawn covers the gutter and the popup as drawn: a sign
// column one cell wide left of the text (the cursor and the text one
// column right), the sign in its group's colour, the row's note in the
// status line while the cursor is on it, and a popup under a position
// with its selected row in the popup.selected style; nil removes both.
func TestSignsAndPopupDrawn(t *testing.T) {
	e := newIdleEditor(t)
	b := fileBuffer(t, e, "alpha", "beta", "gamma")
	e.show(b)
	e.width, e.height = 40, 10
	e.scr.SetSize(40, 10)
	runLua(t, e, `
local ed = pmacs.editor
ed.set_signs(B, {{1, "E", "error", "undefined: beta\nmore"}, {2, "W", "warning"}})
`)
	b.cursor = pos{1, 2}
	e.invalidate()
	e.draw()
	rows := screenRows(e.scr.(tcell.SimulationScreen))
	require.Equal(t, []string{" alpha", "Ebeta", "Wgamma"}, rows[:3])
	_, st, _ := e.scr.(tcell.SimulationScreen).Get(0, 1)
	fg, _, _ := st.Decompose()
	require.Equal(t, tcell.ColorRed, fg)
	require.Contains(t, e.statusText(), "undefined: beta")
	require.NotContains(t, e.statusText(), "more", "a note is one line")
	x, y, _ := cursorOf(e)
	require.Equal(t, [2]int{3, 1}, [2]int{x, y}, "the cursor is right of the gutter")
	e.handleMouse(tcell.NewEventMouse(4, 2, tcell.Button1, 0))
	e.handleMouse(tcell.NewEventMouse(4, 2, tcell.ButtonNone, 0))
	require.Equal(t, pos{2, 3}, b.cursor, "a click lands on the character drawn there")

	runLua(t, e, `pmacs.editor.popup(B, {"one", "two"}, {row = 0, col = 2, selected = 2})`)
	e.draw()
	rows = screenRows(e.scr.(tcell.SimulationScreen))
	require.Equal(t, "Ebe one", rows[1], "the popup is under column 2 of row 0")
	require.True(t, strings.HasPrefix(rows[2], "Wga two"), rows[2])
	_, sel, _ := e.scr.(tcell.SimulationScreen).Get(4, 2)
	_, normal, _ := e.scr.(tcell.SimulationScreen).Get(4, 1)
	require.NotEqual(t, sel, normal, "the selected row is drawn apart")

	runLua(t, e, `pmacs.editor.popup(B, nil) pmacs.editor.set_signs(B, nil)`)
	e.draw()
	rows = screenRows(e.scr.(tcell.SimulationScreen))
	require.Equal(t, []string{"alpha", "beta", "gamma"}, rows[:3])
	require.NotContains(t, e.statusText(), "undefined")

	for _, bad := range []string{
		`pmacs.editor.set_signs(B, {{0, "EE", "error"}})`,
		`pmacs.editor.set_signs(B, {{-1, "E", "error"}})`,
		`pmacs.editor.set_signs(B, {{0, "E"}})`,
		`pmacs.editor.set_signs(B, "x")`,
		`pmacs.editor.popup(B, {"a"}, {selected = -1})`,
		`pmacs.editor.popup(B, {"a"}, 3)`,
	} {
		err := e.L.DoString(bad)
		require.Error(t, err, bad)
		require.Contains(t, err.Error(), "pmacs.editor.", bad)
	}
}

func cursorOf(e *session) (int, int, bool) {
	return e.scr.(tcell.SimulationScreen).GetCursor()
}
