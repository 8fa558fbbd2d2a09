package lsp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// goplsTimeout is generous: gopls loads the standard library's export data
// on first use, and the CI machine is shared.
const goplsTimeout = 90 * time.Second

// findGopls looks for gopls in the module root's .bin (where .ci/run
// installs it) and then in PATH.
func findGopls(t *testing.T) string {
	t.Helper()
	return testenv.Peer(t, testenv.Gopls)
}

const goplsMain = `package main

import "fmt"

func Greet(name string) string {
	return "hello " + name
}

func main() {
	fmt.Println(Greet("x"))
	fmt.Println(undefinedName)
}
`

func pos(line, col uint32) map[string]any {
	return map[string]any{"line": line, "character": col}
}

func docPos(path string, line, col uint32) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": string(docURI(path))}, "position": pos(line, col)}
}

func diagnosticMessages(ds []protocol.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		if s, ok := d.Message.(protocol.String); ok {
			out = append(out, string(s))
		}
	}
	return out
}

// Against real gopls in a temp module (LSP client acceptance): diagnostics
// for an undefined name, definition, references, hover, completion,
// rename, and a didChange that fixes the error and clears the diagnostic.
func TestGopls(t *testing.T) {
	gopls := findGopls(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n\ngo 1.26\n"), 0o644))
	main := filepath.Join(dir, "main.go")
	require.NoError(t, os.WriteFile(main, []byte(goplsMain), 0o644))

	rt := newRT(t)
	env := []string{"GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod"}
	c, err := Start(rt, Config{Argv: []string{gopls}, Dir: dir, Env: env})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	require.NoError(t, c.Open(main, "go", nil))

	pump(t, rt, c, goplsTimeout, func() bool {
		return slices.ContainsFunc(diagnosticMessages(c.Diagnostics(main)), func(m string) bool {
			return strings.Contains(m, "undefined: undefinedName")
		})
	})
	require.Equal(t, "gopls", c.Capabilities().ServerInfo.Name)

	request := func(method string, params any) Result {
		t.Helper()
		o, res := awaitWithin(t, rt, c, c.Request(method, params, RequestOptions{Timeout: goplsTimeout}))
		require.True(t, o.OK(), "%s: %v", method, o.Err)
		return res
	}

	// Definition of Greet at its call (line 9, col 13).
	def := request(protocol.MethodTextDocumentDefinition, docPos(main, 9, 13))
	var defLines []uint32
	switch d := def.Value.(type) {
	case *protocol.Location:
		defLines = append(defLines, d.Range.Start.Line)
	case protocol.LocationSlice:
		for _, l := range d {
			defLines = append(defLines, l.Range.Start.Line)
		}
	default:
		t.Fatalf("definition result %T", def.Value)
	}
	require.Equal(t, []uint32{4}, defLines)

	// References of Greet, declaration included.
	p := docPos(main, 4, 5)
	p["context"] = map[string]any{"includeDeclaration": true}
	refs := request(protocol.MethodTextDocumentReferences, p).Value.([]protocol.Location)
	var refLines []uint32
	for _, r := range refs {
		refLines = append(refLines, r.Range.Start.Line)
	}
	slices.Sort(refLines)
	require.Equal(t, []uint32{4, 9}, refLines)

	hover := request(protocol.MethodTextDocumentHover, docPos(main, 4, 5)).Value.(*protocol.Hover)
	mc, ok := hover.Contents.(*protocol.MarkupContent)
	require.True(t, ok, "hover contents %T", hover.Contents)
	require.Contains(t, mc.Value, "func Greet(name string) string")

	// Completion after "fmt." on line 10.
	comp := request(protocol.MethodTextDocumentCompletion, docPos(main, 10, 5)).Value
	var labels []string
	switch r := comp.(type) {
	case *protocol.CompletionList:
		for _, it := range r.Items {
			labels = append(labels, it.Label)
		}
	case protocol.CompletionItemSlice:
		for _, it := range r {
			labels = append(labels, it.Label)
		}
	default:
		t.Fatalf("completion result %T", comp)
	}
	require.Contains(t, labels, "Println")

	rp := docPos(main, 4, 5)
	rp["newName"] = "Hello"
	edit := request(protocol.MethodTextDocumentRename, rp).Value.(*protocol.WorkspaceEdit)
	var renamed []uint32
	for _, e := range edit.Changes[docURI(main)] {
		renamed = append(renamed, e.Range.Start.Line)
	}
	for _, dc := range edit.DocumentChanges {
		if tde, ok := dc.(*protocol.TextDocumentEdit); ok {
			for _, e := range tde.Edits {
				if te, ok := e.(*protocol.TextEdit); ok {
					renamed = append(renamed, te.Range.Start.Line)
				}
			}
		}
	}
	slices.Sort(renamed)
	require.Equal(t, []uint32{4, 9}, renamed)

	// Replace undefinedName (line 10, cols 13-26) with a string literal.
	require.NoError(t, c.Change(main, Edit{
		Range: protocol.Range{Start: protocol.Position{Line: 10, Character: 13}, End: protocol.Position{Line: 10, Character: 26}},
		Text:  `"fixed"`,
	}))
	require.NoError(t, c.Save(main))
	pump(t, rt, c, goplsTimeout, func() bool { return len(c.Diagnostics(main)) == 0 })
}

// awaitWithin is await with the gopls deadline.
func awaitWithin(t *testing.T, rt *runtime.Runtime, c *Client, job runtime.JobID) (runtime.Outcome, Result) {
	t.Helper()
	pump(t, rt, c, goplsTimeout, func() bool { return rt.IsComplete(job) })
	o, ok := rt.TakeResult(job)
	require.True(t, ok)
	res, _ := c.TakeResult(job)
	return o, res
}
