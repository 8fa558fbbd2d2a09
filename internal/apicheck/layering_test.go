package apicheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/pmacs-go/pmacs-go"

// listedPackage is what go list says of a package.
type listedPackage struct {
	ImportPath string
	Imports    []string
	Deps       []string
	CgoFiles   []string
	Standard   bool
	Error      *struct{ Err string }
	DepsErrors []*struct{ Err string }
}

// goList runs go list -json with args in the module root, under env added
// to the environment.
func goList(t *testing.T, env []string, args ...string) map[string]*listedPackage {
	t.Helper()
	cmd := exec.Command(goTool(), append([]string{"list", "-e", "-json=ImportPath,Imports,Deps,CgoFiles,Standard,Error,DepsErrors"}, args...)...)
	cmd.Dir = moduleRoot
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list: %s", stderr.String())
	pkgs := map[string]*listedPackage{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else {
			require.NoError(t, err)
		}
		pkgs[p.ImportPath] = &p
	}
	return pkgs
}

// goTool is the go command of the toolchain running the test.
func goTool() string {
	gobin := filepath.Join(goruntime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		return "go"
	}
	return gobin
}

// rel is a package's path inside the module ("runtime", "kinds/grepjob"),
// or "" for a package of another module.
func rel(path string) string {
	if path == module {
		return "."
	}
	r, ok := strings.CutPrefix(path, module+"/")
	if !ok {
		return ""
	}
	return r
}

func under(r string, roots ...string) bool {
	for _, root := range roots {
		if r == root || strings.HasPrefix(r, root+"/") {
			return true
		}
	}
	return false
}

// leaves know nothing of jobs: they may import other leaves only.
var leaves = []string{"diff", "grep", "syntax", "fsops", "proc", "fuzzy", "walk", "watch", "fileuri", "textpos", "trust", "journal", "internal"}

// stillInRuntime are the leaves whose kinds still live in runtime/ (none):
// the runtime may import them until each kind moves to a package of its
// own. TestLayeringHolds fails when one is no longer imported, so the list
// only shrinks.
var stillInRuntime = []string{}

// layeringViolations checks the import graph against the layering table of
// DESIGN.md and returns one line per violation.
func layeringViolations(pkgs map[string]*listedPackage) []string {
	var bad []string
	for path, p := range pkgs {
		r := rel(path)
		switch {
		case r == "":
			continue
		case under(r, leaves...) && r != "internal/apicheck":
			for _, dep := range p.Deps {
				if d := rel(dep); under(d, "runtime", "kinds", "lsp", "mcp", "luabind") {
					bad = append(bad, r+" is a leaf but imports "+d)
				}
			}
		case r == "runtime" || r == "bus" || r == "workers" || under(r, "bus", "workers"):
			for _, imp := range p.Imports {
				d := rel(imp)
				if d == "" || under(d, "bus", "workers") || r == "runtime" && slices.Contains(stillInRuntime, d) {
					continue
				}
				bad = append(bad, r+" imports "+d+": the runtime and its core import nothing of the project but bus and workers")
			}
		}
	}
	slices.Sort(bad)
	return bad
}

// cgoViolations returns why a protocol client (lsp, mcp, and the runtime
// they attach to) would need cgo: a dependency outside the standard library
// with cgo files, or syntax itself.
func cgoViolations(pkgs map[string]*listedPackage) []string {
	var bad []string
	for path, p := range pkgs {
		r := rel(path)
		if !under(r, "lsp", "mcp", "runtime") {
			continue
		}
		for _, dep := range p.Deps {
			d := pkgs[dep]
			switch {
			case rel(dep) == "syntax":
				bad = append(bad, r+" depends on syntax")
			case d != nil && !d.Standard && len(d.CgoFiles) > 0:
				bad = append(bad, r+" depends on "+dep+", which needs cgo")
			}
		}
	}
	slices.Sort(bad)
	return slices.Compact(bad)
}

// The import graph keeps DESIGN.md's layering: no leaf imports the runtime,
// a kind or a client; the runtime imports nothing of the project but bus and
// workers (it knows no kind); and the protocol clients build without cgo.
func TestLayeringHolds(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list over the module")
	}
	// Reading the sources makes them inputs of the test as go test's
	// cache sees them (it does not see what go list reads): an import
	// added since the last run runs the test again.
	sourceFiles(t, func(string, string, *ast.File) {})
	pkgs := goList(t, nil, "-deps", "./...")
	require.Contains(t, pkgs, module+"/runtime", "go list saw the module")
	require.Empty(t, layeringViolations(pkgs))
	require.Empty(t, cgoViolations(pkgs))
	for _, leaf := range stillInRuntime {
		require.Contains(t, pkgs[module+"/runtime"].Imports, module+"/"+leaf,
			"runtime no longer imports %s: take it off stillInRuntime", leaf)
	}
}

// The protocol clients and the runtime build with cgo disabled.
func TestProtocolClientsBuildWithoutCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds part of the module")
	}
	sourceFiles(t, func(string, string, *ast.File) {})
	cmd := exec.Command(goTool(), "build", "./lsp/...", "./mcp/...", "./runtime/...")
	cmd.Dir = moduleRoot
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "CGO_ENABLED=0 go build: %s", out)
}

// The checks above catch what they are for: a leaf that imports the
// runtime, a runtime that imports a kind, a client that pulls in cgo.
func TestLayeringChecksCatchViolations(t *testing.T) {
	pkgs := map[string]*listedPackage{
		module + "/grep":            {ImportPath: module + "/grep", Deps: []string{module + "/runtime"}},
		module + "/runtime":         {ImportPath: module + "/runtime", Imports: []string{module + "/bus", module + "/kinds/grepjob", "fmt"}},
		module + "/lsp":             {ImportPath: module + "/lsp", Deps: []string{"example.com/cgolib", "net"}},
		"example.com/cgolib":        {ImportPath: "example.com/cgolib", CgoFiles: []string{"c.go"}},
		"net":                       {ImportPath: "net", Standard: true, CgoFiles: []string{"cgo_unix.go"}},
		module + "/mcp":             {ImportPath: module + "/mcp", Deps: []string{module + "/syntax"}},
		module + "/internal/dirent": {ImportPath: module + "/internal/dirent", Deps: []string{module + "/walk"}},
	}
	require.Equal(t, []string{
		"grep is a leaf but imports runtime",
		"runtime imports kinds/grepjob: the runtime and its core import nothing of the project but bus and workers",
	}, layeringViolations(pkgs))
	require.Equal(t, []string{
		"lsp depends on example.com/cgolib, which needs cgo",
		"mcp depends on syntax",
	}, cgoViolations(pkgs))
}

// bindingModule reports whether a luabind file belongs to a kind's or a
// protocol client's module (kind_*.go, and the clients' lsp_*.go, mcp_*.go),
// which may import what it binds; every other file is the binding's core.
func bindingModule(name string) bool {
	for _, prefix := range []string{"kind_", "lsp_", "mcp_"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// bindingCoreViolations takes luabind's non-test files (base name to the
// module-relative packages it imports) and returns one line for each core
// file that imports a kind or a protocol client: the core follows the
// registry (registerKind) and knows no kind.
func bindingCoreViolations(files map[string][]string) []string {
	var bad []string
	for name, imports := range files {
		if bindingModule(name) {
			continue
		}
		for _, d := range imports {
			if under(d, "kinds", "lsp", "mcp") {
				bad = append(bad, "luabind/"+name+" imports "+d+": only a kind_*.go module of luabind imports what it binds")
			}
		}
	}
	slices.Sort(bad)
	return bad
}

// luabindImports lists each non-test file of luabind with the packages of
// the module it imports.
func luabindImports(t *testing.T) map[string][]string {
	files := map[string][]string{}
	sourceFiles(t, func(path, _ string, f *ast.File) {
		if filepath.Base(filepath.Dir(path)) != "luabind" {
			return
		}
		imps := []string{}
		for _, s := range f.Imports {
			if r := rel(strings.Trim(s.Path.Value, `"`)); r != "" {
				imps = append(imps, r)
			}
		}
		files[filepath.Base(path)] = imps
	})
	return files
}

// The binding's core files import no kind and no protocol client: each
// reaches Lua through its own kind_*.go module and the registry.
func TestBindingCoreImportsNoKind(t *testing.T) {
	files := luabindImports(t)
	require.Contains(t, files, "handle.go", "the walk saw luabind")
	require.Contains(t, files, "kind_grep.go")
	require.Empty(t, bindingCoreViolations(files))
}

// The check above catches a core file that imports a kind or a client, and
// lets a kind's module do so.
func TestBindingCoreCheckCatchesViolations(t *testing.T) {
	require.Equal(t, []string{
		"luabind/handle.go imports mcp: only a kind_*.go module of luabind imports what it binds",
		"luabind/workers.go imports kinds/grepjob: only a kind_*.go module of luabind imports what it binds",
	}, bindingCoreViolations(map[string][]string{
		"workers.go":   {"runtime", "kinds/grepjob"},
		"handle.go":    {"mcp"},
		"kind_grep.go": {"kinds/grepjob", "grep"},
		"lsp_start.go": {"lsp"},
		"text.go":      {"fileuri"},
	}))
}
