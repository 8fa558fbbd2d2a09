package editor

import (
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// ---- keymaps and events ----

// viewScope is the scope number of the "view" keymap scope.
const viewScope = -1

// scopeArg reads a keymap scope: "global" (0), "view" (viewScope), or a
// buffer id.
func (e *session) scopeArg(L *lua.LState, fname string) int {
	switch v := L.Get(1).(type) {
	case lua.LString:
		switch v {
		case "global":
			return 0
		case "view":
			return viewScope
		}
		L.RaiseError("pmacs.editor.%s: argument #1 (scope) expected \"global\", \"view\" or a buffer id, got %q", fname, string(v))
	case lua.LNumber:
		return e.bufArg(L, fname, 1).id
	}
	argErr(L, fname, 1, "scope", "\"global\", \"view\" or a buffer id")
	return 0
}

func (e *session) luaMap(L *lua.LState) int {
	scope := e.scopeArg(L, "map")
	key := normalizeKey(strArg(L, "map", 2, "key"))
	if key == "" {
		L.RaiseError("pmacs.editor.map: argument #2 (key) is empty")
	}
	fn := fnArg(L, "map", 3, "fn")
	switch scope {
	case 0:
		e.keys.global[key] = fn
	case viewScope:
		e.keys.view[key] = fn
	default:
		m := e.keys.buffer[scope]
		if m == nil {
			m = map[string]*lua.LFunction{}
			e.keys.buffer[scope] = m
		}
		m[key] = fn
	}
	return 0
}

func (e *session) luaUnmap(L *lua.LState) int {
	scope := e.scopeArg(L, "unmap")
	key := normalizeKey(strArg(L, "unmap", 2, "key"))
	switch scope {
	case 0:
		delete(e.keys.global, key)
	case viewScope:
		delete(e.keys.view, key)
	default:
		delete(e.keys.buffer[scope], key)
	}
	return 0
}

func eventArg(L *lua.LState, fname string) string {
	name := strArg(L, fname, 1, "event")
	if !slices.Contains(eventNames, name) {
		L.RaiseError("pmacs.editor.%s: unknown event %q (known: %s)", fname, name, strings.Join(eventNames, ", "))
	}
	return name
}

func (e *session) luaOn(L *lua.LState) int {
	name := eventArg(L, "on")
	fn := fnArg(L, "on", 2, "fn")
	buf := 0
	if L.Get(3) != lua.LNil {
		buf = e.bufArg(L, "on", 3).id
	}
	e.hooks.add(name, fn, buf)
	return 0
}

func (e *session) luaOff(L *lua.LState) int {
	name := eventArg(L, "off")
	return push(L, lua.LBool(e.hooks.remove(name, fnArg(L, "off", 2, "fn"))))
}
