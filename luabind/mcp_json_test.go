package luabind

import (
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// Tool arguments typed as JSON decode to tables, and a structured result
// encodes back indented with sorted keys; bad input is nil and a message.
func TestLuaMCPJSON(t *testing.T) {
	h := newHarness(t, false)
	res := runOK(t, h, `
		local j = pmacs.mcp
		local v = assert(j.json_decode('{"b": [1, null, "x"], "a": {"n": 2.5}, "t": true}'))
		assert(v.b[1] == 1 and v.b[2] == nil and v.b[3] == "x" and v.a.n == 2.5 and v.t == true)
		local bad1, e1 = j.json_decode('{"a": 1,}')
		local bad2, e2 = j.json_decode('{} {}')
		local bad3, e3 = j.json_encode({f = function() end})
		assert(bad1 == nil and bad2 == nil and bad3 == nil)
		return j.json_encode({z = 1, a = {1, 2}}), e1, e2, e3, j.json_encode(j.json_decode("{}"))
	`)
	require.Equal(t, []lua.LValue{
		lua.LString("{\n  \"a\": [\n    1,\n    2\n  ],\n  \"z\": 1\n}"),
		lua.LString("invalid JSON: invalid character ',' at start of value (at offset 7)"),
		lua.LString("invalid JSON: text after the value at offset 3"),
		lua.LString("pmacs.mcp.json_encode: f: a function has no JSON form"),
		lua.LString("{}"),
	}, res)
}
