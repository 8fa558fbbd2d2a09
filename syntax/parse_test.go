package syntax

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func mustParse(t testing.TB, lang, src string) *Tree {
	t.Helper()
	tree, err := Parse(context.Background(), Request{Source: []byte(src), Language: lang})
	require.NoError(t, err)
	t.Cleanup(tree.Close)
	return tree
}

// Acceptance (ported reference test): a Rust file round-trips to a tree
// whose root is source_file, with the language name and a parse duration.
func TestParseRoundTripsARustSourceFile(t *testing.T) {
	tree := mustParse(t, "rust", "fn main() { let _x = 1 + 2; }\n")
	require.Equal(t, "rust", tree.Language())
	require.Equal(t, "source_file", tree.RootType())
	require.False(t, tree.HasError())
	require.Positive(t, tree.Duration())
	require.Contains(t, tree.SExpr(), "(function_item name: (identifier)")
}

// Acceptance: a nil source fails with a clear error (empty source is fine).
func TestParseRejectsNilSource(t *testing.T) {
	_, err := Parse(context.Background(), Request{Language: "go"})
	require.ErrorIs(t, err, ErrNilSource)

	tree := mustParse(t, "go", "")
	require.Equal(t, "source_file", tree.RootType())
}

// Acceptance: Parse owns its source; the caller may reuse the slice.
func TestParseCopiesTheSource(t *testing.T) {
	src := []byte("package a\n")
	tree, err := Parse(context.Background(), Request{Source: src, Language: "go"})
	require.NoError(t, err)
	defer tree.Close()
	copy(src, "XXXXXXX")
	require.Equal(t, "package a\n", string(tree.Source()))
}

// Acceptance: malformed incremental requests fail with matchable errors
// instead of corrupting a tree.
func TestParseRejectsBadIncrementalRequests(t *testing.T) {
	ctx := context.Background()
	prior := mustParse(t, "go", "package a\n")

	_, err := Parse(ctx, Request{Source: []byte("package b\n"), Language: "go", Edits: []Edit{{}}})
	require.ErrorIs(t, err, ErrInvalidEdit, "edits without a prior tree")

	_, err = Parse(ctx, Request{Source: []byte("fn x() {}"), Language: "rust", Prior: prior})
	require.ErrorIs(t, err, ErrLanguageMismatch)

	_, err = Parse(ctx, Request{Source: []byte("package b\n"), Language: "go", Prior: prior,
		Edits: []Edit{{StartByte: 5, OldEndByte: 4, NewEndByte: 6}}})
	require.ErrorIs(t, err, ErrInvalidEdit, "old end before start")

	_, err = Parse(ctx, Request{Source: []byte("package b\n"), Language: "go", Prior: prior,
		Edits: []Edit{{StartByte: 8, OldEndByte: 9, NewEndByte: 99}}})
	require.ErrorIs(t, err, ErrInvalidEdit, "new end past the source")

	_, err = Parse(ctx, Request{Source: []byte("package a\n"), Language: "go", Injections: map[string]string{"x": "cobol"}})
	require.ErrorIs(t, err, ErrUnknownLanguage, "injection map naming an unknown language")

	closed := mustParse(t, "go", "package a\n")
	closed.Close()
	_, err = Parse(ctx, Request{Source: []byte("package b\n"), Language: "go", Prior: closed})
	require.ErrorIs(t, err, ErrClosedTree)
}

// Acceptance: a closed tree reports empty results instead of touching freed
// memory, and closing twice is harmless.
func TestClosedTreeIsInert(t *testing.T) {
	tree := mustParse(t, "go", "package a\n")
	clone := tree.Clone()
	tree.Close()
	tree.Close()
	require.Empty(t, tree.RootType())
	require.Empty(t, tree.SExpr())
	require.False(t, tree.HasError())
	_, err := tree.Highlights(0, 1)
	require.ErrorIs(t, err, ErrClosedTree)
	require.Empty(t, tree.Clone().SExpr())

	require.Equal(t, "source_file", clone.RootType(), "a clone outlives the original")
	clone.Close()
}

// Acceptance: an incremental reparse leaves the prior tree untouched, so it
// can be reused after the reparse (or after a cancelled one).
func TestIncrementalReparseLeavesPriorIntact(t *testing.T) {
	before := "package a\n\nfunc f() {}\n"
	prior := mustParse(t, "go", before)
	want := prior.SExpr()
	for _, after := range []string{"package a\n\nfunc f() { g() }\n", "package a\n\nvar x = 1\n"} {
		tree, err := Parse(context.Background(), Request{Source: []byte(after), Language: "go", Prior: prior})
		require.NoError(t, err)
		require.Equal(t, mustParse(t, "go", after).SExpr(), tree.SExpr())
		tree.Close()
		require.Equal(t, want, prior.SExpr())
		require.Equal(t, before, string(prior.Source()))
	}
}
