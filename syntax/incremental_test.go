package syntax

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

func goroot(t testing.TB, rel string) []byte {
	t.Helper()
	dir := testenv.GoSrcOrSkip(t)
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Skipf("GOROOT source not available: %v", err)
	}
	return b
}

// snippets are what random edits insert: code fragments, line breaks and
// unbalanced delimiters, so edits both keep and break the syntax.
var snippets = []string{"x", "\n", "}", "{", "(", "\"", "// c\n", "func g() {}\n", "a := b + c\n", "\n\n\t", "`", "/*", "*/", "if x {\n\ty()\n}\n", "ü"}

// randomEdit applies one seeded random insert, delete or replace to src and
// returns the new text with the edit that describes it, points included.
func randomEdit(r *rand.Rand, src []byte) ([]byte, Edit) {
	start := r.IntN(len(src) + 1)
	oldEnd := start
	var insert string
	switch r.IntN(3) {
	case 0: // insert
		insert = snippets[r.IntN(len(snippets))]
	case 1: // delete
		oldEnd = min(len(src), start+1+r.IntN(40))
	default: // replace
		oldEnd = min(len(src), start+1+r.IntN(20))
		insert = snippets[r.IntN(len(snippets))]
	}
	out := append(append(append([]byte(nil), src[:start]...), insert...), src[oldEnd:]...)
	sp := pointAt(src, start)
	return out, Edit{
		StartByte: uint32(start), OldEndByte: uint32(oldEnd), NewEndByte: uint32(start + len(insert)),
		StartPoint: sp, OldEndPoint: advance(sp, src[start:oldEnd]), NewEndPoint: advance(sp, []byte(insert)),
	}
}

var incrementalFiles = []string{"strings/strings.go", "bufio/scan.go", "sort/sort.go"}

// Acceptance: for seeded random edits (insert/delete/replace at random
// offsets) on real files from GOROOT, each incremental reparse yields the same
// s-expression as a fresh parse, both with explicit edits and with the edit
// computed from the texts.
func TestIncrementalReparseEqualsFreshParse(t *testing.T) {
	ctx := context.Background()
	for fi, rel := range incrementalFiles {
		for _, auto := range []bool{false, true} {
			name := rel + "/explicit"
			if auto {
				name = rel + "/auto-diff"
			}
			t.Run(name, func(t *testing.T) {
				src := goroot(t, rel)
				r := rand.New(rand.NewPCG(uint64(fi), 0x5eed))
				tree, err := Parse(ctx, Request{Source: src, Language: "go"})
				require.NoError(t, err)
				for i := range 20 {
					next, e := randomEdit(r, src)
					req := Request{Source: next, Language: "go", Prior: tree}
					if !auto {
						req.Edits = []Edit{e}
					}
					inc, err := Parse(ctx, req)
					require.NoError(t, err)
					fresh, err := Parse(ctx, Request{Source: next, Language: "go"})
					require.NoError(t, err)
					require.Equal(t, fresh.SExpr(), inc.SExpr(), "edit %d: %+v", i, e)
					fresh.Close()
					tree.Close()
					tree, src = inc, next
				}
				tree.Close()
			})
		}
	}
}

// Acceptance: several edits in one request apply in order.
func TestIncrementalReparseAppliesSeveralEditsInOrder(t *testing.T) {
	src := goroot(t, "sort/search.go")
	prior := mustParse(t, "go", string(src))
	r := rand.New(rand.NewPCG(7, 7))
	var edits []Edit
	next := src
	for range 5 {
		var e Edit
		next, e = randomEdit(r, next)
		edits = append(edits, e)
	}
	tree, err := Parse(context.Background(), Request{Source: next, Language: "go", Prior: prior, Edits: edits})
	require.NoError(t, err)
	defer tree.Close()
	require.Equal(t, mustParse(t, "go", string(next)).SExpr(), tree.SExpr())
}

type nodePos struct {
	typ                string
	startByte, endByte uint32
	start, end         sitter.Point
}

func positions(tree *Tree) []nodePos {
	var out []nodePos
	c := sitter.NewTreeCursor(tree.ts.RootNode())
	defer c.Close()
	for {
		n := c.CurrentNode()
		out = append(out, nodePos{n.Type(), n.StartByte(), n.EndByte(), n.StartPoint(), n.EndPoint()})
		if c.GoToFirstChild() || c.GoToNextSibling() {
			continue
		}
		for {
			if !c.GoToParent() {
				return out
			}
			if c.GoToNextSibling() {
				break
			}
		}
	}
}

// Acceptance (binding defect): the binding's Tree.Edit sends the old end
// point as the new end point, so an edited tree reports wrong positions.
// This test shows the defect on the bare binding, then proves that after
// Parse's reparse every node's byte and row/column positions equal a fresh
// parse's, for multi-line inserts and deletes.
func TestPositionsAfterReparseAreRightDespiteBindingEditDefect(t *testing.T) {
	before := []byte("package a\n\nfunc f() {}\n")
	insert := "\n\n// three\n// new\n// lines\n"
	after := append(append(append([]byte(nil), before[:9]...), insert...), before[9:]...)
	e := Edit{StartByte: 9, OldEndByte: 9, NewEndByte: uint32(9 + len(insert)),
		StartPoint: Point{0, 9}, OldEndPoint: Point{0, 9}, NewEndPoint: advance(Point{0, 9}, []byte(insert))}

	// The defect: after the bare Edit the root's end row has not moved.
	prior := mustParse(t, "go", string(before))
	bare := prior.ts.Copy()
	bare.Edit(e.input())
	require.Equal(t, uint32(3), bare.RootNode().EndPoint().Row, "binding Edit defect fixed? (root end row should have become 8)")
	bare.Close()

	tree, err := Parse(context.Background(), Request{Source: after, Language: "go", Prior: prior, Edits: []Edit{e}})
	require.NoError(t, err)
	defer tree.Close()
	require.Equal(t, positions(mustParse(t, "go", string(after))), positions(tree))

	// Random multi-line edits on a real file, reparsed one after another.
	src := goroot(t, "sort/search.go")
	cur := mustParse(t, "go", string(src))
	r := rand.New(rand.NewPCG(11, 3))
	for i := range 10 {
		next, e := randomEdit(r, src)
		inc, err := Parse(context.Background(), Request{Source: next, Language: "go", Prior: cur, Edits: []Edit{e}})
		require.NoError(t, err)
		require.Equal(t, positions(mustParse(t, "go", string(next))), positions(inc), "edit %d", i)
		cur.Close()
		cur, src = inc, next
	}
	cur.Close()
}

// Acceptance: the computed edit is the span between the common prefix and
// suffix, with correct rows and byte columns, including multi-line changes.
func TestDiffEditFindsTheChangedSpan(t *testing.T) {
	_, changed := diffEdit([]byte("same"), []byte("same"))
	require.False(t, changed)

	e, changed := diffEdit([]byte("ab\ncd\nef"), []byte("ab\ncXY\nZd\nef"))
	require.True(t, changed)
	require.Equal(t, Edit{
		StartByte: 4, OldEndByte: 4, NewEndByte: 8,
		StartPoint: Point{1, 1}, OldEndPoint: Point{1, 1}, NewEndPoint: Point{2, 1},
	}, e)

	e, _ = diffEdit([]byte("aaaa"), []byte("aa"))
	require.Equal(t, uint32(2), e.StartByte)
	require.Equal(t, uint32(4), e.OldEndByte)
	require.Equal(t, uint32(2), e.NewEndByte)

	// Long texts exercise the 64-byte fast path on both ends.
	long := make([]byte, 1000)
	for i := range long {
		long[i] = byte('a' + i%26)
	}
	mod := append([]byte(nil), long...)
	mod[500] = '\n'
	e, _ = diffEdit(long, mod)
	require.Equal(t, uint32(500), e.StartByte)
	require.Equal(t, uint32(501), e.OldEndByte)
	require.Equal(t, uint32(501), e.NewEndByte)
	require.Equal(t, Point{1, 0}, e.NewEndPoint)
}
