package luabind

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/lsp"
)

// File watching for a language server (lsp.Client.FileWatchers): the
// script watches the disk (w.watch) and hands the batches to
// client:file_changes; client:on_watchers tells it when to start or stop.

// lspRoot is client:root(): the workspace folder the server was started
// on.
func (b *Binding) lspRoot(L *lua.LState) int {
	c := checkClient(L, "client:root")
	L.Push(lua.LString(c.root))
	return 1
}

// lspWatchers is client:watchers(): the file watchers the server has
// registered, each {id, glob, base, kind}; none once it is stopping.
func (b *Binding) lspWatchers(L *lua.LState) int {
	c := checkClient(L, "client:watchers")
	ws := c.c.FileWatchers()
	out := L.CreateTable(len(ws), 0)
	for _, w := range ws {
		t := L.CreateTable(0, 4)
		t.RawSetString("id", lua.LString(w.ID))
		t.RawSetString("glob", lua.LString(w.Glob.String()))
		if w.Base != "" {
			t.RawSetString("base", lua.LString(w.Base))
		}
		t.RawSetString("kind", lua.LNumber(w.Kind))
		out.Append(t)
	}
	L.Push(out)
	return 1
}

func (b *Binding) lspOnWatchers(L *lua.LState) int {
	c := checkClient(L, "client:on_watchers")
	switch v := L.Get(2).(type) {
	case *lua.LFunction:
		c.onWatch = v
	case *lua.LNilType:
		c.onWatch = nil
	default:
		argError(L, "client:on_watchers", 2, "hook", "a function or nil", v)
	}
	return 0
}

// watchOps maps a w.watch change's op to the change the server is told; a
// rename names the old path (the new one comes as a create), and a chmod
// or a notice is no change to a file's content.
var watchOps = map[string]lsp.FileChangeType{
	"create": lsp.FileCreated, "write": lsp.FileChanged, "remove": lsp.FileDeleted, "rename": lsp.FileDeleted,
	"chmod": 0, "notice": 0,
}

// lspFileChanges is client:file_changes(changes): a w.watch batch ({path,
// op}) or changes {path, type = 1|2|3}, told to the server where a watcher
// wants them; it returns how many were sent, or nil and a message.
func (b *Binding) lspFileChanges(L *lua.LState) int {
	const fname = "client:file_changes"
	c := checkClient(L, fname)
	list, ok := L.Get(2).(*lua.LTable)
	if !ok {
		argError(L, fname, 2, "changes", "a list of {path =, op =} or {path =, type =}", L.Get(2))
	}
	n := list.Len()
	changes := make([]lsp.FileChange, 0, n)
	for i := 1; i <= n; i++ {
		t, ok := list.RawGetInt(i).(*lua.LTable)
		if !ok {
			raise(L, "%s: change %d is a %s, not a table {path =, op =}", fname, i, list.RawGetInt(i).Type())
		}
		p, ok := t.RawGetString("path").(lua.LString)
		if !ok || p == "" {
			raise(L, "%s: change %d has no path", fname, i)
		}
		var typ lsp.FileChangeType
		switch v := t.RawGetString("type").(type) {
		case lua.LNumber:
			typ = lsp.FileChangeType(v)
			if float64(typ) != float64(v) || typ < lsp.FileCreated || typ > lsp.FileDeleted {
				raise(L, "%s: change %d: type %v is not 1 (created), 2 (changed) or 3 (deleted)", fname, i, v)
			}
		case *lua.LNilType:
			op := t.RawGetString("op").String()
			var known bool
			if typ, known = watchOps[op]; !known {
				raise(L, "%s: change %d: op %q is none of create, write, remove, rename, chmod, notice", fname, i, op)
			}
		default:
			raise(L, "%s: change %d: type is a %s, not a number", fname, i, v.Type())
		}
		if typ != 0 {
			changes = append(changes, lsp.FileChange{Path: absPath(string(p)), Type: typ})
		}
	}
	sent, err := c.c.DidChangeWatchedFiles(changes)
	if err != nil {
		return pushErr(L, err)
	}
	L.Push(lua.LNumber(sent))
	return 1
}

// lspWatchersHook starts c's on_watchers hook when its watchers changed
// since the last look.
func (b *Binding) lspWatchersHook(c *lspClient) {
	if !c.c.TakeWatchersChanged() || c.onWatch == nil {
		return
	}
	b.Spawn(c.onWatch, c.ud)
}
