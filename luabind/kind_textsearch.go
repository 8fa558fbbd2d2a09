package luabind

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/kinds/textsearch"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// pmacs.workers.search_text: a search of a text snapshot the host made,
// streamed as the numbers of the rows that match.

func init() {
	registerKind("textsearch", kindBinding{
		kinds: map[runtime.Kind]kindLua{textsearch.Kind: {items: numbersToLua[textsearch.Matches]}},
		install: func(b *Binding, t *installTables) {
			t.set(t.workers, map[string]lua.LGFunction{"search_text": b.searchText})
		},
	})
}

// TextSnapshotValue wraps s for Lua, as the `text` of
// pmacs.workers.search_text. The embedding program makes one from text it
// owns (the editor: a buffer's lines) and keeps the snapshot's promise.
func TextSnapshotValue(L *lua.LState, s *textsearch.Snapshot) *lua.LUserData {
	ud := L.NewUserData()
	ud.Value = s
	mt := L.NewTable()
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString("text snapshot"))
		return 1
	}))
	mt.RawSetString("__len", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(s.Len()))
		return 1
	}))
	mt.RawSetString("__metatable", lua.LString("pmacs"))
	L.SetMetatable(ud, mt)
	return ud
}

// TextIndexValue wraps x for Lua, as the `index` of
// pmacs.workers.search_text: the embedding program makes a fresh one per
// search and reads it once the search is done (textsearch.Index).
func TextIndexValue(L *lua.LState, x *textsearch.Index) *lua.LUserData {
	ud := L.NewUserData()
	ud.Value = x
	mt := L.NewTable()
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString("text search index"))
		return 1
	}))
	mt.RawSetString("__metatable", lua.LString("pmacs"))
	L.SetMetatable(ud, mt)
	return ud
}

// searchText is pmacs.workers.search_text{text=, pattern=, ...}: a stream
// of matches, three integers each (0-based row, start and end byte column).
func (b *Binding) searchText(L *lua.LState) int {
	const fname = "pmacs.workers.search_text"
	f := checkTable(L, fname, 1, "spec", "field", false,
		"text", "pattern", "regex", "case_sensitive", "first_row", "end_row", "max_results", "index", "key", "max_batch")
	tv := f.get("text")
	ud, ok := tv.(*lua.LUserData)
	var snap *textsearch.Snapshot
	if ok {
		snap, ok = ud.Value.(*textsearch.Snapshot)
	}
	if !ok {
		f.fail("text", "text snapshot", tv)
	}
	var idx *textsearch.Index
	if iv := f.get("index"); iv != lua.LNil {
		iud, ok := iv.(*lua.LUserData)
		if ok {
			idx, ok = iud.Value.(*textsearch.Index)
		}
		if !ok {
			f.fail("index", "text search index", iv)
		}
	}
	spec := textsearch.Spec{
		Index:      idx,
		Text:       snap,
		Pattern:    f.str("pattern", true, ""),
		Regex:      f.boolean("regex", false),
		IgnoreCase: !f.boolean("case_sensitive", true),
		FirstRow:   int(f.count("first_row")),
		EndRow:     int(f.count("end_row")),
		MaxResults: int(f.count("max_results")),
	}
	if err := spec.Check(); err != nil {
		raise(L, "%s: %v", fname, err)
	}
	o := b.dispatchOptions(f, true)
	return b.push(L, o, textsearch.Kind, true, func() runtime.JobID { return textsearch.Dispatch(b.rt, spec, o) })
}
