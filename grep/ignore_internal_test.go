package grep

import (
	"testing"

	"github.com/stretchr/testify/require"
)

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
