package fuzzy_test

import (
	"context"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

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
				if !spells(item, m.Positions, query) {
					t.Fatalf("positions %v in %q do not spell %q", m.Positions, item, query)
				}
			}
		}
	})
}

// spells reports whether the characters of item at the byte offsets pos are query's, as a
// single fuzzy term compares them: case folded unless query has upper case, and accented
// Latin letters read as their ASCII letter unless query holds one.
func spells(item string, pos []int, query string) bool {
	q := []rune(query)
	if len(pos) != len(q) {
		return false
	}
	lower := strings.ToLower(query)
	cs := lower != query
	norm := true
	for _, r := range lower {
		if fuzzy.NormalizeRune(r) != r {
			norm = false
		}
	}
	if !cs {
		q = []rune(lower)
	}
	for k, at := range pos {
		r, _ := utf8.DecodeRuneInString(item[at:])
		if !cs {
			r = unicode.ToLower(r)
		}
		if norm {
			r = fuzzy.NormalizeRune(r)
		}
		if r != q[k] {
			return false
		}
	}
	return true
}
