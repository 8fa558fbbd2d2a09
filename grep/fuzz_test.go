package grep_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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

// With flag 64 the case honours ignore files: the names add ignore files at three depths,
// .git/info/exclude, a .git file making sub a repository of its own, and a 41-byte name for
// the star-heavy globs; flag 128 makes the root a git work tree.
var grepIgnoreModeNames = append(append([]string{}, grepFileNames...),
	".gitignore", ".ignore", "sub/.gitignore", "sub/.ignore", "sub/deep/.gitignore",
	".git/info/exclude", "sub/.git", "sub/"+strings.Repeat("a", 41), "sub/.h/.ignore")

// Ignore-file line tokens: gitignore syntax (negation, anchoring, directory-only, '**',
// classes, escapes, comments, trailing spaces, CR, an invalid byte) over the names above, and
// the star-heavy glob of issue 11.
var grepIgnoreTokens = []string{"!", "/", "*", "**", "?", "a", "b", ".txt", ".", "sub", "deep",
	"[ab]", "[!a]", "[a-c]", "\\", " ", "#", "\xff", "[", ".h", "c", "\r", "*a*a*a*a*a*a*a*a*a*a*b", "f", "B", "é"}

// grepCase is one decoded fuzz input.
type grepCase struct {
	spec   grep.Spec
	files  map[string][]byte
	gitDir bool // the root holds an empty .git directory
}

func isIgnoreFile(name string) bool {
	base := name[strings.LastIndexByte(name, '/')+1:]
	return base == ".gitignore" || base == ".ignore" || base == "exclude"
}

func decodeGrepCase(data []byte) grepCase {
	r := &fuzzReader{b: data}
	flags := r.next()
	c := grepCase{files: map[string][]byte{}}
	c.spec.Regex = flags&1 != 0
	c.spec.IgnoreCase = flags&2 != 0
	c.spec.Hidden = flags&4 != 0
	c.spec.NoIgnore = flags&64 == 0
	c.gitDir = !c.spec.NoIgnore && flags&128 != 0
	c.spec.SkipDirs = []string{} // skipped directory names are covered by their own tests
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
	names, maxFiles := grepFileNames, 6
	if !c.spec.NoIgnore {
		names, maxFiles = grepIgnoreModeNames, 10
	}
	for n := 0; n < maxFiles && !r.empty(); n++ {
		name := names[int(r.next())%len(names)]
		var body bytes.Buffer
		if isIgnoreFile(name) {
			for range int(r.next() % 6) {
				for range int(r.next() % 6) {
					body.WriteString(grepIgnoreTokens[int(r.next())%len(grepIgnoreTokens)])
				}
				body.WriteByte('\n')
			}
		} else {
			for range int(r.next() % 40) {
				body.WriteString(grepTextTokens[int(r.next())%len(grepTextTokens)])
			}
		}
		c.files[name] = body.Bytes()
	}
	return c
}

// ignoreSeed builds an ignore-mode input: files are indices into grepIgnoreModeNames with
// text tokens, ignores the same with lines of grepIgnoreTokens indices.
func ignoreSeed(flags byte, pattern []int, files map[int][]int, ignores map[int][][]int) []byte {
	out := []byte{flags | 64, 0, 0, 1, byte(len(pattern))}
	for _, p := range pattern {
		out = append(out, byte(p))
	}
	for _, n := range slices.Sorted(maps.Keys(files)) {
		out = append(out, byte(n), byte(len(files[n])))
		for _, tok := range files[n] {
			out = append(out, byte(tok))
		}
	}
	for _, n := range slices.Sorted(maps.Keys(ignores)) {
		out = append(out, byte(n), byte(len(ignores[n])))
		for _, line := range ignores[n] {
			out = append(out, byte(len(line)))
			for _, tok := range line {
				out = append(out, byte(tok))
			}
		}
	}
	return out
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
		if !refIncluded(c, name) {
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

// refIncluded reports whether a search of the case reaches the file: no directory on its way
// nor the file itself is excluded, where an entry is excluded when the ignore files ignore it,
// or when they say nothing and it is hidden without Spec.Hidden (ripgrep's rules).
func refIncluded(c grepCase, name string) bool {
	parts := strings.Split(name, "/")
	for i := range parts {
		path := strings.Join(parts[:i+1], "/")
		isDir := i < len(parts)-1
		v := refIgnoreNone
		if !c.spec.NoIgnore {
			v = refVerdict(c, path, isDir)
		}
		if v == refIgnored || (v == refIgnoreNone && !c.spec.Hidden && strings.HasPrefix(parts[i], ".")) {
			return false
		}
	}
	return true
}

const (
	refIgnoreNone = iota
	refIgnored
	refWhitelisted
)

// refVerdict applies the case's ignore files to path, computed from scratch for each path:
// .ignore files from the nearest directory up to the root; then, if a directory on the way
// is a repository (holds a .git entry), the .gitignore files and then .git/info/exclude from
// the nearest directory up to that repository's root. The first file with a matching line
// decides, and within a file the last matching line.
func refVerdict(c grepCase, path string, isDir bool) int {
	var dirs []string // the directories holding path, nearest first; "" is the root
	for d := path; d != ""; {
		i := strings.LastIndexByte(d, '/')
		if i < 0 {
			d = ""
		} else {
			d = d[:i]
		}
		dirs = append(dirs, d)
	}
	join := func(dir, name string) string {
		if dir == "" {
			return name
		}
		return dir + "/" + name
	}
	relTo := func(dir string) string {
		if dir == "" {
			return path
		}
		return path[len(dir)+1:]
	}
	hasGit := func(dir string) bool {
		if dir == "" && c.gitDir {
			return true
		}
		g := join(dir, ".git")
		for name := range c.files {
			if name == g || strings.HasPrefix(name, g+"/") {
				return true
			}
		}
		return false
	}
	apply := func(dir, file string) int {
		body, ok := c.files[join(dir, file)]
		if !ok {
			return refIgnoreNone
		}
		return refIgnoreFileVerdict(body, relTo(dir), isDir)
	}
	for _, d := range dirs {
		if v := apply(d, ".ignore"); v != refIgnoreNone {
			return v
		}
	}
	repo := -1
	for i, d := range dirs {
		if hasGit(d) {
			repo = i
			break
		}
	}
	if repo < 0 {
		return refIgnoreNone
	}
	for _, file := range []string{".gitignore", ".git/info/exclude"} {
		for _, d := range dirs[:repo+1] {
			if v := apply(d, file); v != refIgnoreNone {
				return v
			}
		}
	}
	return refIgnoreNone
}

// refIgnoreFileVerdict parses one ignore file by gitignore's line rules and matches rel with
// each line translated to a regular expression (as ripgrep's globset does), last line first.
func refIgnoreFileVerdict(body []byte, rel string, isDir bool) int {
	lines := strings.Split(string(body), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		s := strings.TrimSuffix(lines[i], "\r")
		if s == "" || s[0] == '#' || !utf8.ValidString(s) {
			continue
		}
		for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, "\\ ") {
			s = s[:len(s)-1]
		}
		negate := strings.HasPrefix(s, "!")
		s = strings.TrimPrefix(s, "!")
		dirOnly := strings.HasSuffix(s, "/")
		s = strings.TrimRight(s, "/")
		anchored := strings.Contains(s, "/")
		s = strings.TrimPrefix(s, "/")
		if s == "" || (dirOnly && !isDir) {
			continue
		}
		subject := rel[strings.LastIndexByte(rel, '/')+1:]
		if anchored {
			subject = rel
		}
		if regexp.MustCompile(globToRegexp(s)).MatchString(latin1(subject)) {
			if negate {
				return refWhitelisted
			}
			return refIgnored
		}
	}
	return refIgnoreNone
}

// latin1 maps each byte of s to the character of the same number, so that a regular
// expression over characters matches bytes: gitignore globs, like git's wildmatch and
// ripgrep's globset, work on bytes ('?' is one byte of a multi-byte name).
func latin1(s string) string {
	r := make([]rune, len(s))
	for i := range len(s) {
		r[i] = rune(s[i])
	}
	return string(r)
}

// globToRegexp translates gitignore glob syntax into a regular expression over latin1 text:
// '*' is [^/]*, '?' is [^/], a class is a set of bytes never holding '/', a '**' that is a
// whole segment is any directories ("**/" a prefix ending in '/', a final "**" anything), a
// run of stars elsewhere is one '*', '\\' escapes the next byte (a trailing one is itself), an
// unterminated class is a literal '['.
func globToRegexp(p string) string {
	var b strings.Builder
	b.WriteString(`^`)
	segStart := true
	for i := 0; i < len(p); {
		c := p[i]
		atSeg := segStart
		segStart = c == '/'
		switch c {
		case '*':
			if atSeg && strings.HasPrefix(p[i:], "**") && (i+2 == len(p) || p[i+2] == '/') {
				if i+2 == len(p) {
					b.WriteString(`(?s:.*)`)
					i += 2
				} else {
					b.WriteString(`(?s:.*/)?`)
					i += 3
					segStart = true
				}
				continue
			}
			for i < len(p) && p[i] == '*' {
				i++
			}
			b.WriteString(`[^/]*`)
		case '?':
			b.WriteString(`[^/]`)
			i++
		case '[':
			if re, n, ok := classToRegexp(p[i:]); ok {
				b.WriteString(re)
				i += n
			} else {
				b.WriteString(`\[`)
				i++
			}
		default:
			if c == '\\' && i+1 < len(p) {
				i++
			}
			fmt.Fprintf(&b, `\x{%x}`, p[i])
			i++
		}
	}
	b.WriteString(`$`)
	return b.String()
}

// classToRegexp translates the class at the head of p into a set of latin1 characters: '!'
// or '^' first negates, a ']' first is a member, a-b is a byte range (an inverted one holds
// nothing), '\\' escapes the next byte; it never matches '/'.
func classToRegexp(p string) (string, int, bool) {
	i := 1
	negate := i < len(p) && (p[i] == '!' || p[i] == '^')
	if negate {
		i++
	}
	member := func(at int) (byte, int) {
		if p[at] == '\\' && at+1 < len(p) {
			return p[at+1], 2
		}
		return p[at], 1
	}
	var ranges [][2]byte
	for first := true; ; first = false {
		if i >= len(p) {
			return "", 0, false
		}
		if p[i] == ']' && !first {
			break
		}
		lo, w := member(i)
		i += w
		hi := lo
		if i+1 < len(p) && p[i] == '-' && p[i+1] != ']' {
			hi, w = member(i + 1)
			i += 1 + w
		}
		if lo <= hi {
			ranges = append(ranges, [2]byte{lo, hi})
		}
	}
	var b strings.Builder
	if negate {
		b.WriteString(`[^/`)
		for _, r := range ranges {
			fmt.Fprintf(&b, `\x{%x}-\x{%x}`, r[0], r[1])
		}
		b.WriteString(`]`)
		return b.String(), i + 1, true
	}
	// A member class: its ranges minus '/', or a class of nothing.
	b.WriteString(`(?:[^\x00-\x{10FFFF}]`)
	for _, r := range ranges {
		for _, part := range [][2]int{{int(r[0]), min(int(r[1]), '/'-1)}, {max(int(r[0]), '/'+1), int(r[1])}} {
			if part[0] <= part[1] {
				fmt.Fprintf(&b, `|[\x{%x}-\x{%x}]`, part[0], part[1])
			}
		}
	}
	b.WriteString(`)`)
	return b.String(), i + 1, true
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
// Ignore-mode cases (flag 64) add ignore files with random gitignore lines:
// the files reached must be those refIncluded computes (issue 11; each
// ignore file's verdicts on their own, the glob matcher's agreement with a
// reference and its bounded work are checked in package walk, which owns
// the ignore rules: FuzzIgnoreFileAgreesWithReference and the glob tests).
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
	// Ignore mode (flag 64, 128 for a root .git). Names: 0 a.txt, 1 B.txt, 2 sub/c.txt,
	// 3 sub/deep/d.txt, 4 .hidden.txt, 5 sub/.h/e.txt, 8 .gitignore, 9 .ignore,
	// 10 sub/.gitignore, 11 sub/.ignore, 12 sub/deep/.gitignore, 13 .git/info/exclude,
	// 14 sub/.git, 15 sub/aaa...a (41 bytes). Glob tokens: 0 '!', 1 '/', 2 '*', 3 '**',
	// 5 a, 7 .txt, 9 sub, 10 deep, 15 space, 19 .h, 20 c, 22 *a*a*a*a*a*a*a*a*a*a*b.
	txt := []int{0, 16}
	f.Add(ignoreSeed(128, []int{0}, map[int][]int{15: txt, 0: txt}, map[int][][]int{8: {{22}}}))
	f.Add(ignoreSeed(128, []int{0}, map[int][]int{0: txt, 1: txt, 2: txt, 3: txt},
		map[int][][]int{8: {{2, 7}}, 10: {{0, 20, 7}}, 9: {{0, 5, 7}}}))
	f.Add(ignoreSeed(128, []int{0}, map[int][]int{2: txt, 3: txt, 5: txt},
		map[int][][]int{8: {{1, 9, 1, 10}, {10, 1}, {0, 19}}}))
	f.Add(ignoreSeed(0, []int{0}, map[int][]int{0: txt, 1: txt, 2: txt},
		map[int][][]int{8: {{2}}, 9: {{2, 7}, {0, 5, 7}}}))
	f.Add(ignoreSeed(0, []int{0}, map[int][]int{14: txt, 2: txt, 3: txt},
		map[int][][]int{8: {{3}}, 10: {{20, 7}}}))
	f.Add(ignoreSeed(128, []int{0}, map[int][]int{0: txt}, map[int][][]int{8: {{15, 15}, {15}}}))
	f.Add(ignoreSeed(128, []int{0}, map[int][]int{2: txt, 3: txt, 0: txt},
		map[int][][]int{8: {{3, 1, 10}, {9, 1, 3}}, 13: {{5, 2}}}))
	f.Add(ignoreSeed(4|128, []int{0}, map[int][]int{0: txt, 4: txt}, map[int][][]int{8: {{5, 7}, {0, 19}}, 9: {{5}}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := decodeGrepCase(data)
		root := t.TempDir()
		if c.gitDir {
			require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
		}
		for name, body := range c.files {
			p := filepath.Join(root, filepath.FromSlash(name))
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, body, 0o644))
		}
		c.spec.Root = root
		want, searched, skipped, wantErr := referenceSearch(c)

		var mu sync.Mutex
		var got []refMatch
		var firstSpans [][2][2]uint32 // each match's first span and its MatchStart/MatchEnd
		st, err := grep.Search(context.Background(), c.spec, func(ms []grep.Match) error {
			mu.Lock()
			defer mu.Unlock()
			for _, m := range ms {
				var first [2]uint32
				if len(m.Spans) > 0 {
					first = m.Spans[0]
				}
				firstSpans = append(firstSpans, [2][2]uint32{first, {m.MatchStart, m.MatchEnd}})
				got = append(got, refMatch{File: m.File, Line: m.Line, Text: m.Text, Spans: m.Spans})
			}
			return nil
		})
		for i, m := range got {
			require.NotEmpty(t, m.Spans, "%+v", m)
			require.Equal(t, firstSpans[i][0], firstSpans[i][1], "first span is MatchStart/MatchEnd")
		}
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
