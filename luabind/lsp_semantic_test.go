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

// client:semantic_tokens with compact, against clangd: the compact result
// is the same tokens as the tables, and st:rows reads any rows of it.
func TestLSPSemanticTokensCompactFromLua(t *testing.T) {
	clangd := testenv.Peer(t, testenv.Clangd)
	h := newHarness(t, false)
	dir := t.TempDir()
	testenv.WriteTree(t, dir, map[string]string{"compile_flags.txt": "-std=c11\n",
		"a.c": "int add(int a, int b) { return a + b; }\nint main(void) { return add(1, 2); }\nint third(void) { return add(3, 4); }\n"})
	L := h.b.L()
	L.SetGlobal("CLANGD", lua.LString(clangd))
	L.SetGlobal("DIR", lua.LString(dir))
	L.SetGlobal("PATH", lua.LString(filepath.Join(dir, "a.c")))
	task := h.run(t, `
		local c = assert(pmacs.lsp.start{cmd = {CLANGD}, root = DIR, language_id = "c"})
		assert(c:open(PATH))
		local full = assert(c:request("textDocument/semanticTokens/full", {textDocument = {uri = pmacs.uri.from_path(PATH)}}, {timeout_ms = 60000}):await())
		local st = assert(c:semantic_tokens(PATH, {compact = true, timeout_ms = 60000}):await())
		assert(type(st) == "userdata" and getmetatable(st) == "pmacs.lsp.tokens", tostring(st))
		assert(#st == #full.tokens, #st .. " tokens, the tables have " .. #full.tokens)
		assert(st.result_id ~= "", "clangd names its result")
		local all = st:rows(0, 3)
		assert(#all == #full.tokens)
		for i, a in ipairs(all) do
			local b = full.tokens[i]
			assert(a.line == b.line and a.col == b.col and a.len == b.len and a.type == b.type and a.mods == b.mods, "token " .. i)
		end
		local second = st:rows(1, 2)
		assert(#second > 0)
		for _, t in ipairs(second) do assert(t.line == 1) end
		assert(#st:rows(5, 9) == 0)
		local ok, err = pcall(st.rows, {}, 0, 1)
		c:stop()
		return ok, err`)
	require.NoError(t, task.Err(), h.stderr.String())
	r := task.Results()
	require.Equal(t, lua.LFalse, r[0])
	require.Contains(t, r[1].String(), "tokens:rows: expected semantic tokens")
}

// client:semantic_tokens with a range asks textDocument/semanticTokens/range
// for those rows (as tables or compact), and a bad range raises.
func TestLSPSemanticTokensRangeFromLua(t *testing.T) {
	h := lspHarness(t)
	task := h.run(t, `
		local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR})
		local path = DIR .. "/r.go"
		local t = assert(c:semantic_tokens(path, {range = {10, 13}}):await())
		assert(#t.tokens == 3 and t.tokens[1].line == 10 and t.tokens[3].line == 12, #t.tokens)
		local st = assert(c:semantic_tokens(path, {compact = true, range = {40, 45}}):await())
		assert(#st == 5 and #st:rows(42, 43) == 1 and st:rows(42, 43)[1].line == 42)
		local function fails(want, ...)
			local ok, err = pcall(c.semantic_tokens, c, path, ...)
			assert(not ok and tostring(err):find(want, 1, true), tostring(err))
		end
		fails("option 'range' {2, 2} is empty", {range = {2, 2}})
		fails("option 'range' expected {start_line, end_line}", {range = {-1, 2}})
		fails("option 'range' expected {start_line, end_line}, got string", {range = "rows"})
		fails("option 'compact' expected boolean", {compact = 1})
		c:stop()
		return "ok"`)
	requireOK(t, h, task)
}
