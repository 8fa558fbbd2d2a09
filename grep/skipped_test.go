//go:build unix

package grep_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/pmacs-go/pmacs-go/walk"
)

// A search says what it left out, by reason (issue 14: the live grep must
// say what it skipped): Stats.Skipped at the end, and Spec.Skipped while it
// runs, hold the walk's counts (ignored, hidden, SkipDirs names, symlinks)
// and the files it listed but did not search (binary, oversize).
func TestSearchCountsWhatItSkipped(t *testing.T) {
	root := makeTree(t, map[string]string{
		".gitignore":          "*.log\nout/\n",
		"keep.txt":            "needle\n",
		"a.log":               "needle\n",
		"out/x.txt":           "needle\n",
		".hidden":             "needle\n",
		".cfg/z.txt":          "needle\n",
		"node_modules/m.txt":  "needle\n",
		"bin.dat":             "needle\x00\n",
		"big.txt":             strings.Repeat("needle\n", 2000),
		"deep/also/keep2.txt": "needle\n",
	})
	require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
	require.NoError(t, os.Symlink("keep.txt", filepath.Join(root, "link.txt")))
	var live grep.Skipped
	ms, st := collect(t, grep.Spec{Root: root, Pattern: "needle", MaxFileBytes: 1024, Skipped: &live})
	require.Equal(t, []string{"deep/also/keep2.txt", "keep.txt"}, files(ms))
	want := grep.SkipCounts{
		SkipCounts: walk.SkipCounts{
			IgnoredFiles: 1, IgnoredDirs: 1, // a.log, out
			HiddenFiles: 2, HiddenDirs: 2, // .gitignore, .hidden; .git, .cfg
			NamedDirs: 1, // node_modules, a default SkipDirs name
			Other:     1, // link.txt
		},
		BinaryFiles: 1, OversizeFiles: 1,
	}
	require.Equal(t, want, st.Skipped)
	require.Equal(t, want, live.Load())
	require.Equal(t, int64(2), st.FilesSkipped)
	require.Equal(t, int64(10), st.Skipped.Total())
}

// unreadableChildEnv tells a re-executed test binary which tree to search,
// unprivileged.
const unreadableChildEnv = "GREP_UNREADABLE_CHILD_TREE"

// A root the user cannot read fails the search with ErrBadRoot and the
// permission error, as rg reports it, instead of a search that finds
// nothing; an unreadable file or directory below the root is counted and
// the search goes on. Root reads everything, so as root the cases run in a
// copy of the test binary as nobody.
func TestSearchReportsUnreadableRootAndCountsUnreadableEntries(t *testing.T) {
	if tree := os.Getenv(unreadableChildEnv); tree != "" {
		runUnreadableCases(t, tree)
		return
	}
	base, err := os.MkdirTemp("", "grep-unreadable-")
	require.NoError(t, err)
	tree := filepath.Join(base, "tree")
	t.Cleanup(func() {
		for _, d := range []string{"sealed", "open/shut", "open"} {
			_ = os.Chmod(filepath.Join(tree, d), 0o755)
		}
		require.NoError(t, os.RemoveAll(base))
	})
	require.NoError(t, os.Chmod(base, 0o755))
	testenv.WriteTree(t, tree, map[string]string{"sealed/f.txt": "needle\n", "open/f.txt": "needle\n", "open/secret.txt": "needle\n", "open/shut/g.txt": "needle\n"})
	require.NoError(t, os.Chmod(filepath.Join(tree, "open/secret.txt"), 0))
	require.NoError(t, os.Chmod(filepath.Join(tree, "open/shut"), 0))
	require.NoError(t, os.Chmod(filepath.Join(tree, "sealed"), 0o311)) // searchable, not listable
	if os.Geteuid() != 0 {
		runUnreadableCases(t, tree)
		return
	}
	out, err := testenv.RunTestAsNobody(base, "TestSearchReportsUnreadableRootAndCountsUnreadableEntries", unreadableChildEnv+"="+tree)
	require.NoError(t, err, "unprivileged run:\n%s", out)
}

func runUnreadableCases(t *testing.T, tree string) {
	_, _, err := search(grep.Spec{Root: filepath.Join(tree, "sealed"), Pattern: "needle"})
	require.ErrorIs(t, err, grep.ErrBadRoot)
	require.ErrorIs(t, err, fs.ErrPermission)
	require.Equal(t, 1, strings.Count(err.Error(), "sealed"), "the root is named once: %v", err)

	ms, st, err := search(grep.Spec{Root: filepath.Join(tree, "open"), Pattern: "needle"})
	require.NoError(t, err)
	require.Equal(t, []string{"f.txt"}, files(ms))
	require.Equal(t, int64(1), st.Skipped.UnreadableFiles)
	require.Equal(t, int64(1), st.Skipped.UnreadableDirs)
}

// search runs a search and gathers its matches, sorted by file, with its
// error.
func search(spec grep.Spec) ([]grep.Match, grep.Stats, error) {
	var mu sync.Mutex
	var ms []grep.Match
	st, err := grep.Search(context.Background(), spec, func(b []grep.Match) error {
		mu.Lock()
		defer mu.Unlock()
		ms = append(ms, b...)
		return nil
	})
	sort.Slice(ms, func(i, j int) bool { return ms[i].File < ms[j].File })
	return ms, st, err
}
