package luabind

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// pmacs.array sends a table as a JSON array, [] when empty, where a plain
// empty table goes as {}: the server sees exactly that. A table of another
// metatable, or a value that is not a table, is refused with a message.
func TestArrayMarksAnEmptyTableAsJSONArray(t *testing.T) {
	h := lspHarness(t)
	task := h.run(t, `
		local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR})
		local t = {}
		assert(pmacs.array(t) == t, "array returns its table")
		assert(getmetatable(t) == "pmacs.array", tostring(getmetatable(t)))
		local raw = assert(c:request("test/raw", {empty = t, fresh = pmacs.array(), obj = {},
			list = pmacs.array({1, 2}), nested = {pmacs.array()}}):await())
		for _, want in ipairs{'"empty":[]', '"fresh":[]', '"obj":{}', '"list":[1,2]', '"nested":[[]]'} do
			assert(raw:find(want, 1, true), want .. " not in " .. raw)
		end
		local ok, err = pcall(pmacs.array, 42)
		assert(not ok and err:find("pmacs.array: argument #1 (t) expected a table or nil, got number", 1, true), tostring(err))
		ok, err = pcall(pmacs.array, setmetatable({}, {}))
		assert(not ok and err:find("expected a table without a metatable", 1, true), tostring(err))
		ok, err = pcall(setmetatable, t, {})
		assert(not ok, "the mark cannot be replaced")
		c:stop()
		return "ok"`)
	requireOK(t, h, task)
}

// The MCP converter honours the mark too.
func TestArrayMarkReachesMCPArguments(t *testing.T) {
	h := newHarness(t, false)
	L := h.b.L()
	require.NoError(t, L.DoString(`EMPTY, OBJ = pmacs.array(), {}`))
	v, err := luaToJSON(L.GetGlobal("EMPTY"))
	require.NoError(t, err)
	require.Equal(t, []any{}, v)
	v, err = luaToJSON(L.GetGlobal("OBJ"))
	require.NoError(t, err)
	require.Equal(t, map[string]any{}, v)
}
