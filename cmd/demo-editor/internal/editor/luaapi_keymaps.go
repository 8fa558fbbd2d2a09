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

// luaMap is ed.map(scope, key, fn, desc) or ed.map(scope, key, {fn =,
// desc =}): desc is what F1 lists for the key.
func (e *session) luaMap(L *lua.LState) int {
	scope := e.scopeArg(L, "map")
	key := normalizeKey(strArg(L, "map", 2, "key"))
	if key == "" {
		L.RaiseError("pmacs.editor.map: argument #2 (key) is empty")
	}
	var bd binding
	switch v := L.Get(3).(type) {
	case *lua.LFunction:
		bd.fn = v
		if d := L.Get(4); d != lua.LNil {
			bd.desc = strArg(L, "map", 4, "desc")
		}
	case *lua.LTable:
		fn, ok := v.RawGetString("fn").(*lua.LFunction)
		if !ok {
			L.RaiseError("pmacs.editor.map: argument #3 (binding) field fn expected a function, got %s", v.RawGetString("fn").Type())
		}
		bd.fn = fn
		switch d := v.RawGetString("desc").(type) {
		case lua.LString:
			bd.desc = string(d)
		case *lua.LNilType:
		default:
			L.RaiseError("pmacs.editor.map: argument #3 (binding) field desc expected a string, got %s", d.Type())
		}
	default:
		argErr(L, "map", 3, "fn", "a function or a table {fn =, desc =}")
	}
	e.keys.seq++
	bd.seq = e.keys.seq
	switch scope {
	case 0:
		e.keys.global[key] = bd
	case viewScope:
		e.keys.view[key] = bd
	default:
		m := e.keys.buffer[scope]
		if m == nil {
			m = map[string]binding{}
			e.keys.buffer[scope] = m
		}
		m[key] = bd
	}
	return 0
}

// luaKeys is ed.keys(scope): the scope's bindings in the order they were
// made, each {key =, desc =}, and for "global" then what the core does
// with the keys no script bound ({key =, desc =, builtin = true}).
func (e *session) luaKeys(L *lua.LState) int {
	scope := e.scopeArg(L, "keys")
	var m map[string]binding
	switch scope {
	case 0:
		m = e.keys.global
	case viewScope:
		m = e.keys.view
	default:
		m = e.keys.buffer[scope]
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int { return m[a].seq - m[b].seq })
	out := L.CreateTable(len(names), 0)
	add := func(key, desc string, builtin bool) {
		t := L.CreateTable(0, 3)
		t.RawSetString("key", lua.LString(key))
		t.RawSetString("desc", lua.LString(desc))
		if builtin {
			t.RawSetString("builtin", lua.LTrue)
		}
		out.Append(t)
	}
	for _, k := range names {
		add(k, m[k].desc, false)
	}
	if scope == 0 {
		for _, b := range builtinKeys {
			if _, bound := m[b.key]; !bound {
				add(b.key, b.desc, true)
			}
		}
	}
	return push(L, out)
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
