package lsp

import (
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// LSP glob syntax (3.17): *, **, ?, {a,b} (nested), [abc], [a-z], [!a],
// matched against whole paths; a class or a * never crosses a '/'.
func TestGlobMatchesTheProtocolSyntax(t *testing.T) {
	for _, tc := range []struct {
		glob string
		yes  []string
		no   []string
	}{
		{"**/*.go", []string{"/src/m/a.go", "a.go", "/a.go", "x/y/z.go"}, []string{"/src/m/a.gox", "/src/m/a.go/b", "/src/m/a_go"}},
		{"*.go", []string{"a.go", ".go"}, []string{"x/a.go", "/a.go"}},
		{"**/*.{go,mod,sum}", []string{"/m/go.mod", "/m/go.sum", "/m/x.go"}, []string{"/m/go.work", "/m/x.gomod"}},
		{"**/{go.mod,go.work}", []string{"/m/go.mod", "go.work"}, []string{"/m/ago.mod"}},
		{"src/**", []string{"src/a", "src/a/b/c"}, []string{"srcx/a", "lib/src/a"}},
		{"**", []string{"", "a", "/a/b/c"}, nil},
		{"a/**/b", []string{"a/b", "a/x/b", "a/x/y/b"}, []string{"a/xb", "ab"}},
		{"a**b", []string{"ab", "axxb"}, []string{"a/b", "ax/yb"}},
		{"file?.txt", []string{"file1.txt", "fileA.txt"}, []string{"file.txt", "file12.txt", "file/.txt"}},
		{"[abc].txt", []string{"a.txt", "c.txt"}, []string{"d.txt", "ab.txt"}},
		{"[a-c]x", []string{"bx"}, []string{"dx", "/x"}},
		{"[!a].txt", []string{"b.txt", "..txt"}, []string{"a.txt", "/.txt"}},
		{"[+-0]", []string{"+", ",", "-", ".", "0"}, []string{"/"}},
		{"[]x]", []string{"]", "x"}, []string{"y"}},
		{"[!]]", []string{"x"}, []string{"]", "/"}},
		{"[-a]", []string{"-", "a"}, []string{"b"}},
		{"{a,{b,c}d}", []string{"a", "bd", "cd"}, []string{"b", "ad"}},
		{"{**/*.ts,*.js}", []string{"x/y.ts", "y.js"}, []string{"x/y.js"}},
		{"a,b}", []string{"a,b}"}, []string{"a"}},
		{"a.(b)+$^|c", []string{"a.(b)+$^|c"}, []string{"ax(b)+$^|c", "a.bb"}},
		{"my file.go", []string{"my file.go"}, []string{"my_file.go"}},
		{"**/é?.go", []string{"/x/éa.go", "é€.go"}, []string{"/x/éab.go"}},
	} {
		g, err := CompileGlob(tc.glob)
		require.NoError(t, err, tc.glob)
		require.Equal(t, tc.glob, g.String())
		for _, p := range tc.yes {
			require.True(t, g.Match(p), "%q matches %q", tc.glob, p)
		}
		for _, p := range tc.no {
			require.False(t, g.Match(p), "%q does not match %q", tc.glob, p)
		}
	}
}

// A glob that cannot mean anything is an error naming what is wrong, never
// a pattern that silently matches nothing.
func TestGlobErrorsSayWhatIsWrong(t *testing.T) {
	for glob, want := range map[string]string{
		"":                        "empty",
		"{a,b":                    "{ that is not closed",
		"a[bc":                    "[ that is not closed",
		"[z-a]":                   "runs backwards",
		strings.Repeat("{", 40):   "over 32 deep",
		strings.Repeat("x", 5000): "over 4096 bytes",
	} {
		_, err := CompileGlob(glob)
		require.ErrorContains(t, err, want, "%.20q", glob)
	}
}

// expandBraces lists the patterns a brace pattern stands for (nil when
// there are too many or the braces do not pair).
func expandBraces(p string) []string {
	open := strings.IndexByte(p, '{')
	if open < 0 {
		return []string{p}
	}
	depth, alts, start := 0, []string(nil), open+1
	for i := open; i < len(p); i++ {
		switch p[i] {
		case '{':
			depth++
		case ',':
			if depth == 1 {
				alts = append(alts, p[start:i])
				start = i + 1
			}
		case '}':
			depth--
			if depth == 0 {
				alts = append(alts, p[start:i])
				var out []string
				for _, a := range alts {
					for _, e := range expandBraces(p[:open] + a + p[i+1:]) {
						out = append(out, e)
						if len(out) > 256 {
							return nil
						}
					}
				}
				return out
			}
		}
	}
	return nil
}

// FuzzGlob: compiling any pattern and matching any path never panics; a
// pattern without '**' matches as path.Match does (its '^' spelling of a
// negated class, braces expanded), wherever both accept the pattern.
func FuzzGlob(f *testing.F) {
	for _, s := range [][2]string{{"**/*.go", "/a/b.go"}, {"*.{go,mod}", "go.mod"}, {"[!a]?", "bc"},
		{"a/**/b", "a/x/b"}, {"[a-", "a"}, {"{a,{b,c}}", "c"}, {"[]]x", "]x"}, {"[+-0]", "/"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, glob, p string) {
		g, err := CompileGlob(glob)
		if err != nil {
			return
		}
		got := g.Match(p)
		if strings.Contains(glob, "**") || strings.ContainsAny(glob, `\^`) ||
			(strings.Contains(glob, "[") && strings.ContainsAny(glob, "{},")) {
			return
		}
		alts := expandBraces(glob)
		if alts == nil {
			return
		}
		want := false
		for _, a := range alts {
			ok, err := path.Match(strings.ReplaceAll(a, "[!", "[^"), p)
			if err != nil {
				return
			}
			// path.Match lets a class match '/'; a glob's class never does.
			if ok && strings.Contains(a, "[") && strings.Contains(p, "/") {
				return
			}
			want = want || ok
		}
		if got != want {
			t.Fatalf("CompileGlob(%q).Match(%q) = %v, path.Match says %v", glob, p, got, want)
		}
	})
}
