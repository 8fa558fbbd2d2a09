package luabind

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// client:semantic_tokens against clangd: after an edit, the tokens the
// client builds from clangd's delta are those of a full request.
func TestLSPSemanticTokensByDeltaFromLua(t *testing.T) {
	clangd := testenv.Peer(t, testenv.Clangd)
	h := newHarness(t, false)
	dir := t.TempDir()
	testenv.WriteTree(t, dir, map[string]string{"compile_flags.txt": "-std=c11\n",
		"a.c": "int add(int a, int b) { return a + b; }\nint main(void) { return add(1, 2); }\n"})
	L := h.b.L()
	L.SetGlobal("CLANGD", lua.LString(clangd))
	L.SetGlobal("DIR", lua.LString(dir))
	L.SetGlobal("PATH", lua.LString(filepath.Join(dir, "a.c")))
	task := h.run(t, `
		local c = assert(pmacs.lsp.start{cmd = {CLANGD}, root = DIR, language_id = "c"})
		assert(c:open(PATH))
		local first = assert(c:semantic_tokens(PATH, {timeout_ms = 60000}):await())
		assert(c:change(PATH, {{line = 0, col = 0, end_line = 0, end_col = 0, text = "static int twice(int x) { return 2 * x; }\n"}}))
		local delta = assert(c:semantic_tokens(PATH, {timeout_ms = 60000}):await())
		local full = assert(c:request("textDocument/semanticTokens/full", {textDocument = {uri = pmacs.uri.from_path(PATH)}}):await())
		c:stop()
		local same = #delta.tokens == #full.tokens
		for i = 1, #full.tokens do
			local a, b = delta.tokens[i], full.tokens[i]
			if not (a and a.line == b.line and a.col == b.col and a.len == b.len and a.type == b.type and a.mods == b.mods) then same = false end
		end
		return #first.tokens, #delta.tokens, same, c:supports("textDocument/semanticTokens/full/delta")`)
	require.NoError(t, task.Err(), h.stderr.String())
	r := task.Results()
	require.Greater(t, float64(r[1].(lua.LNumber)), float64(r[0].(lua.LNumber)), "the new function's tokens")
	require.Equal(t, lua.LTrue, r[2], "the delta's tokens are the full tokens")
	require.Equal(t, lua.LTrue, r[3])
}
