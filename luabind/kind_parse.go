package luabind

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/kinds/parsejob"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/syntax"
)

// pmacs.workers.parse: a tree-sitter parse, awaited as a tree userdata.

func init() {
	registerKind("parse", kindBinding{
		kinds: map[runtime.Kind]kindLua{parsejob.Kind: {
			// The tree must be taken before the result: TakeResult drops
			// a tree nobody took.
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
		}},
		install: func(b *Binding, t *installTables) {
			b.treeMT = metatable(t.L, map[string]lua.LGFunction{
				"language": treeLanguage, "root_type": treeRootType, "sexpr": treeSExpr,
				"has_error": treeHasError, "duration_ms": treeDurationMs, "highlights": treeHighlights,
				"close": treeClose,
			}, treeString)
			t.set(t.workers, map[string]lua.LGFunction{"parse": b.parse})
		},
	})
}

func (b *Binding) parse(L *lua.LState) int {
	const fname = "pmacs.workers.parse"
	f := checkTable(L, fname, 1, "spec", "field", false, "source", "language", "prior", "key")
	req := syntax.Request{
		Source:   []byte(f.str("source", true, "")),
		Language: f.str("language", true, ""),
	}
	if _, err := syntax.Lookup(req.Language); err != nil {
		raise(L, "%s: field 'language': %v", fname, err)
	}
	if pv := f.get("prior"); pv != lua.LNil {
		ud, ok := pv.(*lua.LUserData)
		var tr *tree
		if ok {
			tr, ok = ud.Value.(*tree)
		}
		if !ok {
			f.fail("prior", "tree", pv)
		}
		if tr.t.Language() != req.Language {
			raise(L, "%s: field 'prior' is a %s tree, the request is %s", fname, tr.t.Language(), req.Language)
		}
		req.Prior = tr.t
	}
	o := b.dispatchOptions(f, false)
	return b.push(L, o, parsejob.Kind, false, func() runtime.JobID { return parsejob.Dispatch(b.rt, req, o) })
}

// tree is a parse result owned by the Lua state. Its C memory is released
// by tree:close() or, failing that, when the garbage collector finalises
// the syntax.Tree.
type tree struct{ t *syntax.Tree }

func (b *Binding) newTree(t *syntax.Tree) *lua.LUserData {
	return &lua.LUserData{Value: &tree{t: t}, Metatable: b.treeMT}
}

func checkTree(L *lua.LState, fname string) *syntax.Tree {
	return checkSelf[*tree](L, fname, "tree (call it as tree:method())").t
}

func treeLanguage(L *lua.LState) int {
	L.Push(lua.LString(checkTree(L, "tree:language").Language()))
	return 1
}

func treeRootType(L *lua.LState) int {
	L.Push(lua.LString(checkTree(L, "tree:root_type").RootType()))
	return 1
}

func treeSExpr(L *lua.LState) int {
	L.Push(lua.LString(checkTree(L, "tree:sexpr").SExpr()))
	return 1
}

func treeHasError(L *lua.LState) int {
	L.Push(lua.LBool(checkTree(L, "tree:has_error").HasError()))
	return 1
}

func treeDurationMs(L *lua.LState) int {
	L.Push(ms(checkTree(L, "tree:duration_ms").Duration()))
	return 1
}

func treeClose(L *lua.LState) int {
	checkTree(L, "tree:close").Close()
	return 0
}

// treeHighlights returns the highlight spans of rows [start_row, end_row),
// 0-based, as a list of {start_row, start_col, end_row, end_col, group}.
func treeHighlights(L *lua.LState) int {
	const fname = "tree:highlights"
	t := checkTree(L, fname)
	start := checkCount(L, fname, 2, "start_row")
	end := checkCount(L, fname, 3, "end_row")
	if start > 1<<32-1 || end > 1<<32-1 {
		raise(L, "%s: rows must be below 2^32", fname)
	}
	spans, err := t.Highlights(uint32(start), uint32(end))
	if err != nil {
		raise(L, "%s: %v", fname, err)
	}
	out := L.CreateTable(len(spans), 0)
	for _, s := range spans {
		h := L.CreateTable(0, 5)
		h.RawSetString("start_row", lua.LNumber(s.StartRow))
		h.RawSetString("start_col", lua.LNumber(s.StartCol))
		h.RawSetString("end_row", lua.LNumber(s.EndRow))
		h.RawSetString("end_col", lua.LNumber(s.EndCol))
		h.RawSetString("group", lua.LString(s.Group))
		out.Append(h)
	}
	L.Push(out)
	return 1
}

func treeString(L *lua.LState) int {
	t := checkTree(L, "tostring")
	L.Push(lua.LString("pmacs.tree(" + t.Language() + ")"))
	return 1
}
