package luabind

import (
	"fmt"
	"io"
	"os"
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
	rewriteBlock(chunk)
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
// source can name them; they are the names Lua itself gives these slots.
const (
	forGenerator = "(for generator)"
	forState     = "(for state)"
	forControl   = "(for control)"
)

// rewriteBlock rewrites every generic for in stmts, including those inside
// nested function bodies.
func rewriteBlock(stmts []ast.Stmt) {
	for i, s := range stmts {
		stmts[i] = rewriteStmt(s)
	}
}

func rewriteStmt(s ast.Stmt) ast.Stmt {
	switch st := s.(type) {
	case *ast.GenericForStmt:
		walkExprs(st.Exprs)
		rewriteBlock(st.Stmts)
		return genericForAsWhile(st)
	case *ast.AssignStmt:
		walkExprs(st.Lhs)
		walkExprs(st.Rhs)
	case *ast.LocalAssignStmt:
		walkExprs(st.Exprs)
	case *ast.FuncCallStmt:
		walkExpr(st.Expr)
	case *ast.DoBlockStmt:
		rewriteBlock(st.Stmts)
	case *ast.WhileStmt:
		walkExpr(st.Condition)
		rewriteBlock(st.Stmts)
	case *ast.RepeatStmt:
		walkExpr(st.Condition)
		rewriteBlock(st.Stmts)
	case *ast.IfStmt:
		walkExpr(st.Condition)
		rewriteBlock(st.Then)
		rewriteBlock(st.Else)
	case *ast.NumberForStmt:
		walkExpr(st.Init)
		walkExpr(st.Limit)
		walkExpr(st.Step)
		rewriteBlock(st.Stmts)
	case *ast.FuncDefStmt:
		walkExpr(st.Func)
	case *ast.ReturnStmt:
		walkExprs(st.Exprs)
	}
	return s
}

func walkExprs(es []ast.Expr) {
	for _, e := range es {
		walkExpr(e)
	}
}

// walkExpr finds function bodies inside an expression.
func walkExpr(e ast.Expr) {
	switch ex := e.(type) {
	case *ast.FunctionExpr:
		rewriteBlock(ex.Stmts)
	case *ast.AttrGetExpr:
		walkExpr(ex.Object)
		walkExpr(ex.Key)
	case *ast.TableExpr:
		for _, f := range ex.Fields {
			walkExpr(f.Key)
			walkExpr(f.Value)
		}
	case *ast.FuncCallExpr:
		walkExpr(ex.Func)
		walkExpr(ex.Receiver)
		walkExprs(ex.Args)
	case *ast.LogicalOpExpr:
		walkExpr(ex.Lhs)
		walkExpr(ex.Rhs)
	case *ast.RelationalOpExpr:
		walkExpr(ex.Lhs)
		walkExpr(ex.Rhs)
	case *ast.StringConcatOpExpr:
		walkExpr(ex.Lhs)
		walkExpr(ex.Rhs)
	case *ast.ArithmeticOpExpr:
		walkExpr(ex.Lhs)
		walkExpr(ex.Rhs)
	case *ast.UnaryMinusOpExpr:
		walkExpr(ex.Expr)
	case *ast.UnaryNotOpExpr:
		walkExpr(ex.Expr)
	case *ast.UnaryLenOpExpr:
		walkExpr(ex.Expr)
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
func genericForAsWhile(st *ast.GenericForStmt) ast.Stmt {
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

	head := &ast.LocalAssignStmt{Names: []string{forGenerator, forState, forControl}, Exprs: st.Exprs}
	at(head)

	call := &ast.FuncCallExpr{Func: ident(forGenerator), Args: []ast.Expr{ident(forState), ident(forControl)}}
	at(call)
	step := &ast.LocalAssignStmt{Names: st.Names, Exprs: []ast.Expr{call}}
	at(step)

	isNil := &ast.RelationalOpExpr{Operator: "==", Lhs: ident(st.Names[0]), Rhs: &ast.NilExpr{}}
	at(isNil)
	brk := &ast.BreakStmt{}
	at(brk)
	stop := &ast.IfStmt{Condition: isNil, Then: []ast.Stmt{brk}}
	at(stop)

	advance := &ast.AssignStmt{Lhs: []ast.Expr{ident(forControl)}, Rhs: []ast.Expr{ident(st.Names[0])}}
	at(advance)

	body := make([]ast.Stmt, 0, len(st.Stmts)+3)
	body = append(body, step, stop, advance)
	body = append(body, st.Stmts...)
	cond := &ast.TrueExpr{}
	at(cond)
	loop := &ast.WhileStmt{Condition: cond, Stmts: body}
	at(loop)

	block := &ast.DoBlockStmt{Stmts: []ast.Stmt{head, loop}}
	at(block)
	return block
}
