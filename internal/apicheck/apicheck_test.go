package apicheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// moduleRoot is two directories up from this package.
const moduleRoot = "../.."

// sourceFiles parses every non-test Go file of the module outside testdata,
// calling visit with the file's package name and syntax.
func sourceFiles(t *testing.T, visit func(path, pkg string, f *ast.File)) {
	t.Helper()
	fset := token.NewFileSet()
	err := filepath.WalkDir(moduleRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "testdata" || (strings.HasPrefix(name, ".") && path != moduleRoot) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		visit(path, f.Name.Name, f)
		return nil
	})
	require.NoError(t, err)
}

// Every exported sentinel error made with errors.New or fmt.Errorf has a
// message that starts with its package's name, as the standard library's
// do, so a wrapped message says where it came from.
func TestSentinelMessagesStartWithPackageName(t *testing.T) {
	checked := 0
	sourceFiles(t, func(path, pkg string, f *ast.File) {
		if pkg == "main" {
			return
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !name.IsExported() || !strings.HasPrefix(name.Name, "Err") || i >= len(vs.Values) {
						continue
					}
					msg, ok := sentinelMessage(vs.Values[i])
					if !ok {
						continue
					}
					checked++
					if !strings.HasPrefix(msg, pkg+": ") && !strings.HasPrefix(msg, "%w") {
						t.Errorf("%s: %s = %q: the message should start with %q", path, name.Name, msg, pkg+": ")
					}
				}
			}
		}
	})
	require.Greater(t, checked, 30, "the walk found the sentinels")
}

// sentinelMessage is the string literal given to errors.New or fmt.Errorf.
func sentinelMessage(e ast.Expr) (string, bool) {
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return "", false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	x, ok := sel.X.(*ast.Ident)
	if !ok || !(x.Name == "errors" && sel.Sel.Name == "New" || x.Name == "fmt" && sel.Sel.Name == "Errorf") {
		return "", false
	}
	lit, ok := call.Args[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// Exported names spell initialisms as Go does (FS, LSP, MCP, ID, URL, JSON,
// HTTP), and no exported name carries a unit suffix such as Ms: durations
// are time.Duration in Go.
func TestExportedNamesUseGoInitialisms(t *testing.T) {
	bad := regexp.MustCompile(`(Fs|Lsp|Mcp|Id|Url|Uri|Json|Http|Rpc|Api)([A-Z]|$)|Ms$`)
	checked := 0
	sourceFiles(t, func(path, pkg string, f *ast.File) {
		ast.Inspect(f, func(n ast.Node) bool {
			var names []*ast.Ident
			switch n := n.(type) {
			case *ast.FuncDecl:
				names = append(names, n.Name)
			case *ast.TypeSpec:
				names = append(names, n.Name)
			case *ast.ValueSpec:
				names = append(names, n.Names...)
			case *ast.Field:
				names = append(names, n.Names...)
			}
			for _, id := range names {
				if !id.IsExported() {
					continue
				}
				checked++
				if bad.MatchString(id.Name) {
					t.Errorf("%s: exported name %s: spell initialisms as Go does (KindFSRename, LSPClients) and use time.Duration rather than a unit suffix", path, id.Name)
				}
			}
			return true
		})
	})
	require.Greater(t, checked, 500, "the walk found the exported names")
}
