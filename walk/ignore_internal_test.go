package walk

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// wildmatch matches a gitignore glob against a '/'-separated path.
func wildmatch(p, t string) bool {
	g := compileGlob(p)
	return g.match(t)
}

// Gitignore pattern semantics: wildcards stay within a segment, '**' spans directories only
// as a whole segment, classes and escapes work.
func TestWildmatchFollowsGitignoreGlobRules(t *testing.T) {
	cases := []struct {
		glob, path string
		want       bool
	}{
		{"*.log", "a.log", true},
		{"*.log", "dir/a.log", false}, // '*' never crosses '/'
		{"a/*.go", "a/b.go", true},
		{"a/*.go", "a/b/c.go", false},
		{"**/foo", "foo", true},
		{"**/foo", "x/y/foo", true},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "ab/b", false},
		{"a/**", "a/x/y", true},
		{"a/**", "a", false},
		{"a**b", "axxb", true}, // not a whole segment: a plain '*'
		{"a**b", "ax/xb", false},
		{"?.txt", "a.txt", true},
		{"?.txt", "ab.txt", false},
		{"[abc].txt", "b.txt", true},
		{"[!abc].txt", "b.txt", false},
		{"[!abc].txt", "d.txt", true},
		{"[a-c]x", "bx", true},
		{"[]]x", "]x", true},
		{"\\*x", "*x", true},
		{"\\*x", "ax", false},
		{"[unterminated", "[unterminated", true},
		{"é?", "éa", true},
		// Bytes, as git and ripgrep match them: '?' and a class take one byte, a class's
		// members are the bytes of its characters (rg 13 ignores é.md for ??.md and [ü]?.md).
		{"?.md", "é.md", false},
		{"??.md", "é.md", true},
		{"[ü]?.md", "é.md", true},
		{"[é-ü].c", "é.c", false},
		{"*?.md", "é.md", true},
	}
	for _, c := range cases {
		require.Equal(t, c.want, wildmatch(c.glob, c.path), "%q vs %q", c.glob, c.path)
	}
}

// Ignore-file lines: comments, blanks, negation, anchoring, directory-only, trailing spaces,
// escapes; the last matching pattern wins.
func TestGitignoreLastMatchingPatternWins(t *testing.T) {
	g := parseGitignore([]byte("# comment\n\n*.log\n!keep.log\n/top.txt\nbuild/\ndoc/*.md\n\\#hash\ntrail  \r\nspace\\ \n"))
	check := func(path string, isDir bool, want ignoreResult) {
		t.Helper()
		require.Equal(t, want, g.match(path, isDir), "%s dir=%v", path, isDir)
	}
	check("a.log", false, ignoreIgnored)
	check("deep/x/a.log", false, ignoreIgnored)
	check("keep.log", false, ignoreWhitelist)
	check("top.txt", false, ignoreIgnored)
	check("sub/top.txt", false, ignoreNone) // anchored to the ignore file's directory
	check("build", true, ignoreIgnored)
	check("build", false, ignoreNone) // directory-only
	check("x/build", true, ignoreIgnored)
	check("doc/a.md", false, ignoreIgnored)
	check("x/doc/a.md", false, ignoreNone) // a middle slash anchors too
	check("#hash", false, ignoreIgnored)
	check("trail", false, ignoreIgnored)
	check("space ", false, ignoreIgnored)
	check("comment", false, ignoreNone)
}

// A line of nothing but spaces is a blank line; it used to index past the end of the
// stripped line and panic the search goroutine.
func TestGitignoreLineOfSpacesIsBlank(t *testing.T) {
	g := parseGitignore([]byte("   \n*.log\n \n"))
	require.NotNil(t, g)
	require.Len(t, g.patterns, 1)
	require.Equal(t, ignoreIgnored, g.match("a.log", false))
	require.Nil(t, parseGitignore([]byte("  \r\n")))
}

// commonGitignore is a typical project ignore file: extensions, directories, anchored paths,
// classes, negations and '**'.
const commonGitignore = `# build outputs
*.o
*.a
*.so
*.exe
*.test
*.out
*.log
*.tmp
*.swp
*~
.DS_Store
/bin/
/dist/
build/
node_modules/
coverage/
vendor/**/testdata/
**/generated/*.go
docs/_build/
*.py[cod]
__pycache__/
.env
.env.*
!.env.example
/config/local.yaml
tmp-*
*.min.js
`

// commonPaths are the paths a search of an ordinary tree asks about.
var commonPaths = []struct {
	rel   string
	isDir bool
}{
	{"main.go", false}, {"README.md", false}, {"go.mod", false}, {"internal", true},
	{"internal/server/handler.go", false}, {"internal/server/handler_test.go", false},
	{"cmd/app/main.go", false}, {"web/static/app.min.js", false}, {"web/static/app.js", false},
	{"pkg/generated/api.go", false}, {"scripts/tool.pyc", false}, {"scripts/tool.py", false},
	{"build", true}, {"docs/_build", true}, {"docs/index.md", false}, {".env.example", false},
	{"vendor/x/testdata", true}, {"vendor/x/y.go", false}, {"tmp-cache", true}, {"a/b/c/d/e.txt", false},
}

// Benchmark: the verdict of an ordinary ignore file on ordinary paths, the work the walk does
// for every entry.
func BenchmarkGitignoreMatchCommon(b *testing.B) {
	g := parseGitignore([]byte(commonGitignore))
	for b.Loop() {
		for _, p := range commonPaths {
			g.match(p.rel, p.isDir)
		}
	}
	b.ReportMetric(float64(len(commonPaths)), "paths/op")
}

// refWildmatch is the recursive backtracking matcher the package used before issue 11, kept
// as the reference for glob semantics, with two changes: '?' and classes match one byte, as
// in git and ripgrep (they matched one UTF-8 character, so "?.md" did not ignore "é.md" as
// git and rg do), and failed (pattern, text, segment-start) states are remembered so that the
// reference itself stays polynomial on the inputs that made the old code exponential.
func refWildmatch(p, t string) bool {
	failed := map[[3]int]bool{}
	var wm func(p, t string, segStart bool) bool
	wm = func(p, t string, segStart bool) bool {
		key := [3]int{len(p), len(t), 0}
		if segStart {
			key[2] = 1
		}
		if failed[key] {
			return false
		}
		ok := refStep(p, t, segStart, wm)
		if !ok {
			failed[key] = true
		}
		return ok
	}
	return wm(p, t, true)
}

func refStep(p, t string, segStart bool, wm func(string, string, bool) bool) bool {
	for len(p) > 0 {
		c := p[0]
		atSeg := segStart
		segStart = c == '/'
		switch c {
		case '*':
			if atSeg && strings.HasPrefix(p, "**") && (len(p) == 2 || p[2] == '/') {
				if len(p) == 2 {
					return true
				}
				rest := p[3:]
				for {
					if wm(rest, t, true) {
						return true
					}
					i := strings.IndexByte(t, '/')
					if i < 0 {
						return false
					}
					t = t[i+1:]
				}
			}
			p = strings.TrimLeft(p, "*")
			if p == "" {
				return !strings.Contains(t, "/")
			}
			for i := 0; i <= len(t); i++ {
				if wm(p, t[i:], false) {
					return true
				}
				if i < len(t) && t[i] == '/' {
					return false
				}
			}
			return false
		case '?':
			if t == "" || t[0] == '/' {
				return false
			}
			p, t = p[1:], t[1:]
		case '[':
			if t == "" || t[0] == '/' {
				return false
			}
			ok, plen, valid := refMatchClass(p, t[0])
			n := 1
			if !valid {
				if t[0] != '[' {
					return false
				}
				p, t = p[1:], t[1:]
				break
			}
			if !ok {
				return false
			}
			p, t = p[plen:], t[n:]
		case '\\':
			if len(p) >= 2 {
				p = p[1:]
			}
			if t == "" || t[0] != p[0] {
				return false
			}
			p, t = p[1:], t[1:]
		default:
			if t == "" || t[0] != c {
				return false
			}
			p, t = p[1:], t[1:]
		}
	}
	return t == ""
}

// refMatchClass is the old class matcher on bytes: whether c is in the class at the head of
// p, the class's length, and false for valid when it is unterminated.
func refMatchClass(p string, c byte) (ok bool, n int, valid bool) {
	i := 1
	negate := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		negate = true
		i++
	}
	member := func(s string) (byte, int) {
		if s[0] == '\\' && len(s) > 1 {
			return s[1], 2
		}
		return s[0], 1
	}
	first := true
	for {
		if i >= len(p) {
			return false, 0, false
		}
		if p[i] == ']' && !first {
			return ok != negate, i + 1, true
		}
		first = false
		lo, w := member(p[i:])
		i += w
		hi := lo
		if i+1 < len(p) && p[i] == '-' && p[i+1] != ']' {
			hi, w = member(p[i+1:])
			i += 1 + w
		}
		if lo <= c && c <= hi {
			ok = true
		}
	}
}

// Glob pieces and path pieces for the differential checks: stars, '**' segments, escapes,
// classes (ranges, negation, a ']' first, an escaped '/' and unterminated ones), multi-byte
// and invalid bytes.
var (
	globPieces = []string{"a", "b", "*", "**", "/", "?", "[ab]", "[!a]", "[a-c]", "[]]", "[\\/]",
		"[é-ê]", "[", "\\*", "\\/", "\\", "é", ".", "**/", "/**", "x"}
	pathPieces = []string{"a", "b", "/", "é", "ê", "\xff", "[", "]", "*", ".", "x", "ab", "\\"}
)

func decodeGlobCase(data []byte) (pattern, path string) {
	var p, t strings.Builder
	for i, b := range data {
		if i%2 == 0 {
			p.WriteString(globPieces[int(b)%len(globPieces)])
		} else {
			t.WriteString(pathPieces[int(b)%len(pathPieces)])
		}
	}
	return p.String(), t.String()
}

// Every glob built from the pieces above agrees with the reference on every path built from
// them, globs up to three pieces and paths up to two: the exhaustive small cases (the fuzz
// target goes longer).
func TestGlobAgreesWithReferenceExhaustively(t *testing.T) {
	var pats, paths []string
	var build func(pieces []string, prefix string, depth int, out *[]string)
	build = func(pieces []string, prefix string, depth int, out *[]string) {
		*out = append(*out, prefix)
		if depth == 0 {
			return
		}
		for _, pc := range pieces {
			build(pieces, prefix+pc, depth-1, out)
		}
	}
	build(globPieces, "", 3, &pats)
	build(pathPieces, "", 2, &paths)
	n := 0
	for _, p := range pats {
		if p == "" || !utf8.ValidString(p) {
			continue // parseIgnoreLine drops both
		}
		g := compileGlob(p)
		for _, path := range paths {
			if got, want := g.match(path), refWildmatch(p, path); got != want {
				t.Fatalf("glob %q on %q: got %v, reference %v", p, path, got, want)
			}
			n++
		}
	}
	t.Logf("%d (glob, path) pairs", n)
}

// FuzzGlobAgreesWithReference compares the compiled glob with the reference on longer
// combinations than the exhaustive test reaches.
func FuzzGlobAgreesWithReference(f *testing.F) {
	f.Add([]byte{2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 1, 0})
	f.Add([]byte{18, 0, 0, 2, 4, 0, 2, 1})
	f.Add([]byte{5, 3, 5, 3, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64 {
			data = data[:64]
		}
		p, path := decodeGlobCase(data)
		if p == "" || !utf8.ValidString(p) {
			return
		}
		g := compileGlob(p)
		if got, want := g.match(path), refWildmatch(p, path); got != want {
			t.Fatalf("glob %q on %q: got %v, reference %v", p, path, got, want)
		}
	})
}

// Issue 11 defect 3: the work of one match is bounded by a small polynomial in the lengths
// of the glob and the path, on the shapes that made the backtracking matcher exponential.
// A step is one token tried at one position; the bound is (pattern+1) * (path+1) per group
// and slash, far below the old matcher's C(len(path), stars) retries.
func TestGlobMatchWorkIsPolynomial(t *testing.T) {
	cases := []struct{ glob, path string }{
		{strings.Repeat("*a", 10) + "*b", strings.Repeat("a", 41)},
		{strings.Repeat("*a", 30) + "*b", strings.Repeat("a", 200)},
		{strings.Repeat("*?", 20) + "x", strings.Repeat("é", 100)},
		{strings.Repeat("*[é]", 20) + "x", strings.Repeat("é", 100)},
		{strings.Repeat("**/a*", 12) + "b", strings.Repeat("a/", 60) + "a"},
		{strings.Repeat("a*/", 8) + "**/" + strings.Repeat("*a*a/", 5) + "b", strings.Repeat("aaaa/", 40) + "c"},
		{strings.Repeat("[a-z]*", 15) + "z", strings.Repeat("ab", 80)},
	}
	for _, c := range cases {
		g := compileGlob(c.glob)
		ok, steps := g.matchSteps(c.path)
		require.Equal(t, refWildmatch(c.glob, c.path), ok, "%q on %q", c.glob, c.path)
		slashes := strings.Count(c.path, "/") + 1
		bound := 4 * (len(c.glob) + 1) * (len(c.path) + 1) * slashes
		require.LessOrEqual(t, steps, bound, "%q on %q", c.glob, c.path)
		t.Logf("%-40.40q %5d-byte path: %d steps (bound %d)", c.glob, len(c.path), steps, bound)
	}
}

// Benchmark: one match of the pathological glob against names of growing length;
// time per op grows linearly (the old matcher took 98 s at 41 bytes).
func BenchmarkGlobPathological(b *testing.B) {
	g := compileGlob(strings.Repeat("*a", 10) + "*b")
	for _, n := range []int{41, 400, 4000} {
		name := strings.Repeat("a", n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if g.match(name) {
					b.Fatal("matched")
				}
			}
		})
	}
}

// refIgnoreVerdict is the reference for one ignore file: gitignore's line rules written out
// from scratch, each line's glob matched by refWildmatch, the last matching line winning.
func refIgnoreVerdict(body, rel string, isDir bool) ignoreResult {
	lines := strings.Split(body, "\n")
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
		if refWildmatch(s, subject) {
			if negate {
				return ignoreWhitelist
			}
			return ignoreIgnored
		}
	}
	return ignoreNone
}

// Ignore-file line tokens (negation, anchoring, directory-only, '**', classes, escapes,
// comments, trailing spaces, CR, an invalid byte, the star-heavy glob of issue 11) and path
// segments for FuzzIgnoreFileAgreesWithReference.
var (
	ignoreLineTokens = []string{"!", "/", "*", "**", "?", "a", "b", ".txt", ".", "sub", "deep",
		"[ab]", "[!a]", "[a-c]", "\\", " ", "#", "\xff", "[", ".h", "c", "\r", "*a*a*a*a*a*a*a*a*a*a*b", "é"}
	ignorePathSegments = []string{"a", "b.txt", "sub", "deep", ".h", "c", "ab", "é", strings.Repeat("a", 41), "a b", "#x"}
)

// FuzzIgnoreFileAgreesWithReference checks one compiled ignore file against the reference on
// paths of up to four segments, as files and as directories (moved here with the ignore
// code from grep's fuzz target, where it checked each ignore file of a case the same way).
func FuzzIgnoreFileAgreesWithReference(f *testing.F) {
	f.Add([]byte{22, 255, 8, 0, 1}, []byte{0, 8, 1})
	f.Add([]byte{0, 5, 7, 255, 2, 7}, []byte{2, 1})
	f.Add([]byte{1, 9, 1, 10, 255, 10, 1, 255, 0, 19}, []byte{2, 3, 1})
	f.Add([]byte{15, 15, 255, 16, 5, 255, 3, 1, 10}, []byte{9, 10})
	f.Fuzz(func(t *testing.T, lineBytes, pathBytes []byte) {
		var body strings.Builder
		for i, b := range lineBytes {
			if i >= 48 {
				break
			}
			if b == 255 {
				body.WriteByte('\n')
				continue
			}
			body.WriteString(ignoreLineTokens[int(b)%len(ignoreLineTokens)])
		}
		var segs []string
		for i, b := range pathBytes {
			if i >= 4 {
				break
			}
			segs = append(segs, ignorePathSegments[int(b)%len(ignorePathSegments)])
		}
		if len(segs) == 0 {
			return
		}
		g := parseGitignore([]byte(body.String()))
		rel := strings.Join(segs, "/")
		for _, isDir := range []bool{false, true} {
			got := ignoreNone
			if g != nil {
				got = g.match(rel, isDir)
			}
			if want := refIgnoreVerdict(body.String(), rel, isDir); got != want {
				t.Fatalf("ignore file %q on %q dir=%v: got %v, reference %v", body.String(), rel, isDir, got, want)
			}
		}
	})
}
