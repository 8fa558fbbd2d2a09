package luabind

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// compile parses and compiles a chunk with every generic for rewritten so
// that its iterator may wait (see the package doc).
func compile(r io.Reader, name string) (*lua.FunctionProto, error) {
	chunk, err := parse.Parse(r, name)
	if err != nil {
		return nil, err
	}
	var rw rewriter
	rw.block(chunk)
	return lua.Compile(chunk, name)
}

// LoadString compiles src as a chunk named name, ready to call or to pass to
// Spawn. Generic for loops in it may wait in their iterators.
func (b *Binding) LoadString(src, name string) (*lua.LFunction, error) {
	proto, err := compile(strings.NewReader(src), name)
	if err != nil {
		return nil, fmt.Errorf("luabind: load %s: %w", name, err)
	}
	return b.ls.NewFunctionFromProto(proto), nil
}

// LoadFile compiles the file at path like LoadString; the chunk is named by
// the path, as tracebacks show it.
func (b *Binding) LoadFile(path string) (*lua.LFunction, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("luabind: load: %w", err)
	}
	defer f.Close()
	proto, err := compile(f, path)
	if err != nil {
		return nil, fmt.Errorf("luabind: load %s: %w", path, err)
	}
	return b.ls.NewFunctionFromProto(proto), nil
}

// Names of the hidden loop variables. They hold a parenthesis, so no Lua
// source can name them; they are the names Lua itself gives these slots
// (a loop nested in another's body gets a number after them, so that a
// return inside it can still name the outer loop's).
const (
	forGenerator = "(for generator)"
	forState     = "(for state)"
	forControl   = "(for control)"
)

// forLeave names the global function a rewritten loop calls when it is
// left, by its end, a break or a return: it cancels the stream the loop
// was iterating if it has not ended (see Binding.forLeave).
const forLeave = "(for leave)"

// rewriter rewrites one chunk; depth is how many generic fors enclose the
// statement being rewritten.
type rewriter struct{ depth int }

// rewriteBlock rewrites every generic for in stmts, including those inside
// nested function bodies.
func (rw *rewriter) block(stmts []ast.Stmt) {
	for i, s := range stmts {
		stmts[i] = rw.stmt(s)
	}
}

func (rw *rewriter) stmt(s ast.Stmt) ast.Stmt {
	switch st := s.(type) {
	case *ast.GenericForStmt:
		rw.exprs(st.Exprs)
		rw.depth++
		rw.block(st.Stmts)
		rw.depth--
		return rw.genericForAsWhile(st)
	case *ast.AssignStmt:
		rw.exprs(st.Lhs)
		rw.exprs(st.Rhs)
	case *ast.LocalAssignStmt:
		rw.exprs(st.Exprs)
	case *ast.FuncCallStmt:
		rw.expr(st.Expr)
	case *ast.DoBlockStmt:
		rw.block(st.Stmts)
	case *ast.WhileStmt:
		rw.expr(st.Condition)
		rw.block(st.Stmts)
	case *ast.RepeatStmt:
		rw.expr(st.Condition)
		rw.block(st.Stmts)
	case *ast.IfStmt:
		rw.expr(st.Condition)
		rw.block(st.Then)
		rw.block(st.Else)
	case *ast.NumberForStmt:
		rw.expr(st.Init)
		rw.expr(st.Limit)
		rw.expr(st.Step)
		rw.block(st.Stmts)
	case *ast.FuncDefStmt:
		rw.expr(st.Func)
	case *ast.ReturnStmt:
		rw.exprs(st.Exprs)
	}
	return s
}

func (rw *rewriter) exprs(es []ast.Expr) {
	for _, e := range es {
		rw.expr(e)
	}
}

// walkExpr finds function bodies inside an expression.
func (rw *rewriter) expr(e ast.Expr) {
	switch ex := e.(type) {
	case *ast.FunctionExpr:
		// A function's body is not inside the loops around it.
		depth := rw.depth
		rw.depth = 0
		rw.block(ex.Stmts)
		rw.depth = depth
	case *ast.AttrGetExpr:
		rw.expr(ex.Object)
		rw.expr(ex.Key)
	case *ast.TableExpr:
		for _, f := range ex.Fields {
			rw.expr(f.Key)
			rw.expr(f.Value)
		}
	case *ast.FuncCallExpr:
		rw.expr(ex.Func)
		rw.expr(ex.Receiver)
		rw.exprs(ex.Args)
	case *ast.LogicalOpExpr:
		rw.expr(ex.Lhs)
		rw.expr(ex.Rhs)
	case *ast.RelationalOpExpr:
		rw.expr(ex.Lhs)
		rw.expr(ex.Rhs)
	case *ast.StringConcatOpExpr:
		rw.expr(ex.Lhs)
		rw.expr(ex.Rhs)
	case *ast.ArithmeticOpExpr:
		rw.expr(ex.Lhs)
		rw.expr(ex.Rhs)
	case *ast.UnaryMinusOpExpr:
		rw.expr(ex.Expr)
	case *ast.UnaryNotOpExpr:
		rw.expr(ex.Expr)
	case *ast.UnaryLenOpExpr:
		rw.expr(ex.Expr)
	}
}

// genericForAsWhile turns
//
//	for n1, ..., nk in explist do body end
//
// into the loop the Lua 5.1 manual defines it as:
//
//	do
//	  local gen, state, control = explist
//	  while true do
//	    local n1, ..., nk = gen(state, control)
//	    if n1 == nil then break end
//	    control = n1
//	    body
//	  end
//	end
//
// The iterator is then called by an ordinary call instruction, which can
// yield, rather than from inside the for-loop instruction, which cannot.
func (rw *rewriter) genericForAsWhile(st *ast.GenericForStmt) ast.Stmt {
	line, last := st.Line(), st.LastLine()
	at := func(n interface {
		SetLine(int)
		SetLastLine(int)
	}) {
		n.SetLine(line)
		n.SetLastLine(last)
	}
	ident := func(name string) *ast.IdentExpr {
		e := &ast.IdentExpr{Value: name}
		at(e)
		return e
	}

	gen, state, control := rw.names()
	head := &ast.LocalAssignStmt{Names: []string{gen, state, control}, Exprs: st.Exprs}
	at(head)

	call := &ast.FuncCallExpr{Func: ident(gen), Args: []ast.Expr{ident(state), ident(control)}}
	at(call)
	step := &ast.LocalAssignStmt{Names: st.Names, Exprs: []ast.Expr{call}}
	at(step)

	isNil := &ast.RelationalOpExpr{Operator: "==", Lhs: ident(st.Names[0]), Rhs: &ast.NilExpr{}}
	at(isNil)
	brk := &ast.BreakStmt{}
	at(brk)
	stop := &ast.IfStmt{Condition: isNil, Then: []ast.Stmt{brk}}
	at(stop)

	advance := &ast.AssignStmt{Lhs: []ast.Expr{ident(control)}, Rhs: []ast.Expr{ident(st.Names[0])}}
	at(advance)

	body := make([]ast.Stmt, 0, len(st.Stmts)+3)
	body = append(body, step, stop, advance)
	body = append(body, st.Stmts...)
	cond := &ast.TrueExpr{}
	at(cond)
	loop := &ast.WhileStmt{Condition: cond, Stmts: body}
	at(loop)

	// Leaving the loop, by its end or a break, and returning from inside
	// it call forLeave with the iterator and its state.
	leaveCall := func(rest []ast.Expr) *ast.FuncCallExpr {
		c := &ast.FuncCallExpr{Func: ident(forLeave), Args: append([]ast.Expr{ident(gen), ident(state)}, rest...)}
		at(c)
		return c
	}
	wrapReturns(st.Stmts, func(r *ast.ReturnStmt) { r.Exprs = []ast.Expr{leaveCall(r.Exprs)} })
	leave := &ast.FuncCallStmt{Expr: leaveCall(nil)}
	at(leave)

	block := &ast.DoBlockStmt{Stmts: []ast.Stmt{head, loop, leave}}
	at(block)
	return block
}

// names returns the hidden variables' names for a loop at the rewriter's
// depth.
func (rw *rewriter) names() (gen, state, control string) {
	if rw.depth == 0 {
		return forGenerator, forState, forControl
	}
	n := " " + strconv.Itoa(rw.depth) + ")"
	trim := func(s string) string { return s[:len(s)-1] + n }
	return trim(forGenerator), trim(forState), trim(forControl)
}

// wrapReturns calls wrap on every return statement of stmts that returns
// from the function the statements are in: in nested blocks and loops, not
// in nested function bodies.
func wrapReturns(stmts []ast.Stmt, wrap func(*ast.ReturnStmt)) {
	for _, s := range stmts {
		switch st := s.(type) {
		case *ast.ReturnStmt:
			wrap(st)
		case *ast.DoBlockStmt:
			wrapReturns(st.Stmts, wrap)
		case *ast.WhileStmt:
			wrapReturns(st.Stmts, wrap)
		case *ast.RepeatStmt:
			wrapReturns(st.Stmts, wrap)
		case *ast.IfStmt:
			wrapReturns(st.Then, wrap)
			wrapReturns(st.Else, wrap)
		case *ast.NumberForStmt:
			wrapReturns(st.Stmts, wrap)
		case *ast.GenericForStmt:
			wrapReturns(st.Stmts, wrap)
		}
	}
}
