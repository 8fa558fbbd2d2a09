package luabind

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/syntax"
)

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
