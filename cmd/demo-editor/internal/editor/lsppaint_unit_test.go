package editor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/lsp"
)

// Semantic tokens become per-row byte spans: UTF-16 columns are turned
// into bytes (a two-byte é, a four-byte emoji that is two UTF-16 units),
// a modifier with a face of its own wins over the type's, tokens of no
// face or past the last row are left out, and a token running past its
// row's end is cut there.
func TestSemanticSpansTurnTokensIntoRowSpans(t *testing.T) {
	lines := []string{"héllo world", "x 😀 yy", "plain"}
	faces := &semFaces{byType: [][]face{{5, 0, 6}, {7, 0, 0}, {0, 0, 0}}}
	toks := []lsp.SemanticToken{
		{Line: 0, Col: 0, Len: 5, Type: 0},          // héllo: bytes 0-6
		{Line: 0, Col: 6, Len: 5, Type: 0, Mods: 2}, // world, modifier 1: face 6
		{Line: 1, Col: 2, Len: 2, Type: 1},          // 😀: bytes 2-6
		{Line: 1, Col: 5, Len: 9, Type: 1, Mods: 1}, // yy and past the end; modifier 0 has no face
		{Line: 2, Col: 0, Len: 5, Type: 2},          // a type of no face
		{Line: 2, Col: 0, Len: 1, Type: 9},          // a type past the legend
		{Line: 7, Col: 0, Len: 1, Type: 0},          // a row past the end
	}
	rows := newRows(lines)
	got := semanticSpans(toks, &rows, faces)
	require.Equal(t, []hlSpan{{0, 6, 5}, {7, 12, 6}}, got.row(0))
	require.Equal(t, []hlSpan{{2, 6, 7}, {7, 9, 7}}, got.row(1))
	require.Empty(t, got.row(2))
	require.Equal(t, 0, got.first)
	require.Len(t, got.rows, 3)

	// Each row's spans are capped: an edit that grows one row's spans
	// does not write over the next row's.
	require.Equal(t, len(got.row(0)), cap(got.row(0)))
}

// ed.set_semantic_tokens paints the layer once converted, but not when
// the buffer changed between the call and the conversion's end: on_done
// then gets false and the old layer stays. Bad arguments raise.
func TestSetSemanticTokensIsDroppedForChangedText(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.txt")
	require.NoError(t, os.WriteFile(path, []byte("alpha beta\ngamma\n"), 0o644))
	h := startEditor(t, Options{Path: path})
	h.until("the file read", func(e *session) bool { return e.cur.path == path && !e.cur.loading })
	const mapping = `{types = {"keyword", "string"}, modifiers = {"readonly"}}`
	h.e.call(func() {
		require.NoError(t, h.e.L.DoString(`
			local ed = pmacs.editor
			test_done = {}
			ed.set_semantic_tokens(ed.current(), {{0, 0, 5, 0, 0}, {1, 0, 5, 1, 1}}, `+mapping+`,
			  function(ok) test_done[#test_done + 1] = ok end)`))
	})
	h.until("painted", func(e *session) bool { return e.L.GetGlobal("test_done").(*lua.LTable).Len() == 1 })
	h.e.call(func() {
		require.Equal(t, lua.LTrue, h.e.L.GetGlobal("test_done").(*lua.LTable).RawGetInt(1))
		require.Equal(t, "keyword", semGroupAt(h.e, h.e.cur, 0, 2))
		require.Equal(t, "string.readonly", semGroupAt(h.e, h.e.cur, 1, 0))
		// Asked for the text as it is now, then the text changes before
		// the answer is installed.
		require.NoError(t, h.e.L.DoString(`
			local ed = pmacs.editor
			ed.set_semantic_tokens(ed.current(), {{0, 6, 4, 1, 0}}, `+mapping+`,
			  function(ok) test_done[#test_done + 1] = ok end)
			ed.set_cursor(ed.current(), 0, 0)
			ed.insert(ed.current(), "new ")`))
	})
	h.until("the stale paint done", func(e *session) bool { return e.L.GetGlobal("test_done").(*lua.LTable).Len() == 2 })
	h.e.call(func() {
		require.Equal(t, lua.LFalse, h.e.L.GetGlobal("test_done").(*lua.LTable).RawGetInt(2), "not painted on newer text")
		require.Equal(t, "keyword", semGroupAt(h.e, h.e.cur, 0, 6), "the old layer, moved with the insert")
		require.Equal(t, "", semGroupAt(h.e, h.e.cur, 0, 11))
		// Tokens asked for at an older revision are refused at once.
		require.NoError(t, h.e.L.DoString(`
			local ed = pmacs.editor
			local buf = ed.current()
			ed.set_semantic_tokens(buf, {{0, 6, 4, 1, 0}}, `+mapping+`,
			  function(ok) test_done[#test_done + 1] = ok end, ed.revision(buf) - 1)`))
		require.Equal(t, 3, h.e.L.GetGlobal("test_done").(*lua.LTable).Len())
		require.Equal(t, lua.LFalse, h.e.L.GetGlobal("test_done").(*lua.LTable).RawGetInt(3), "asked for an older revision")
		require.Equal(t, "keyword", semGroupAt(h.e, h.e.cur, 0, 6))
		for code, want := range map[string]string{
			`pmacs.editor.set_semantic_tokens(0, "x", {})`:                        "argument #2 (tokens) expected semantic tokens",
			`pmacs.editor.set_semantic_tokens(0, {{0, 0, 1, 0, -1}}, {})`:         "token 1 field 'mods' expected a whole number >= 0",
			`pmacs.editor.set_semantic_tokens(0, {}, {types = "keyword"})`:        "map field 'types' expected a list of strings",
			`pmacs.editor.set_semantic_tokens(0, {}, {types = {true}})`:           "map field 'types' item 1 expected a string or false",
			`pmacs.editor.set_semantic_tokens(0, {}, {types = {}}, "not a func")`: "argument #4 (on_done) expected a function",
			`pmacs.editor.set_inlays(0, {{0, -1, "x"}})`:                          "inlay 1 field 'col' expected a number >= 0",
			`pmacs.editor.set_inlays(0, {{0, 0, 5}})`:                             "inlay 1 field 'text' expected a string",
			`pmacs.editor.set_inlays(0, "x")`:                                     "argument #2 (inlays) expected a list",
		} {
			err := h.e.L.DoString(code)
			require.ErrorContains(t, err, want, code)
		}
	})
}

// Inlays are drawn before their column and shift the rest of the row,
// clipped at the window's edge; the text, search and the cursor's
// positions do not see them, the cursor is drawn past the labels before
// it, a click on a label lands on its column, and edits move them (one
// inside a deleted stretch goes).
func TestInlaysAreVirtualText(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.txt")
	long := strings.Repeat("w", 30)
	require.NoError(t, os.WriteFile(path, []byte("x = f(1, 2)\n"+long+"\nlast\n"), 0o644))
	h := startEditorSized(t, Options{Path: path}, 40, 10)
	h.until("the file read", func(e *session) bool { return e.cur.path == path && !e.cur.loading })
	h.e.call(func() {
		require.NoError(t, h.e.L.DoString(`
			local ed = pmacs.editor
			ed.set_inlays(ed.current(), {
			  {row = 0, col = 1, text = ": int"}, {0, 6, "a: ", "inlay.parameter"}, {0, 9, "b:\n "},
			  {1, 30, " a label far too long for the window"}, {9, 0, "past the end"}, {2, 99, "<"},
			})`))
	})
	rows := h.waitText("x: int = f(a: 1, b:  2)")
	require.Equal(t, long+" a label", rows[1][:len(long)+8], "clipped at the window's edge")
	require.LessOrEqual(t, len(rows[1]), 40)
	require.Equal(t, "last<", rows[2], "a column past the end is the end")
	h.e.call(func() {
		b := h.e.cur
		require.Equal(t, "x = f(1, 2)\n"+long+"\nlast\n", b.Text())
		require.Len(t, b.inlays, 5, "the row past the end is left out")
		require.Equal(t, "b:  ", b.inlays[2].text, "a line break in a label is a space")
		b.setCursor(pos{0, 6})
	})
	h.until("the cursor drawn after the labels before it", func(e *session) bool {
		x, y, _ := h.scr.GetCursor()
		return y == 0 && x == 6+len(": int")+len("a: ")+e.gutterWidth(e.cur)
	})
	h.key(tcell.KeyRight)
	h.until("right moves one byte of the text", func(e *session) bool { return e.cur.cursor == pos{0, 7} })

	// A click on "a: " lands on the 1 it stands before; one on the f
	// after ": int" on the f.
	var gx int
	h.e.call(func() { gx = h.e.gutterWidth(h.e.cur) })
	h.mouse(gx+len("x: int = f(")+1, 0, tcell.Button1)
	h.mouse(gx+len("x: int = f(")+1, 0, tcell.ButtonNone)
	h.until("the click on the label", func(e *session) bool { return e.cur.cursor == pos{0, 6} })
	h.mouse(gx+len("x: int = "), 0, tcell.Button1)
	h.mouse(gx+len("x: int = "), 0, tcell.ButtonNone)
	h.until("the click on the f", func(e *session) bool { return e.cur.cursor == pos{0, 4} })

	h.e.call(func() {
		b := h.e.cur
		b.setCursor(pos{0, 0})
		require.NoError(t, b.insert("\n"))       // everything moves down a row
		b.replace(pos{1, 5}, pos{1, 8}, "", nil) // "(1," goes, and "a: " at 6 with it
		var got []string
		for _, in := range b.inlays {
			got = append(got, fmt.Sprintf("%s@%d,%d", in.text, in.at.Row, in.at.Col))
		}
		require.Equal(t, []string{": int@1,1", "b:  @1,6", " a label far too long for the window@2,30", "<@3,4"}, got)
	})
}
