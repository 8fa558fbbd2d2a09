package luabind

import lua "github.com/yuin/gopher-lua"

// A Lua table is sent as JSON by its keys: 1..n is an array, anything else
// an object. An empty table has no keys, so it would always be {}; LSP and
// MCP need [] in places (a code action's context.diagnostics is a required
// array). pmacs.array marks a table as an array whatever its keys, with a
// metatable holding jsonTypeKey.
const jsonTypeKey = "__pmacs_json"

// newArrayMT returns the metatable of marked arrays (jsonArrayMT). Its
// __metatable hides it from getmetatable and refuses setmetatable, so a
// script cannot unmark or share it by mistake.
func newArrayMT(L *lua.LState) *lua.LTable {
	mt := L.NewTable()
	mt.RawSetString(jsonTypeKey, lua.LString("array"))
	mt.RawSetString("__metatable", lua.LString("pmacs.array"))
	return mt
}

// isJSONArray reports whether t was marked with pmacs.array.
func isJSONArray(t *lua.LTable) bool {
	mt, ok := t.Metatable.(*lua.LTable)
	return ok && mt.RawGetString(jsonTypeKey) == lua.LString("array")
}

// luaArray is pmacs.array([t]): t, or a new empty table, marked to be sent
// as a JSON array (its values at 1..n; an empty one is []). It returns the
// table.
func (b *Binding) luaArray(L *lua.LState) int {
	var t *lua.LTable
	switch v := L.Get(1).(type) {
	case *lua.LNilType:
		t = L.NewTable()
	case *lua.LTable:
		if v.Metatable != lua.LNil && !isJSONArray(v) {
			argError(L, "pmacs.array", 1, "t", "a table without a metatable", v)
		}
		t = v
	default:
		argError(L, "pmacs.array", 1, "t", "a table or nil", v)
	}
	t.Metatable = jsonArrayMT
	L.Push(t)
	return 1
}
