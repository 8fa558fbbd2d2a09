package luabind

import (
	"encoding/json"

	lua "github.com/yuin/gopher-lua"
)

// mcpJSONDecode is pmacs.mcp.json_decode(text): the value of a JSON text
// (objects and arrays as tables, null as nil), for tool arguments typed by a
// user; text that is not one JSON value is nil and a message saying where.
func (b *Binding) mcpJSONDecode(L *lua.LState) int {
	v, err := luaFromJSON([]byte(L.CheckString(1)))
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString("invalid JSON: " + err.Error()))
		return 2
	}
	L.Push(v)
	return 1
}

// mcpJSONEncode is pmacs.mcp.json_encode(v): v as JSON indented by two
// spaces with object keys sorted, for showing structured tool results; a
// value with no JSON form (a function, NaN, a cycle) is nil and a message.
func (b *Binding) mcpJSONEncode(L *lua.LState) int {
	v, err := luaToJSON(L.CheckAny(1))
	var out []byte
	if err == nil {
		out, err = json.MarshalIndent(v, "", "  ")
	}
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString("pmacs.mcp.json_encode: " + err.Error()))
		return 2
	}
	L.Push(lua.LString(out))
	return 1
}
