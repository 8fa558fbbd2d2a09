package luabind

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/kinds/demojob"
	"github.com/pmacs-go/pmacs-go/kinds/findjob"
	"github.com/pmacs-go/pmacs-go/kinds/fsjob"
	"github.com/pmacs-go/pmacs-go/kinds/grepjob"
	"github.com/pmacs-go/pmacs-go/kinds/parsejob"
	"github.com/pmacs-go/pmacs-go/kinds/procjob"
	"github.com/pmacs-go/pmacs-go/kinds/textsearch"
	"github.com/pmacs-go/pmacs-go/lsp"
	"github.com/pmacs-go/pmacs-go/mcp"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// kindLua is a kind's Lua surface in the binding: how what its jobs settle
// with and what its streams deliver become Lua values. Each kind registers
// its own (registerKindLua), so the binding's core follows the registry
// instead of switching on kinds.
type kindLua struct {
	// take runs before TakeResult, for a kind that hands something over
	// outside the outcome (a parse tree); value gets what it returned.
	take func(b *Binding, id runtime.JobID) any
	// value converts a completed job's value; nil settles with true.
	value func(b *Binding, out runtime.Outcome, taken any) lua.LValue
	// items appends a batch's items (StreamBatch.Items) to t.
	items func(L *lua.LState, t *lua.LTable, it runtime.Items)
	// batch, instead of items, makes the whole batch's Lua value: a
	// snapshot that is a table of its own, not a list of items.
	batch func(L *lua.LState, sb *runtime.StreamBatch) *lua.LTable
	// closing, for a stream, makes what await returns from its closing
	// batch; without it a stream settles with its value, or true.
	closing func(b *Binding, sb *runtime.StreamBatch) lua.LValue
	// codeFirst makes a failure's message start with its code, as luv's
	// do ("ENOENT: ..."): the filesystem and process kinds.
	codeFirst bool
}

var kindsLua = map[runtime.Kind]kindLua{}

// registerKindLua makes kind's Lua surface known; called at init.
func registerKindLua(kind runtime.Kind, k kindLua) { kindsLua[kind] = k }

// matchesToLua appends grep matches as tables.
func matchesToLua(L *lua.LState, t *lua.LTable, it runtime.Items) {
	ms := it.(grepjob.Matches)
	for i := range ms {
		t.Append(matchToLua(L, &ms[i]))
	}
}

// numbersToLua appends integers as Lua numbers.
func numbersToLua[S ~[]uint64](_ *lua.LState, t *lua.LTable, it runtime.Items) {
	for _, n := range it.(S) {
		t.Append(lua.LNumber(n))
	}
}

func init() {
	external := kindLua{value: func(b *Binding, out runtime.Outcome, _ any) lua.LValue {
		v, _ := out.External()
		lv, err := luaFromValue(v)
		if err != nil {
			// The runtime's MessagePack copy makes only values
			// luaFromValue takes; say so rather than lose the error.
			return lua.LString("pmacs: result has no Lua form: " + err.Error())
		}
		return lv
	}}
	registerKindLua(lsp.RequestKind, external)
	registerKindLua(mcp.RequestKind, external)
	registerKindLua(grepjob.Kind, kindLua{items: matchesToLua, closing: func(b *Binding, sb *runtime.StreamBatch) lua.LValue {
		t := b.ls.CreateTable(0, 1)
		t.RawSetString("files_searched", lua.LNumber(sb.Progress))
		return t
	}})
	for _, k := range []runtime.Kind{fsjob.RenameKind, fsjob.ChmodKind, fsjob.RemoveKind, fsjob.MkdirKind, procjob.WriteKind} {
		registerKindLua(k, kindLua{codeFirst: true})
	}
	registerKindLua(demojob.EmitN, kindLua{items: numbersToLua[demojob.Ints]})
	registerKindLua(demojob.Sum, kindLua{value: func(_ *Binding, out runtime.Outcome, _ any) lua.LValue {
		if n, ok := demojob.SumOf(out); ok {
			return lua.LNumber(n)
		}
		return lua.LTrue
	}})
	registerKindLua(fsjob.ReadDirKind, kindLua{codeFirst: true, value: func(b *Binding, out runtime.Outcome, _ any) lua.LValue {
		if l, ok := fsjob.ListingOf(out); ok {
			return listingToLua(b.ls, l)
		}
		return lua.LTrue
	}})
	registerKindLua(fsjob.StatKind, kindLua{codeFirst: true, value: func(b *Binding, out runtime.Outcome, _ any) lua.LValue {
		if e, ok := fsjob.EntryOf(out); ok {
			return entryToLua(b.ls, e)
		}
		return lua.LTrue
	}})
	registerKindLua(procjob.SpawnKind, kindLua{codeFirst: true,
		value: func(b *Binding, out runtime.Outcome, _ any) lua.LValue {
			if r, ok := procjob.ResultOf(out); ok {
				return exitToLua(b.ls, r)
			}
			return lua.LTrue
		},
		items: func(L *lua.LState, t *lua.LTable, it runtime.Items) {
			ls := it.(procjob.Lines)
			for i := range ls {
				t.Append(lineToLua(L, &ls[i]))
			}
		},
	})
	registerKindLua(procjob.SystemKind, kindLua{codeFirst: true, value: func(b *Binding, out runtime.Outcome, _ any) lua.LValue {
		if r, ok := procjob.ResultOf(out); ok {
			return systemToLua(b.ls, r)
		}
		return lua.LTrue
	}})
	ranking := func(fuzzy bool) func(*Binding, runtime.Outcome, any) lua.LValue {
		return func(b *Binding, out runtime.Outcome, _ any) lua.LValue {
			if r, ok := findjob.RankingOf(out); ok {
				return rankingToLua(b.ls, &r, fuzzy)
			}
			return lua.LTrue
		}
	}
	registerKindLua(findjob.FindKind, kindLua{value: ranking(false),
		batch: func(L *lua.LState, sb *runtime.StreamBatch) *lua.LTable {
			if r := findjob.SnapshotOf(*sb); r != nil {
				return rankingToLua(L, r, false)
			}
			return L.CreateTable(0, 0)
		}})
	registerKindLua(findjob.FuzzyKind, kindLua{value: ranking(true)})
	registerKindLua(textsearch.Kind, kindLua{items: numbersToLua[textsearch.Matches]})
	registerKindLua(parsejob.Kind, kindLua{
		// The tree must be taken before the result: TakeResult drops a
		// tree nobody took.
		take: func(b *Binding, id runtime.JobID) any {
			if tr := parsejob.TakeTree(b.rt, id); tr != nil {
				return b.newTree(tr)
			}
			return nil
		},
		value: func(_ *Binding, _ runtime.Outcome, taken any) lua.LValue {
			if t, ok := taken.(*lua.LUserData); ok {
				return t
			}
			return lua.LNil
		},
	})
}
