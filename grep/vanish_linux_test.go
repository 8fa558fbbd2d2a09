package grep_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/grep"
)

// Files listed by the walk that change before they are read: one removed, one replaced by a
// directory, one by a symlink, one by a fifo, one emptied. Each is counted as unreadable or
// searched as it now is; none panics, blocks or stops the search, and the files left alone
// are still found. Covers opening a file relative to its directory's descriptor, which is
// Linux's (elsewhere a file is opened by its path, and a fifo swapped in would block the open).
func TestSearchCopesWithFilesChangedBetweenListingAndReading(t *testing.T) {
	names := []string{"a.txt", "b.txt", "c.txt", "d.txt", "e.txt", "f.txt", "g.txt"}
	tree := map[string]string{}
	for _, n := range names {
		tree["dir/"+n] = "a needle here\n"
	}
	root := makeTree(t, tree)
	dir := filepath.Join(root, "dir")
	var first string
	remove := grep.SetFileHookForTest(func(rel string) {
		if first != "" {
			return
		}
		first = strings.TrimPrefix(rel, "dir/")
		others := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == first })
		path := func(i int) string { return filepath.Join(dir, others[i]) }
		for i := range 4 {
			require.NoError(t, os.Remove(path(i)))
		}
		require.NoError(t, os.Mkdir(path(1), 0o755))
		require.NoError(t, os.Symlink(filepath.Join(dir, first), path(2)))
		require.NoError(t, syscall.Mkfifo(path(3), 0o644))
		require.NoError(t, os.WriteFile(path(4), nil, 0o644))
	})
	defer remove()
	ms, st := collect(t, grep.Spec{Root: root, Pattern: "needle", Fanout: 1})
	require.Len(t, ms, 2, "the first file and the one left alone")
	require.Contains(t, files(ms), "dir/"+first)
	require.Equal(t, int64(3), st.Skipped.UnreadableFiles, "removed, now a directory, now a symlink")
	require.Equal(t, st.FilesSkipped, st.Skipped.UnreadableFiles)
	require.Equal(t, int64(len(names)-3), st.FilesSearched, "the fifo and the emptied file are searched as they are")
}
