package syntax

import (
	"bytes"
	"context"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func groupsOf(tree *Tree, spans []Span) map[string]string {
	m := map[string]string{}
	for _, s := range spans {
		m[string(tree.Source()[s.StartByte:s.EndByte])] = s.Group
	}
	return m
}

// Acceptance: Highlights covers rows [start, end): spans on the end row are
// excluded, spans are sorted by start byte (outer before inner), and each
// node is reported once with the first matching pattern's group.
func TestHighlightsCoverTheHalfOpenRowRange(t *testing.T) {
	src := "package a\n\nconst MAX_SIZE = 10\n\nfunc f(x int) string { return \"s\" }\n"
	tree := mustParse(t, "go", src)

	spans, err := tree.Highlights(2, 3)
	require.NoError(t, err)
	require.NotEmpty(t, spans)
	for _, s := range spans {
		require.LessOrEqual(t, s.StartRow, uint32(2))
		require.GreaterOrEqual(t, s.EndRow, uint32(2))
		require.Less(t, s.StartRow, uint32(3))
	}
	g := groupsOf(tree, spans)
	require.Equal(t, "keyword", g["const"])
	require.Equal(t, "constant", g["MAX_SIZE"], "#match? predicate applied")
	require.Equal(t, "number", g["10"])
	require.NotContains(t, g, "func", "row 4 is outside [2, 3)")

	all, err := tree.Highlights(0, 100)
	require.NoError(t, err)
	require.True(t, sort.SliceIsSorted(all, func(i, j int) bool {
		if all[i].StartByte != all[j].StartByte {
			return all[i].StartByte < all[j].StartByte
		}
		return all[i].EndByte > all[j].EndByte
	}))
	g = groupsOf(tree, all)
	require.Equal(t, "function", g["f"])
	require.Equal(t, "variable.parameter", g["x"])
	require.Equal(t, "type", g["int"])
	require.Equal(t, "string", g["\"s\""])
	seen := map[[2]uint32]bool{}
	for _, s := range all {
		k := [2]uint32{s.StartByte, s.EndByte}
		require.False(t, seen[k], "node %q reported twice", src[s.StartByte:s.EndByte])
		seen[k] = true
		require.Equal(t, s.StartRow, pointAt([]byte(src), int(s.StartByte)).Row)
	}

	empty, err := tree.Highlights(3, 3)
	require.NoError(t, err)
	require.Empty(t, empty)
	_, err = tree.Highlights(4, 3)
	require.ErrorIs(t, err, ErrInvalidRange)
}

// Acceptance: highlights of a markdown document include the spans of the
// injected trees (fenced lua, inline emphasis) in document coordinates.
func TestHighlightsIncludeInjectedTrees(t *testing.T) {
	tree := mustParse(t, "markdown", fencedDoc)
	spans, err := tree.Highlights(0, 100)
	require.NoError(t, err)
	g := groupsOf(tree, spans)
	require.Equal(t, "keyword", g["local"], "lua span inside the fence")
	require.Equal(t, "function.call", g["print"], "the lua grammar's leading newline is trimmed")
	for _, s := range spans {
		if string(tree.Source()[s.StartByte:s.EndByte]) == "print" {
			require.Equal(t, uint32(6), s.StartRow)
			require.Equal(t, uint32(0), s.StartCol)
		}
	}
	require.Equal(t, "markup.italic", g["*text*"], "inline grammar span")
	require.Equal(t, "markup.heading", g["# Notes\n"])

	// A window that only covers the heading leaves the fence out.
	spans, err = tree.Highlights(0, 1)
	require.NoError(t, err)
	require.NotContains(t, groupsOf(tree, spans), "local")
}

// Acceptance: each highlights query compiles once, lazily, even when many
// goroutines ask for it at the same time.
func TestHighlightsQueryCompilesOnceAcrossGoroutines(t *testing.T) {
	l := &Language{name: "go", ts: registry["go"].ts}
	var wg sync.WaitGroup
	got := make([]*compiledQuery, 8)
	errs := make([]error, len(got))
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Reported back to the test goroutine, which alone may FailNow.
			got[i], errs[i] = l.highlightsQuery()
		}()
	}
	wg.Wait()
	for i, q := range got {
		require.NoError(t, errs[i])
		require.NotNil(t, q)
		require.Same(t, got[0], q)
	}
}

// Acceptance: a bad query is an error, never a panic (the binding would
// panic on an invalid regexp at match time).
func TestBadQueryPredicatesAreErrors(t *testing.T) {
	ts := registry["go"].ts
	_, err := compileQuery([]byte(`((identifier) @x (#match? @x "("))`), ts)
	require.ErrorContains(t, err, "match?")
	_, err = compileQuery([]byte(`((identifier) @x (#eq? @x))`), ts)
	require.Error(t, err)
	_, err = compileQuery([]byte(`(no_such_node) @x`), ts)
	require.Error(t, err)

	q, err := compileQuery([]byte(`((identifier) @x (#any-of? @x "a" "b")) ((identifier) @y (#not-eq? @y "a"))`), ts)
	require.NoError(t, err)
	require.Len(t, q.predicates[0], 1)
	require.Len(t, q.predicates[1], 1)
}

// Acceptance: span rows and columns come from a line index; they must be the
// same points tree-sitter reports for every node of a real file.
func TestLineIndexAgreesWithTreeSitterPoints(t *testing.T) {
	src := goroot(t, "sort/search.go")
	tree := mustParse(t, "go", string(src))
	li := newLineIndex(src)
	for _, n := range positions(tree) {
		require.Equal(t, Point(n.start), li.point(n.startByte), "%s at %d", n.typ, n.startByte)
		require.Equal(t, Point(n.end), li.point(n.endByte), "%s at %d", n.typ, n.endByte)
	}
}

// Acceptance: asking again for the same rows returns an equal result that
// the caller owns (mutating it does not change the next answer).
func TestRepeatedHighlightsReturnOwnedCopies(t *testing.T) {
	tree := mustParse(t, "go", "package a\n\nfunc f() {}\n")
	first, err := tree.Highlights(0, 3)
	require.NoError(t, err)
	want := append([]Span(nil), first...)
	first[0].Group = "mangled"
	again, err := tree.Highlights(0, 3)
	require.NoError(t, err)
	require.Equal(t, want, again)
	other, err := tree.Highlights(2, 3)
	require.NoError(t, err)
	require.Less(t, len(other), len(want))
}

// tsx's query inherits typescript's: a TypeScript keyword and a JSX tag are
// both captured, and a query naming a missing parent is an error.
func TestTsxQueryInheritsTypescript(t *testing.T) {
	src, err := querySource("tsx")
	require.NoError(t, err)
	ts, err := querySource("typescript")
	require.NoError(t, err)
	require.True(t, bytes.HasSuffix(src, ts), "tsx's own patterns come first, then typescript's")
	tree, err := Parse(context.Background(), Request{Source: []byte("const a: number = <Foo bar={1} />;\n"), Language: "tsx"})
	require.NoError(t, err)
	defer tree.Close()
	spans, err := tree.Highlights(0, 1)
	require.NoError(t, err)
	groups := map[string]bool{}
	for _, s := range spans {
		groups[s.Group] = true
	}
	require.True(t, groups["tag"], "JSX tag: %v", groups)
	require.True(t, groups["keyword"] || groups["type.builtin"] || groups["type"], "TypeScript captures: %v", groups)
}
