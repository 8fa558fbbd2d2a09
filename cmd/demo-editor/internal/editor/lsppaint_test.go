package editor

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// exposeCtx makes the embedded init.lua's ctx the global test_ctx, through
// the user config it runs last.
func exposeCtx(t *testing.T) {
	t.Helper()
	writeUserConfig(t, "local ctx = ...\ntest_ctx = ctx\n")
}

// semGroupAt is the group of the semantic token covering byte col of row
// of b, "" for none.
func semGroupAt(e *session, b *buffer, row, col int) string {
	return e.faces.names[spanAt(b.sem.row(row), col)]
}

// semLayer copies b's semantic spans of rows [0, n) as group names, for
// comparing two paints.
func semLayer(e *session, b *buffer) [][]string {
	out := make([][]string, b.lines.len())
	for r := range b.lines.all() {
		for _, sp := range b.sem.row(r) {
			out[r] = append(out[r], fmt.Sprintf("%d-%d:%s", sp.start, sp.end, e.faces.names[sp.face]))
		}
	}
	return out
}

// checkSemanticAfterEdit types an edit at the end of the buffer, waits for
// the semantic layer made for the edited text, and checks it against the
// layer a fresh textDocument/semanticTokens/full request paints.
func checkSemanticAfterEdit(t *testing.T, h *harness, typed string, newRowWord string) {
	t.Helper()
	h.e.call(func() {
		b := h.e.cur
		b.setCursor(pos{b.lines.len() - 1, len(b.lines.row(b.lines.len() - 1))})
	})
	h.key(tcell.KeyEnter)
	h.typeText(typed)
	lastRow := 0
	// The whole edit, not its first word: a layer painted for a revision
	// typed halfway is not the one a request after the last key gets.
	h.until("the edit typed", func(e *session) bool {
		lastRow = e.cur.lines.len() - 1
		return strings.Contains(e.cur.lines.row(lastRow), typed)
	})
	h.untilLong("semantic colours for the edited text, on its new row", func(e *session) bool {
		b := e.cur
		col := strings.Index(b.lines.row(lastRow), newRowWord)
		return b.semRev == b.rev && semGroupAt(e, b, lastRow, col) != ""
	})
	var painted [][]string
	h.e.call(func() {
		painted = semLayer(h.e, h.e.cur)
		require.NoError(t, h.e.L.DoString(`
			test_fresh = nil
			local ed = pmacs.editor
			local buf = ed.current()
			local doc = test_ctx.lsp.docs[buf]
			pmacs.async.run(function()
			  local st = assert(doc.client:request("textDocument/semanticTokens/full",
			    {textDocument = {uri = pmacs.uri.from_path(doc.path)}}, {timeout_ms = 60000}):await())
			  ed.set_semantic_tokens(buf, st.tokens, test_ctx.semantic.legend_map(doc.client), function(ok) test_fresh = ok end)
			end)`))
	})
	h.untilLong("the fresh full request painted", func(e *session) bool { return e.L.GetGlobal("test_fresh") == lua.LTrue })
	h.e.call(func() {
		require.Equal(t, painted, semLayer(h.e, h.e.cur), "the colours after the edit are a fresh full request's")
	})
}

// Semantic highlighting against gopls (whose semantic tokens are opt-in:
// the editor turns them on in its settings): after opening, a type's name
// is coloured from its token, over the tree-sitter colours; after an edit
// that adds a function, the new row is coloured and the whole layer equals
// the one a fresh full request paints.
func TestSemanticHighlightingAgainstGopls(t *testing.T) {
	src := "package m\n\nimport \"fmt\"\n\ntype Point struct{ X, Y int }\n\nfunc Show(p Point) { fmt.Println(p.X) }\n"
	dir := goplsModule(t, map[string]string{"m.go": src})
	exposeCtx(t)
	h := startEditor(t, Options{Path: filepath.Join(dir, "m.go")})
	h.untilLong("Point coloured as a type by its semantic token", func(e *session) bool {
		return semGroupAt(e, e.cur, 6, strings.Index("func Show(p Point)", "Point")) == "type"
	})
	h.e.call(func() {
		require.Equal(t, "function", semGroupAt(h.e, h.e.cur, 6, 5), "Show is a function")
		require.NotEmpty(t, h.e.cur.hl.rows, "the tree-sitter layer is still there beside it")
	})
	checkSemanticAfterEdit(t, h, "func Other(q Point) int { return q.Y }", "Other")
}

// The same against clangd, which answers later requests by delta: the
// layer built from the delta after an edit equals a fresh full request's.
func TestSemanticHighlightingAgainstClangd(t *testing.T) {
	prog := testenv.Peer(t, testenv.Clangd)
	t.Setenv("PATH", filepath.Dir(prog)+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := t.TempDir()
	testenv.WriteTree(t, dir, map[string]string{"compile_flags.txt": "-std=c11\n",
		"a.c": "struct point { int x, y; };\n\nstatic int area(struct point p) { return p.x * p.y; }\n"})
	exposeCtx(t)
	h := startEditor(t, Options{Path: filepath.Join(dir, "a.c")})
	h.untilLong("area coloured as a function by its semantic token", func(e *session) bool {
		return semGroupAt(e, e.cur, 2, strings.Index("static int area(", "area")) == "function"
	})
	var delta bool
	h.e.call(func() {
		require.NoError(t, h.e.L.DoString(`test_delta = test_ctx.lsp.docs[pmacs.editor.current()].client:supports("textDocument/semanticTokens/full/delta")`))
		delta = h.e.L.GetGlobal("test_delta") == lua.LTrue
	})
	require.True(t, delta, "clangd offers deltas")
	checkSemanticAfterEdit(t, h, "int twice(int v) { return area((struct point){v, 2}); }", "twice")
}

// M-x semantic-highlighting turns the layer off (cleared at once) and on
// again (asked for anew).
func TestSemanticHighlightingToggles(t *testing.T) {
	src := "package m\n\ntype Point struct{ X int }\n"
	dir := goplsModule(t, map[string]string{"m.go": src})
	h := startEditor(t, Options{Path: filepath.Join(dir, "m.go")})
	coloured := func(e *session) bool { return semGroupAt(e, e.cur, 2, 5) == "type" }
	h.untilLong("Point coloured", coloured)
	h.command("semantic-highlighting")
	h.until("the layer cleared", func(e *session) bool { return len(e.cur.sem.rows) == 0 })
	h.waitText("semantic highlighting off")
	h.command("semantic-highlighting")
	h.untilLong("Point coloured again", coloured)
}

// Inlay hints against gopls (its hints are opt-in: the editor turns them
// on): parameter names and a variable's type show as virtual text on the
// screen, while the buffer's text, the cursor's columns and search see
// none of it; M-x inlay-hints hides them.
func TestInlayHintsAgainstGopls(t *testing.T) {
	src := "package m\n\nfunc add(a, b int) int { return a + b }\n\nfunc f() int {\n\tx := add(1, 2)\n\treturn x\n}\n"
	dir := goplsModule(t, map[string]string{"m.go": src})
	h := startEditor(t, Options{Path: filepath.Join(dir, "m.go")})
	h.waitScreenLong("the hints on row 6", func(rows []string) bool {
		return anyContains(rows, "x int := add(a: 1, b: 2)")
	})
	h.e.call(func() {
		b := h.e.cur
		require.Equal(t, "\tx := add(1, 2)", b.lines.row(5), "the text holds no hint")
		require.True(t, slices.ContainsFunc(b.inlays, func(in inlay) bool { return in.text == "a: " && in.at == pos{5, 10} }), "%+v", b.inlays)
	})
	// The cursor on the 1 stands after "a: ": its screen column is the
	// text's plus the hints' before it.
	h.gotoLine("6:11")
	h.until("the cursor on the 1", func(e *session) bool { return e.cur.cursor == pos{5, 10} })
	h.e.call(func() {
		b := h.e.cur
		want := displayCol(b.lines.row(5), 10) + len(" int") + len("a: ") + h.e.gutterWidth(b) - b.left
		x, _, _ := h.scr.GetCursor()
		require.Equal(t, want, x, "the cursor is drawn on the 1, after the hints before it")
	})
	h.key(tcell.KeyRight)
	h.until("one column right is the comma, in the text", func(e *session) bool { return e.cur.cursor == pos{5, 11} })
	h.command("inlay-hints")
	h.waitScreen("the hints gone", func(rows []string) bool { return anyContains(rows, "x := add(1, 2)") })
}

// waitScreenLong is waitScreen with the bound of a wait on a language server.
func (h *harness) waitScreenLong(what string, cond func(rows []string) bool) []string {
	h.t.Helper()
	var rows []string
	h.untilLong(what, func(e *session) bool {
		rows = screenRows(h.scr)
		return cond(rows)
	})
	return rows
}
