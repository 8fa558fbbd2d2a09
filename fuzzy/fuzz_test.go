package fuzzy_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pmacs-go/pmacs-go/fuzzy"
)

// FuzzSearch checks invariants on arbitrary texts and queries: no panic; positions are
// ascending offsets inside the text; for a single fuzzy term they spell the term; and the
// ranking and scores do not depend on whether positions were asked for.
func FuzzSearch(f *testing.F) {
	for _, s := range [][2]string{
		{"runtime/supersede.go", "rtsup"},
		{"a-b-c-d/abcd", "abcd"},
		{"Makefile", "Mk"},
		{".gitignore", "."},
		{"  spaced  ", "^spaced$"},
		{"x/main.go", "'main' | zz !test"},
		{"\xff\xfe/ü.go", "ü"},
		{"", "a"},
		{"abc", ""},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, text, query string) {
		if strings.ContainsRune(text, '\n') || len(text) > 4096 || len(query) > 64 {
			t.Skip()
		}
		store := fuzzy.NewStore([]string{text, "unrelated/" + text})
		p := fuzzy.ParsePattern(query)
		ctx := context.Background()
		with, err := fuzzy.Search(ctx, store, p, fuzzy.Options{})
		if err != nil {
			t.Fatal(err)
		}
		without, err := fuzzy.Search(ctx, store, p, fuzzy.Options{NoPositions: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(with.Matches) != len(without.Matches) {
			t.Fatalf("%d matches with positions, %d without", len(with.Matches), len(without.Matches))
		}
		single := !strings.ContainsAny(query, " '^$!|\\") && query != ""
		for i, m := range with.Matches {
			if m.Score != without.Matches[i].Score || m.Index != without.Matches[i].Index {
				t.Fatalf("match %d: %+v with positions, %+v without", i, m, without.Matches[i])
			}
			item := store.Item(m.Index)
			for k, pos := range m.Positions {
				if pos < 0 || pos >= len(item) || k > 0 && pos <= m.Positions[k-1] {
					t.Fatalf("bad positions %v in %q", m.Positions, item)
				}
			}
			if single {
				var spelled []byte
				for _, pos := range m.Positions {
					spelled = append(spelled, item[pos])
				}
				want := query
				if strings.ToLower(query) == query {
					want = strings.ToLower(query)
					spelled = []byte(asciiLower(string(spelled)))
				}
				if string(spelled) != want {
					t.Fatalf("positions %v in %q spell %q, want %q", m.Positions, item, spelled, want)
				}
			}
		}
	})
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}
