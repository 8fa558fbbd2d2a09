package luabind

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/kinds/findjob"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// pmacs.workers.find_files and fuzzy: file finding and fuzzy ranking,
// awaited as rankings (find_files streams a ranking while its walk runs).

func init() {
	ranking := func(fuzzy bool) func(*Binding, runtime.Outcome, any) lua.LValue {
		return func(b *Binding, out runtime.Outcome, _ any) lua.LValue {
			if r, ok := findjob.RankingOf(out); ok {
				return rankingToLua(b.ls, &r, fuzzy)
			}
			return lua.LTrue
		}
	}
	registerKind("find", kindBinding{
		kinds: map[runtime.Kind]kindLua{
			findjob.FindKind: {value: ranking(false),
				batch: func(L *lua.LState, sb *runtime.StreamBatch) *lua.LTable {
					if r := findjob.SnapshotOf(*sb); r != nil {
						return rankingToLua(L, r, false)
					}
					return L.CreateTable(0, 0)
				}},
			findjob.FuzzyKind: {value: ranking(true)},
		},
		install: func(b *Binding, t *installTables) {
			t.set(t.workers, map[string]lua.LGFunction{
				"find_files": b.findFiles, "fuzzy": b.fuzzy,
				"fuzzy_source": b.fuzzySource, "fuzzy_free": b.fuzzyFree,
			})
		},
	})
}

func (b *Binding) findFiles(L *lua.LState) int {
	const fname = "pmacs.workers.find_files"
	f := checkTable(L, fname, 1, "spec", "field", false,
		"root", "query", "limit", "hidden", "no_ignore", "key")
	spec := findjob.Spec{
		Root:     f.str("root", true, ""),
		Query:    f.str("query", false, ""),
		Limit:    findLimitField(f),
		Hidden:   f.boolean("hidden", false),
		NoIgnore: f.boolean("no_ignore", false),
	}
	b.safeRead(L, fname, spec.Root, true)
	// A snapshot is one item whatever its length, so max_batch has no say.
	o := b.dispatchOptions(f, false)
	b.dropSuperseded(o.Key)
	return b.push(L, o, findjob.FindKind, true, func() runtime.JobID { return findjob.Find(b.rt, spec, o) })
}

func (b *Binding) fuzzy(L *lua.LState) int {
	const fname = "pmacs.workers.fuzzy"
	f := checkTable(L, fname, 1, "spec", "field", false, "items", "source", "query", "limit", "key")
	spec := findjob.FuzzySpec{Query: f.str("query", false, ""), Limit: findLimitField(f)}
	items, src := f.get("items"), f.get("source")
	switch {
	case items != lua.LNil && src != lua.LNil:
		raise(L, "%s: give 'items' or 'source', not both", fname)
	case items != lua.LNil:
		spec.Items = f.strings("items")
		if spec.Items == nil {
			spec.Items = []string{}
		}
	case src != lua.LNil:
		spec.Source = findjob.SourceID(f.count("source"))
	default:
		raise(L, "%s: missing field 'items' or 'source'", fname)
	}
	o := b.dispatchOptions(f, false)
	return b.push(L, o, findjob.FuzzyKind, false, func() runtime.JobID { return findjob.Fuzzy(b.rt, spec, o) })
}

// dropSuperseded makes the handle of the stream running under key drop its
// snapshots, taken or to come. The runtime drops a superseded stream's items
// unless it had already finished when the supersede was seen (its replies
// still on the bus); a picker's old query must not show even then.
func (b *Binding) dropSuperseded(key string) {
	if key == "" {
		return
	}
	prev, ok := b.rt.ActiveForKey(key)
	if !ok {
		return
	}
	if j := b.jobs[prev]; j != nil && j.stream && !j.settled {
		j.discard = true
		j.queue = nil
	}
}

// findLimitField reads 'limit', refusing more than the runtime ranks.
func findLimitField(f fields) int {
	n := f.count("limit")
	if n > findjob.MaxLimit {
		raise(f.L, "%s: field 'limit' is at most %d, got %d", f.fname, findjob.MaxLimit, n)
	}
	return int(n)
}

func (b *Binding) fuzzySource(L *lua.LState) int {
	const fname = "pmacs.workers.fuzzy_source"
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		argError(L, fname, 1, "items", "list of strings", L.Get(1))
	}
	items := fields{L: L, fname: fname, t: L.CreateTable(0, 1), what: "argument"}
	items.t.RawSetString("items", t)
	L.Push(lua.LNumber(findjob.NewSource(b.rt, items.strings("items"))))
	return 1
}

func (b *Binding) fuzzyFree(L *lua.LState) int {
	const fname = "pmacs.workers.fuzzy_free"
	n := checkCount(L, fname, 1, "source")
	L.Push(lua.LBool(findjob.FreeSource(b.rt, findjob.SourceID(n))))
	return 1
}

// rankingToLua makes a ranking a Lua list of {path|text, score, positions}
// (positions 1-based, as string.sub counts), with total and candidates as
// fields of the list. fuzzy entries carry text and their 1-based index.
func rankingToLua(L *lua.LState, r *findjob.Ranking, fuzzy bool) *lua.LTable {
	t := L.CreateTable(len(r.Matches), 2)
	for i := range r.Matches {
		m := &r.Matches[i]
		e := L.CreateTable(0, 4)
		if fuzzy {
			e.RawSetString("text", lua.LString(m.Text))
			e.RawSetString("index", lua.LNumber(m.Index+1))
		} else {
			e.RawSetString("path", lua.LString(m.Text))
		}
		e.RawSetString("score", lua.LNumber(m.Score))
		pos := L.CreateTable(len(m.Positions), 0)
		for _, p := range m.Positions {
			pos.Append(lua.LNumber(p + 1))
		}
		e.RawSetString("positions", pos)
		t.Append(e)
	}
	t.RawSetString("total", lua.LNumber(r.Total))
	t.RawSetString("candidates", lua.LNumber(r.Candidates))
	return t
}
