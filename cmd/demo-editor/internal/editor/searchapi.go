package editor

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/kinds/textsearch"
	"github.com/pmacs-go/pmacs-go/luabind"
)

// installSearchAPI adds the in-buffer search primitives to api:
// the text snapshot a search job reads, and the match set the window
// highlights and search_goto walks.
func (e *session) installSearchAPI(api *lua.LTable) {
	e.L.SetFuncs(api, map[string]lua.LGFunction{
		"text_snapshot": e.luaTextSnapshot, "search_begin": e.luaSearchBegin,
		"search_add": e.luaSearchAdd, "search_clear": e.luaSearchClear,
		"search_goto": e.luaSearchGoto, "search_count": e.luaSearchCount,
	})
}

func (e *session) luaTextSnapshot(L *lua.LState) int {
	b := e.bufArg(L, "text_snapshot", 1)
	L.Push(luabind.TextSnapshotValue(L, b.snapshot()))
	return 1
}

// luaSearchBegin starts an empty match set for a search whose window part
// covers rows [first, end), and returns the index for the search job to
// fill (search_text's index): once it is done, the set answers from it
// for every match, not only those delivered.
func (e *session) luaSearchBegin(L *lua.LState) int {
	b := e.bufArg(L, "search_begin", 1)
	first := optIntArg(L, "search_begin", 2, "first_row", 0)
	end := optIntArg(L, "search_begin", 3, "end_row", 0)
	idx := textsearch.NewIndex()
	b.hits = &searchHits{winFirst: first, winEnd: end, index: idx}
	b.markDirty(0)
	L.Push(luabind.TextIndexValue(L, idx))
	return 1
}

// luaSearchAdd adds a batch of a search_text stream (row, start, end
// triples). It returns false, adding nothing, when the buffer has no match
// set (the text changed since search_begin): the batch is of another text.
func (e *session) luaSearchAdd(L *lua.LState) int {
	const fname = "search_add"
	b := e.bufArg(L, fname, 1)
	t, ok := L.Get(2).(*lua.LTable)
	if !ok {
		argErr(L, fname, 2, "matches", "a list of integers (row, start, end triples)")
	}
	n := t.Len()
	if n%3 != 0 {
		L.RaiseError("pmacs.editor.search_add: argument #2 (matches) holds %d integers, not whole row, start, end triples", n)
	}
	if b.hits == nil {
		L.Push(lua.LFalse)
		return 1
	}
	num := func(i int) int {
		v, ok := t.RawGetInt(i).(lua.LNumber)
		if !ok || float64(v) != float64(int(v)) {
			L.RaiseError("pmacs.editor.search_add: argument #2 (matches) item %d expected an integer, got %s", i, t.RawGetInt(i).Type().String())
		}
		return int(v)
	}
	low, high := b.lines.len(), -1
	for i := 1; i <= n; i += 3 {
		row, start, end := num(i), num(i+1), num(i+2)
		if row < 0 || row >= b.lines.len() || start < 0 || end < start || end > len(b.lines.row(row)) {
			L.RaiseError("pmacs.editor.search_add: match %d (row %d, %d-%d) is outside the buffer", i/3+1, row, start, end)
		}
		b.hits.add(textMatch{int32(row), int32(start), int32(end)})
		low, high = min(low, row), max(high, row)
	}
	if high >= 0 {
		b.markDirtyRows(low, high+1)
	}
	L.Push(lua.LTrue)
	return 1
}

func (e *session) luaSearchClear(L *lua.LState) int {
	b := e.bufArg(L, "search_clear", 1)
	if b.hits != nil {
		b.hits = nil
		b.markDirty(0)
	}
	return 0
}

// luaSearchGoto moves the cursor to a match: the next one after the cursor
// (or opts.from), or the previous with opts.backward, wrapping around the
// text unless opts.wrap is false. It returns the match's row and column
// and whether it wrapped, or nil when there is none.
func (e *session) luaSearchGoto(L *lua.LState) int {
	const fname = "search_goto"
	b := e.bufArg(L, fname, 1)
	t := optTable(L, fname, 2, "opts", "backward", "from_row", "from_col", "inclusive", "wrap")
	forward, inclusive, wrap := true, false, true
	from := b.cursor
	if t != nil {
		forward = !lua.LVAsBool(t.RawGetString("backward"))
		inclusive = lua.LVAsBool(t.RawGetString("inclusive"))
		if v := t.RawGetString("wrap"); v != lua.LNil {
			wrap = lua.LVAsBool(v)
		}
		for _, f := range []struct {
			name string
			dst  *int
		}{{"from_row", &from.Row}, {"from_col", &from.Col}} {
			switch v := t.RawGetString(f.name).(type) {
			case lua.LNumber:
				*f.dst = int(v)
			case *lua.LNilType:
			default:
				L.RaiseError("pmacs.editor.search_goto: option '%s' expected an integer, got %s", f.name, v.Type().String())
			}
		}
	}
	if b.hits == nil {
		L.Push(lua.LNil)
		return 1
	}
	m, ok := b.hits.next(from, forward, inclusive)
	wrapped := false
	if !ok && wrap {
		if forward {
			m, ok = b.hits.first()
		} else {
			m, ok = b.hits.last()
		}
		wrapped = ok
	}
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	if c := b.hits.cur; c != nil {
		b.markDirtyRows(int(c.row), int(c.row)+1)
	}
	b.hits.cur = &m
	b.markDirtyRows(int(m.row), int(m.row)+1)
	b.mark = nil
	b.setCursor(m.pos())
	b.wantCol = -1
	return push(L, lua.LNumber(m.row), lua.LNumber(m.start), lua.LBool(wrapped))
}

// luaSearchCount returns how many matches the buffer holds and the 1-based
// index of the current one (0 for none).
func (e *session) luaSearchCount(L *lua.LState) int {
	b := e.bufArg(L, "search_count", 1)
	if b.hits == nil {
		return push(L, lua.LNumber(0), lua.LNumber(0))
	}
	if !b.hits.shownWhole && b.hits.whole() {
		// The rows past the delivered matches highlight from the index
		// from now on: draw them again.
		b.hits.shownWhole = true
		b.markDirty(0)
	}
	idx := 0
	if c := b.hits.cur; c != nil {
		idx = b.hits.before(c.pos()) + 1
	}
	return push(L, lua.LNumber(b.hits.len()), lua.LNumber(idx))
}
