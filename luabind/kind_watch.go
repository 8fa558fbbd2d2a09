package luabind

import (
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/kinds/watchjob"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// pmacs.workers.watch: the changes under a root, streamed as batches of
// {path, op, dir}.

func init() {
	registerKind("watch", kindBinding{
		kinds: map[runtime.Kind]kindLua{
			watchjob.Kind: {items: changesToLua},
		},
		install: func(b *Binding, t *installTables) {
			t.set(t.workers, map[string]lua.LGFunction{"watch": b.watch})
		},
	})
}

func (b *Binding) watch(L *lua.LState) int {
	const fname = "pmacs.workers.watch"
	f := checkTable(L, fname, 1, "spec", "field", false,
		"root", "ignore", "hidden", "no_ignore", "key", "max_batch")
	spec := watchjob.Spec{
		Root:     f.str("root", true, ""),
		SkipDirs: f.strings("ignore"),
		Hidden:   f.boolean("hidden", false),
		NoIgnore: f.boolean("no_ignore", false),
	}
	for _, name := range spec.SkipDirs {
		if name == "" || name == "." || name == ".." || strings.ContainsRune(name, '/') {
			raise(L, "%s: field 'ignore' holds directory names, not paths: %q", fname, name)
		}
	}
	b.safeRead(L, fname, spec.Root, true)
	o := b.dispatchOptions(f, true)
	return b.push(L, o, watchjob.Kind, true, func() runtime.JobID { return watchjob.Dispatch(b.rt, spec, o) })
}

// changesToLua appends a watch batch's changes as {path, op, dir}, and a
// notice as {path, op = "notice", dir, notice}.
func changesToLua(L *lua.LState, t *lua.LTable, it runtime.Items) {
	for _, c := range it.(watchjob.Changes) {
		e := L.CreateTable(0, 4)
		e.RawSetString("path", lua.LString(c.Path))
		if c.Notice != "" {
			e.RawSetString("op", lua.LString("notice"))
			e.RawSetString("notice", lua.LString(c.Notice))
		} else {
			e.RawSetString("op", lua.LString(c.Op.String()))
		}
		e.RawSetString("dir", lua.LBool(c.Dir))
		t.Append(e)
	}
}
