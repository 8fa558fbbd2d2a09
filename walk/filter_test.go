package walk_test

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/walk"
)

// filterList lists root's files by following it entry by entry through
// Filter, as a watcher does.
func filterList(t *testing.T, f *walk.Filter) []string {
	t.Helper()
	ents, err := os.ReadDir(f.Path())
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		isDir := e.IsDir()
		if !isDir && !e.Type().IsRegular() {
			continue
		}
		if f.Skip(e.Name(), isDir) {
			continue
		}
		if isDir {
			out = append(out, filterList(t, f.Child(e.Name()))...)
			continue
		}
		rel := e.Name()
		if f.Rel() != "" {
			rel = f.Rel() + "/" + e.Name()
		}
		out = append(out, rel)
	}
	return out
}

// TestFilterLeavesOutWhatListLeavesOut covers Filter: following a tree with
// it (ignore files at several depths, a whitelist, hidden entries, a nested
// repository, SkipDirs) keeps exactly the files List lists.
func TestFilterLeavesOutWhatListLeavesOut(t *testing.T) {
	root := makeTree(t, map[string]string{
		".git/HEAD":               "ref\n",
		".gitignore":              "build/\n*.log\n!keep.log\nnode_modules/\n",
		"a.go":                    "",
		"x.log":                   "",
		"keep.log":                "",
		".hidden/f":               "",
		".env":                    "",
		"build/out":               "",
		"node_modules/m/index.js": "",
		"src/.gitignore":          "gen/\n/local\n",
		"src/b.go":                "",
		"src/gen/g.go":            "",
		"src/local":               "",
		"src/deep/local":          "",
		"vendor/v.go":             "",
		"sub/.git/HEAD":           "ref\n",
		"sub/build/x":             "",
		"sub/y.log":               "",
	})
	for _, opts := range []walk.Options{{}, {Hidden: true}, {NoIgnore: true}, {SkipDirs: []string{"vendor"}}} {
		want := list(t, root, opts).files
		got := filterList(t, walk.NewFilter(root, opts))
		sort.Strings(got)
		require.Equal(t, want, got, "options %+v", opts)
	}
	require.True(t, walk.NewFilter(root, walk.Options{}).Skip("node_modules", true))
	require.False(t, walk.NewFilter(filepath.Join(root, "src"), walk.Options{}).Skip("b.go", false))
}
