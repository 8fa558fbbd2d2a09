package grep_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/grep"
)

// .ignore files count everywhere, .gitignore only inside a git work tree; NoIgnore turns both
// off (ripgrep's rules).
func TestSearchHonoursIgnoreFilesLikeRipgrep(t *testing.T) {
	tree := map[string]string{
		".ignore":        "*.tmp\n",
		".gitignore":     "*.gen\n",
		"a.tmp":          "needle\n",
		"a.gen":          "needle\n",
		"a.txt":          "needle\n",
		"sub/.ignore":    "!keep.tmp\nlocal/\n",
		"sub/keep.tmp":   "needle\n",
		"sub/drop.tmp":   "needle\n",
		"sub/local/x.go": "needle\n",
	}
	root := makeTree(t, tree)
	ms, _ := collect(t, grep.Spec{Root: root, Pattern: "needle"})
	require.Equal(t, []string{"a.gen", "a.txt", "sub/keep.tmp"}, files(ms), "no .git: .gitignore is not honoured")

	ms, _ = collect(t, grep.Spec{Root: root, Pattern: "needle", NoIgnore: true})
	require.Equal(t, []string{"a.gen", "a.tmp", "a.txt", "sub/drop.tmp", "sub/keep.tmp", "sub/local/x.go"}, files(ms))

	require.NoError(t, os.MkdirAll(filepath.Join(root, ".git", "info"), 0o755))
	ms, _ = collect(t, grep.Spec{Root: root, Pattern: "needle"})
	require.Equal(t, []string{"a.txt", "sub/keep.tmp"}, files(ms), "inside a work tree .gitignore counts")
}

// In a work tree: .git/info/exclude counts, a deeper .gitignore overrides a shallower one,
// .ignore beats .gitignore, a whitelist re-includes a hidden file, and the ignore files of the
// root's ancestors apply (the repository root is above the search root).
func TestSearchAppliesGitignorePrecedenceAndAncestors(t *testing.T) {
	repo := makeTree(t, map[string]string{
		".git/info/exclude":    "*.excl\n",
		".gitignore":           "*.out\n/proj/rootonly.txt\n!.keep\n",
		"proj/a.out":           "needle\n",
		"proj/a.excl":          "needle\n",
		"proj/rootonly.txt":    "needle\n",
		"proj/sub/.gitignore":  "!special.out\n",
		"proj/sub/special.out": "needle\n",
		"proj/sub/other.out":   "needle\n",
		"proj/.ignore":         "!forced.out\n",
		"proj/forced.out":      "needle\n",
		"proj/.keep":           "needle\n",
		"proj/plain.txt":       "needle\n",
	})
	ms, _ := collect(t, grep.Spec{Root: filepath.Join(repo, "proj"), Pattern: "needle"})
	require.Equal(t, []string{".keep", "forced.out", "plain.txt", "sub/special.out"}, files(ms))
}

// A linked work tree or submodule has a .git file rather than a directory; it still makes a
// work tree.
func TestSearchTreatsGitFileAsWorkTree(t *testing.T) {
	root := makeTree(t, map[string]string{
		".git":       "gitdir: ../elsewhere\n",
		".gitignore": "*.gen\n",
		"a.gen":      "needle\n",
		"a.txt":      "needle\n",
	})
	ms, _ := collect(t, grep.Spec{Root: root, Pattern: "needle"})
	require.Equal(t, []string{"a.txt"}, files(ms))
}

// Issue 11 defect 3: a glob with many stars against a name that almost matches made the
// backtracking matcher exponential (98 s for three files) and cancel could not interrupt it.
// Matching is now polynomial: the search ends at once. The bound is far above the expected
// time (microseconds) and far below the old one, so load cannot flip the outcome.
func TestSearchWithPathologicalIgnoreGlobEndsQuickly(t *testing.T) {
	tree := map[string]string{".gitignore": "*a*a*a*a*a*a*a*a*a*a*b\n"}
	for _, tail := range []string{"x", "yz", "xyz"} {
		name := strings.Repeat("a", 41-len(tail)) + tail
		require.Len(t, name, 41)
		tree[name] = "needle\n"
	}
	root := makeTree(t, tree)
	require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
	start := time.Now()
	ms, _ := collect(t, grep.Spec{Root: root, Pattern: "needle"})
	elapsed := time.Since(start)
	require.Len(t, files(ms), 3, "no name ends in b: nothing is ignored")
	require.Less(t, elapsed, 2*time.Second)
}
