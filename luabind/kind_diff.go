package luabind

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/kinds/diffjob"
	"github.com/pmacs-go/pmacs-go/kinds/textsearch"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// pmacs.workers.diff: two texts compared line by line on a worker, the
// hunks git diff -U0 prints.

func init() {
	registerKind("diff", kindBinding{
		kinds: map[runtime.Kind]kindLua{diffjob.Kind: {value: hunksToLua}},
		install: func(b *Binding, t *installTables) {
			t.set(t.workers, map[string]lua.LGFunction{"diff": b.diff})
		},
	})
}

// diff is pmacs.workers.diff{a =, b =, max_work =, key =}: a and b are
// strings or text snapshots.
func (b *Binding) diff(L *lua.LState) int {
	const fname = "pmacs.workers.diff"
	f := checkTable(L, fname, 1, "spec", "field", false, "a", "b", "max_work", "key")
	text := func(name string) diffjob.Text {
		switch v := f.get(name).(type) {
		case lua.LString:
			return diffjob.String(string(v))
		case *lua.LUserData:
			if s, ok := v.Value.(*textsearch.Snapshot); ok {
				return diffjob.Lines(s)
			}
		}
		f.fail(name, "string or text snapshot", f.get(name))
		return diffjob.Text{}
	}
	spec := diffjob.Spec{A: text("a"), B: text("b"), MaxWork: int(min(f.count("max_work"), 1<<40))}
	o := b.dispatchOptions(f, false)
	return b.push(L, o, diffjob.Kind, false, func() runtime.JobID { return diffjob.Dispatch(b.rt, spec, o) })
}

// hunksToLua makes a diff's hunks a list of {old_start, old_count,
// new_start, new_count} tables.
func hunksToLua(b *Binding, out runtime.Outcome, _ any) lua.LValue {
	hs, _ := diffjob.HunksOf(out)
	L := b.ls
	t := L.CreateTable(len(hs), 0)
	for _, h := range hs {
		ht := L.CreateTable(0, 4)
		ht.RawSetString("old_start", lua.LNumber(h.OldStart))
		ht.RawSetString("old_count", lua.LNumber(h.OldCount))
		ht.RawSetString("new_start", lua.LNumber(h.NewStart))
		ht.RawSetString("new_count", lua.LNumber(h.NewCount))
		t.Append(ht)
	}
	return t
}
