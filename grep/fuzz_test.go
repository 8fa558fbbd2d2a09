package grep_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/grep"
)

// fuzzReader hands out the fuzz input a byte at a time, then zeros: every
// input decodes to some case, however short.
type fuzzReader struct{ b []byte }

func (r *fuzzReader) next() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *fuzzReader) empty() bool { return len(r.b) == 0 }

// Content and pattern tokens: a small alphabet where matches are frequent,
// with the bytes that make line handling subtle: case variants, runes whose
// case folding leaves ASCII (KELVIN SIGN, LONG S), CR, invalid UTF-8, NUL.
var grepTextTokens = []string{
	"a", "A", "b", "B", "ab", "aB", "k", "K", "\u212a", "s", "S", "\u017f",
	"é", "É", " ", "\r", "\n", "\n", "\r\n", "\xff", "\xc3", "\x00", ".", "*",
}

// Pattern tokens add regular expression syntax, valid and not.
var grepPatternTokens = append(append([]string{}, grepTextTokens[:19]...),
	".", "*", "+", "?", "|", "(", ")", "[", "]", "^", "$", `\b`, "[aé]", `\w`, "a*", "(?i)", `\r`, "\xff")

// The files a case may create: nested, hidden, and case variants of names.
var grepFileNames = []string{"a.txt", "B.txt", "sub/c.txt", "sub/deep/d.txt", ".hidden.txt", "sub/.h/e.txt", "b.txt", "sub/f"}

// grepCase is one decoded fuzz input.
type grepCase struct {
	spec  grep.Spec
	files map[string][]byte
}

func decodeGrepCase(data []byte) grepCase {
	r := &fuzzReader{b: data}
	flags := r.next()
	c := grepCase{files: map[string][]byte{}}
	c.spec.Regex = flags&1 != 0
	c.spec.IgnoreCase = flags&2 != 0
	c.spec.Hidden = flags&4 != 0
	c.spec.NoIgnore = true       // ignore files are covered by their own tests
	c.spec.SkipDirs = []string{} // so are skipped directory names
	if b := r.next(); flags&8 != 0 {
		c.spec.MaxMatchText = int(b%16) + 1
	}
	if b := r.next(); flags&16 != 0 {
		c.spec.MaxResults = int(b%6) + 1
	}
	c.spec.Fanout = int(r.next()%3) + 1
	var pat strings.Builder
	for range int(r.next() % 6) {
		pat.WriteString(grepPatternTokens[int(r.next())%len(grepPatternTokens)])
	}
	c.spec.Pattern = pat.String()
	for n := 0; n < 6 && !r.empty(); n++ {
		name := grepFileNames[int(r.next())%len(grepFileNames)]
		var body bytes.Buffer
		for range int(r.next() % 40) {
			body.WriteString(grepTextTokens[int(r.next())%len(grepTextTokens)])
		}
		c.files[name] = body.Bytes()
	}
	return c
}

// encodeGrepSeed builds an input that decodes to the given case, for seeds
// that say what they test. Tokens are indices into the tables above.
func grepSeed(flags, matchText, maxResults, fanout byte, pattern []int, files map[int][]int) []byte {
	out := []byte{flags, matchText, maxResults, fanout, byte(len(pattern))}
	for _, p := range pattern {
		out = append(out, byte(p))
	}
	names := make([]int, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Ints(names)
	for _, n := range names {
		out = append(out, byte(n), byte(len(files[n])))
		for _, tok := range files[n] {
			out = append(out, byte(tok))
		}
	}
	return out
}

// refMatch is a match as the reference computes it.
type refMatch struct {
	File  string
	Line  uint32
	Text  string
	Spans [][2]uint32
}

// referenceSearch is the naive search the fuzz target checks grep against:
// every file read whole, split at '\n', one trailing '\r' dropped, every
// line tested on its own. It returns the error class Search must return
// (ErrBadPattern or nil).
func referenceSearch(c grepCase) ([]refMatch, int, int, error) {
	spec := c.spec
	if strings.IndexByte(spec.Pattern, 0) >= 0 {
		return nil, 0, 0, grep.ErrBadPattern
	}
	var re *regexp.Regexp
	switch {
	case spec.Pattern == "":
	case spec.Regex || spec.IgnoreCase:
		src := spec.Pattern
		if !spec.Regex {
			src = regexp.QuoteMeta(src)
		}
		if spec.IgnoreCase {
			src = "(?i)" + src
		}
		var err error
		if re, err = regexp.Compile(src); err != nil {
			return nil, 0, 0, grep.ErrBadPattern
		}
	}
	limit := spec.MaxMatchText
	if limit <= 0 {
		limit = grep.DefaultMaxMatchText
	}
	var out []refMatch
	searched, skipped := 0, 0
	for name, body := range c.files {
		hidden := false
		for _, part := range strings.Split(name, "/") {
			hidden = hidden || strings.HasPrefix(part, ".")
		}
		if hidden && !spec.Hidden {
			continue
		}
		if bytes.IndexByte(body[:min(len(body), 8<<10)], 0) >= 0 {
			skipped++
			continue
		}
		searched++
		if spec.Pattern == "" {
			continue
		}
		lines := bytes.Split(body, []byte("\n"))
		if len(lines[len(lines)-1]) == 0 {
			lines = lines[:len(lines)-1]
		}
		for i, line := range lines {
			line = bytes.TrimSuffix(line, []byte("\r"))
			if !utf8.Valid(line) {
				continue
			}
			var spans [][2]uint32
			if re != nil {
				for _, loc := range re.FindAllIndex(line, -1) {
					spans = append(spans, [2]uint32{uint32(loc[0]), uint32(loc[1])})
				}
			} else {
				p := []byte(spec.Pattern)
				for at := 0; at+len(p) <= len(line); {
					if bytes.Equal(line[at:at+len(p)], p) {
						spans = append(spans, [2]uint32{uint32(at), uint32(at + len(p))})
						at += len(p)
					} else {
						at++
					}
				}
			}
			text := line
			if len(text) > limit {
				cut := limit
				for cut > 0 && !utf8.RuneStart(text[cut]) {
					cut--
				}
				text = text[:cut]
			}
			var kept [][2]uint32
			for _, sp := range spans {
				if int(sp[1]) <= len(text) {
					kept = append(kept, sp)
				}
			}
			if len(kept) == 0 {
				continue
			}
			out = append(out, refMatch{File: name, Line: uint32(i + 1), Text: string(text), Spans: kept})
		}
	}
	sortRefMatches(out)
	return out, searched, skipped, nil
}

func sortRefMatches(ms []refMatch) {
	sort.Slice(ms, func(i, j int) bool {
		if ms[i].File != ms[j].File {
			return ms[i].File < ms[j].File
		}
		return ms[i].Line < ms[j].Line
	})
}

// FuzzSearchMatchesNaiveReference searches random small trees for random
// patterns and checks every answer against referenceSearch: the same lines,
// line numbers, texts (CR dropped, cut at a rune boundary) and spans, binary
// files skipped, invalid UTF-8 lines skipped, hidden files honoured, bad
// patterns refused, and MaxResults giving exactly that many true matches
// (issue 8: grep over random small trees checked against a naive reference).
func FuzzSearchMatchesNaiveReference(f *testing.F) {
	// Token indices: 0 a, 1 A, 2 b, 3 B, 4 ab, 5 aB, 6 k, 7 K, 8 KELVIN, 9 s,
	// 10 S, 11 LONG S, 12 é, 13 É, 14 space, 15 CR, 16 LF, 18 CRLF, 19 \xff,
	// 20 \xc3, 21 NUL; pattern-only: 24 '.', 25 '*', 29 '(', 33 '^', 34 '$', 35 \b.
	f.Add(grepSeed(0, 0, 0, 1, []int{4}, map[int][]int{0: {4, 14, 4, 16, 1, 2, 16, 4, 4}, 2: {0, 2, 18, 4}}))
	f.Add(grepSeed(2, 0, 0, 2, []int{5}, map[int][]int{0: {4, 16, 5, 16, 1, 3}, 1: {0, 1, 2, 3}}))
	f.Add(grepSeed(2, 0, 0, 1, []int{6}, map[int][]int{0: {6, 16, 7, 16, 8, 16, 9}}))
	f.Add(grepSeed(2, 0, 0, 1, []int{9}, map[int][]int{0: {9, 10, 11, 16, 12, 13}}))
	f.Add(grepSeed(2, 0, 0, 1, []int{12}, map[int][]int{0: {13, 12, 16, 12}}))
	f.Add(grepSeed(0, 0, 0, 1, []int{0}, map[int][]int{0: {0, 15, 16, 0, 19, 16, 0, 20, 16, 0, 15}}))
	f.Add(grepSeed(0, 0, 0, 1, []int{0}, map[int][]int{0: {0, 21, 0}, 1: {0, 0}}))
	f.Add(grepSeed(1, 0, 0, 3, []int{0, 24, 25, 2}, map[int][]int{0: {0, 2, 16, 4, 14, 4}, 3: {0, 0, 2, 2}}))
	f.Add(grepSeed(1, 0, 0, 1, []int{33, 0, 34}, map[int][]int{0: {0, 16, 0, 15, 16, 14, 0}}))
	f.Add(grepSeed(1, 0, 0, 1, []int{0, 25}, map[int][]int{0: {2, 16, 16, 2}}))
	f.Add(grepSeed(1, 0, 0, 1, []int{29}, map[int][]int{0: {0}}))
	f.Add(grepSeed(1, 0, 0, 1, []int{35, 4}, map[int][]int{0: {4, 14, 0, 4, 16}}))
	f.Add(grepSeed(8, 3, 0, 1, []int{0}, map[int][]int{0: {12, 0, 12, 0, 0, 16, 12, 12, 0}}))
	f.Add(grepSeed(16, 0, 2, 2, []int{0}, map[int][]int{0: {0, 16, 0, 16, 0}, 1: {0, 16, 0}, 2: {0}}))
	f.Add(grepSeed(4, 0, 0, 2, []int{0}, map[int][]int{4: {0}, 5: {0}, 0: {0}}))
	f.Add(grepSeed(0, 0, 0, 1, []int{16}, map[int][]int{0: {0, 16, 0}}))
	f.Add(grepSeed(0, 0, 0, 1, []int{}, map[int][]int{0: {0, 16, 0}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := decodeGrepCase(data)
		root := t.TempDir()
		for name, body := range c.files {
			p := filepath.Join(root, filepath.FromSlash(name))
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, body, 0o644))
		}
		c.spec.Root = root
		want, searched, skipped, wantErr := referenceSearch(c)

		var mu sync.Mutex
		var got []refMatch
		st, err := grep.Search(context.Background(), c.spec, func(ms []grep.Match) error {
			mu.Lock()
			defer mu.Unlock()
			for _, m := range ms {
				require.NotEmpty(t, m.Spans, "%+v", m)
				require.Equal(t, m.Spans[0], [2]uint32{m.MatchStart, m.MatchEnd}, "first span is MatchStart/MatchEnd")
				got = append(got, refMatch{File: m.File, Line: m.Line, Text: m.Text, Spans: m.Spans})
			}
			return nil
		})
		if wantErr != nil {
			require.Error(t, err)
			require.True(t, errors.Is(err, wantErr), "got %v, want %v", err, wantErr)
			require.Empty(t, got)
			return
		}
		require.NoError(t, err, "pattern %q", c.spec.Pattern)
		sortRefMatches(got)
		require.EqualValues(t, len(got), st.Matches, "Stats.Matches counts what was emitted")
		if c.spec.MaxResults > 0 {
			require.Len(t, got, min(c.spec.MaxResults, len(want)), "MaxResults")
			index := make(map[string]refMatch, len(want))
			for _, m := range want {
				index[fmt.Sprintf("%s:%d", m.File, m.Line)] = m
			}
			for _, m := range got {
				require.Equal(t, index[fmt.Sprintf("%s:%d", m.File, m.Line)], m, "pattern %q", c.spec.Pattern)
			}
			return
		}
		require.Equal(t, want, got, "pattern %q regex=%v fold=%v", c.spec.Pattern, c.spec.Regex, c.spec.IgnoreCase)
		if c.spec.Pattern != "" {
			require.EqualValues(t, searched, st.FilesSearched, "files searched")
			require.EqualValues(t, skipped, st.FilesSkipped, "binary files skipped")
		}
	})
}
