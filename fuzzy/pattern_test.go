package fuzzy_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/fuzzy"
)

// matches returns the items that query matches, in store order.
func matches(t *testing.T, items []string, query string) []string {
	t.Helper()
	res, err := fuzzy.Search(context.Background(), fuzzy.NewStore(items), fuzzy.ParsePattern(query), fuzzy.Options{NoPositions: true})
	require.NoError(t, err)
	idx := make([]bool, len(items))
	for _, m := range res.Matches {
		idx[m.Index] = true
	}
	var out []string
	for i, ok := range idx {
		if ok {
			out = append(out, items[i])
		}
	}
	require.Equal(t, res.Total, len(out), "Total counts the matches")
	return out
}

// TestSmartCase covers the smart-case point: a lower-case term ignores case, a term with an
// upper-case letter respects it, each term deciding for itself.
func TestSmartCase(t *testing.T) {
	items := []string{"Makefile", "makefile", "MAKEFILE", "docs/Make.md"}
	require.Equal(t, items, matches(t, items, "make"))
	require.Equal(t, []string{"Makefile", "docs/Make.md"}, matches(t, items, "Make"))
	require.Equal(t, []string{"MAKEFILE"}, matches(t, items, "MAKE"))
	require.Equal(t, []string{"docs/Make.md"}, matches(t, items, "Make md"))
}

// TestTermsMustAllMatch covers the space-separated terms point, in any order.
func TestTermsMustAllMatch(t *testing.T) {
	items := []string{"runtime/stream.go", "runtime/stream_test.go", "luabind/stream_iter.go", "bus/stream.go"}
	require.Equal(t, []string{"runtime/stream.go", "runtime/stream_test.go"}, matches(t, items, "stream runtime"))
	require.Equal(t, []string{"runtime/stream_test.go"}, matches(t, items, "'test runtime stream"))
	require.Empty(t, matches(t, items, "stream zz"))
}

// TestExtendedSyntax covers fzf's extended terms: exact, exact at boundaries, prefix,
// suffix, whole text, the inverse forms, alternation and an escaped space.
func TestExtendedSyntax(t *testing.T) {
	items := []string{"src/main.go", "src/main_test.go", "cmd/domain.go", "main.c", "README", "my file.txt", "mxaxixn"}
	cases := []struct {
		query string
		want  []string
	}{
		{"main", []string{"src/main.go", "src/main_test.go", "cmd/domain.go", "main.c", "mxaxixn"}},
		{"'main", []string{"src/main.go", "src/main_test.go", "cmd/domain.go", "main.c"}},
		{"'main'", []string{"src/main.go", "src/main_test.go", "main.c"}},
		{"^src", []string{"src/main.go", "src/main_test.go"}},
		{".go$", []string{"src/main.go", "src/main_test.go", "cmd/domain.go"}},
		{"^readme$", []string{"README"}},
		{"^main$", nil},
		{"main !test", []string{"src/main.go", "cmd/domain.go", "main.c", "mxaxixn"}},
		{"main !^src", []string{"cmd/domain.go", "main.c", "mxaxixn"}},
		{"main !.go$", []string{"main.c", "mxaxixn"}},
		{"!'mn", []string{"README", "my file.txt"}},
		{".c$ | readme", []string{"main.c", "README"}},
		{`my\ file`, []string{"my file.txt"}},
		// A lone $ is a literal, as in fzf.
		{"$", nil},
		// Syntax with nothing left to match is ignored rather than an error.
		{"' ^ !", []string{"src/main.go", "src/main_test.go", "cmd/domain.go", "main.c", "README", "my file.txt", "mxaxixn"}},
	}
	for _, c := range cases {
		require.Equal(t, c.want, matches(t, items, c.query), "query %q", c.query)
	}
}

// TestNarrows covers when a query may search only the previous query's matches.
func TestNarrows(t *testing.T) {
	cases := []struct {
		prev, next string
		want       bool
	}{
		{"", "a", true},
		{"ma", "mai", true},
		{"ma", "main", true},
		{"mn", "main", true},
		{"main", "mai", false},
		{"ma", "ma go", true},
		{"ma go", "ma", false},
		{"ma", "'ma", true},
		{"'ma", "ma", false},
		{"'ma", "'main", true},
		{"^ma", "^main", true},
		{"^ma", "ma", false},
		{"go$", "o.go$", true},
		{"go$", "go", false},
		{"ma", "Main", true},
		{"Ma", "main", false},
		{"ma", "ma | zz", false},
		{"!te", "!tes", false},
		{"!te", "!te x", true},
		{"ma !te", "mai !te", true},
		{"ma", "^ma$", true},
	}
	for _, c := range cases {
		got := fuzzy.ParsePattern(c.next).Narrows(fuzzy.ParsePattern(c.prev))
		require.Equal(t, c.want, got, "%q -> %q", c.prev, c.next)
	}
}

// TestNarrowsIsSound checks the claim behind Refine on real data: whenever Narrows holds,
// every match of the new pattern is a match of the old one.
func TestNarrowsIsSound(t *testing.T) {
	items := loadPaths(t)
	queries := []string{"", "e", "ed", "edi", "edit", "editor", "'edit", "^cmd", "^cmd edit", "go$", "o.go$",
		"E", "Ed", "!test", "!test go", "ed | bus", "ed !test", "^web$", "te", "tes", "test"}
	for _, a := range queries {
		for _, b := range queries {
			if !fuzzy.ParsePattern(b).Narrows(fuzzy.ParsePattern(a)) {
				continue
			}
			prev := map[string]bool{}
			for _, m := range matches(t, items, a) {
				prev[m] = true
			}
			for _, m := range matches(t, items, b) {
				require.True(t, prev[m], "%q narrows %q but matches %q which %q does not", b, a, m, a)
			}
		}
	}
}
