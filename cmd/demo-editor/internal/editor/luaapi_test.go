package editor

import (
	"path/filepath"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
)

// newIdleEditor builds an editor whose loop does not run: the test
// goroutine is its main goroutine and calls Lua directly.
func newIdleEditor(t testing.TB) *session {
	t.Helper()
	scr := tcell.NewSimulationScreen("UTF-8")
	e, err := newEditor(Options{Path: t.TempDir(), Screen: scr})
	require.NoError(t, err)
	t.Cleanup(e.close)
	return e
}

func runLua(t *testing.T, e *session, src string) {
	t.Helper()
	require.NoError(t, e.L.DoString(src))
}

// The buffer primitives do what docs/editor-api.md says: 0-based rows,
// end-exclusive ranges, -1 for the last row, scratch buffers as lists.
func TestLuaBufferPrimitives(t *testing.T) {
	e := newIdleEditor(t)
	runLua(t, e, `
local ed = pmacs.editor
local b = ed.create("*t*")
assert(ed.create("*t*") == b, "create returns the existing scratch buffer")
assert(ed.find("*t*") == b)
ed.set_lines(b, 0, -1, {"a", "b", "c"})
assert(ed.line_count(b) == 3)
local l = ed.get_lines(b, 1, -1)
assert(#l == 2 and l[1] == "b" and l[2] == "c")
ed.set_lines(b, 1, 2, {"x\ny"})
assert(ed.get_text(b) == "a\nx\ny\nc", ed.get_text(b))
ed.append_lines(b, {"d"})
assert(ed.line_count(b) == 5)
ed.set_cursor(b, 99, 99)
local r, c = ed.cursor(b)
assert(r == 4 and c == 1, r .. "," .. c)
assert(ed.modified(b) == false, "scratch buffers are never modified")
assert(ed.path(b) == nil and ed.language(b) == nil)
ed.insert(b, "!")
assert(ed.get_lines(b, 4, 5)[1] == "d!", "scripts edit read-only buffers")
`)
}

// append_matches formats rows in Go, highlights the spans, and match_at
// tells where each row points.
func TestLuaAppendMatches(t *testing.T) {
	e := newIdleEditor(t)
	runLua(t, e, `
local ed = pmacs.editor
local b = ed.create("*g*")
ed.set_lines(b, 0, -1, {"header"})
local first = ed.append_matches(b, {
  {file = "a.go", line = 3, text = "func f()", match_start = 0, match_end = 4, spans = {{0, 4}}},
  {file = "b/c.go", line = 12, text = "x := func", match_start = 5, match_end = 9, spans = {{5, 9}}},
})
assert(first == 1, first)
local l = ed.get_lines(b, 1, 3)
assert(l[1] == "a.go:3: func f()" and l[2] == "b/c.go:12: x := func", l[1] .. "|" .. l[2])
local m = ed.match_at(b, 2)
assert(m.file == "b/c.go" and m.line == 12 and m.col == 5)
assert(ed.match_at(b, 0) == nil)
`)
	b := e.findBuffer("*g*")
	match := e.faces.intern("match")
	require.Contains(t, b.hl.row(2), hlSpan{len("b/c.go:12: ") + 5, len("b/c.go:12: ") + 9, match})
	require.Contains(t, b.hl.row(1), hlSpan{0, len("a.go:3"), e.faces.intern("dim")})
}

// Misuse raises an error naming the function and the argument.
func TestLuaMisuseNamesTheArgument(t *testing.T) {
	e := newIdleEditor(t)
	for src, want := range map[string]string{
		`pmacs.editor.set_lines(0, "x", 1, {})`:                       "pmacs.editor.set_lines: argument #2 (start) expected an integer, got string",
		`pmacs.editor.get_lines(0, 5, 9)`:                             "rows [5, 9) are outside buffer",
		`pmacs.editor.map("everywhere", "C-s", print)`:                `argument #1 (scope) expected "global", "view" or a buffer id`,
		`pmacs.editor.map("global", "C-s", 3)`:                        "argument #3 (fn) expected a function",
		`pmacs.editor.on("keypress", print)`:                          `unknown event "keypress"`,
		`pmacs.editor.name(999)`:                                      "no buffer 999",
		`pmacs.editor.prompt("x", {on_sumbit = print})`:               "unknown option on_sumbit",
		`pmacs.editor.set_highlights(0, {{0, 0, 0, 1}})`:              "span 1 field 'group' expected a string",
		`pmacs.editor.set_style("x", {fg = "ultraviolet"})`:           `unknown colour "ultraviolet"`,
		`pmacs.editor.append_matches(pmacs.editor.open("f.txt"), {})`: "still loading",
	} {
		err := e.L.DoString(src)
		require.Error(t, err, src)
		require.Contains(t, err.Error(), want, src)
	}
}

// open reads the file off the main goroutine: the buffer is loading until
// the read lands, and a cursor set meanwhile applies to the text.
func TestLuaOpenIsAsynchronous(t *testing.T) {
	e := newIdleEditor(t)
	path := filepath.Join(t.TempDir(), "n.lua")
	runLua(t, e, `
local ed = pmacs.editor
buf = ed.open("`+path+`")
assert(ed.open("`+path+`") == buf, "one buffer per file")
assert(ed.language(buf) == "lua")
ed.set_cursor(buf, 3, 0)
`)
	b := e.findBuffer(path)
	require.True(t, b.loading)
	fn := <-e.calls // the read's completion, as the loop would run it
	fn()
	require.False(t, b.loading)
	require.Equal(t, []string{""}, b.lines.all(), "a missing file opens empty")
	require.Equal(t, pos{0, 0}, b.cursor, "the pending cursor was clamped to the text")
}

// A prompt longer than the screen scrolls so the cursor stays visible.
func TestPromptScrollsToTheCursor(t *testing.T) {
	e := newIdleEditor(t)
	e.width = 20
	e.openPrompt(&prompt{label: "q: ", text: "abcdefghijklmnopqrstuvwxyz"})
	require.Equal(t, 19, e.promptCursorX())
	require.Equal(t, "klmnopqrstuvwxyz", e.prompt.text[e.promptSkip():], "16 columns after the label, the cursor in the last")
	e.prompt.cursor = 0
	require.Equal(t, 0, e.promptSkip())
	require.Equal(t, 3, e.promptCursorX())
}
