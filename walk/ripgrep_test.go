package walk_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/pmacs-go/pmacs-go/walk"
)

func needRipgrep(t testing.TB) {
	t.Helper()
	testenv.Peer(t, testenv.Ripgrep)
}

// rgFilesArgs are the rg flags matching Options' zero value: no config file, no global
// gitignore (core.excludesFile, which the walk does not read), NUL-separated paths.
var rgFilesArgs = []string{"--no-config", "--files", "--null", "--no-ignore-global"}

// ripgrepFiles runs `rg --files` in root and returns the sorted paths it lists.
func ripgrepFiles(t testing.TB, root string, extra ...string) []string {
	t.Helper()
	cmd := exec.Command("rg", append(append([]string{}, rgFilesArgs...), extra...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "rg --files: %s", stderr.String())
	var files []string
	for _, f := range bytes.Split(out, []byte{0}) {
		if len(f) > 0 {
			files = append(files, strings.TrimPrefix(string(f), "./"))
		}
	}
	sort.Strings(files)
	return files
}

// Acceptance (real peer): on a work tree with ignore files at several depths using every
// part of the glob syntax, a nested repository, hidden entries and symlinks, List gives the
// same file set as `rg --files`, with default options, Hidden, and NoIgnore.
func TestListAgreesWithRipgrepFilesOnIgnoreFiles(t *testing.T) {
	needRipgrep(t)
	ignores := map[string]string{
		".gitignore": "*.log\n!keep.log\n/build\nout/\n**/gen/*.go\ndocs/**/*.tmp\n*a*a*a*a*a*a*a*a*a*a*b\n" +
			"[Tt]emp*\n*.py[co]\n\\#lit\nsub/*.x\nfoo?bar\ntrail   \nspace\\ \n[!a-m]*.z\nlib/**\n# comment\n*.[0-9]\n!.keepme\n",
		".ignore":             "*.ign\n!special.ign\n",
		"sub/.gitignore":      "!*.log\nlocal*\n/anchored.txt\n",
		"q/.ignore":           "?.md\nm/**/n\n[ü]?.c\n",
		"nested/.gitignore":   "*.own\n",
		"nested/deep/.ignore": "!*.ign\n",
		"nested/.git/HEAD":    "ref: refs/heads/main\n",
		".git/info/exclude":   "*.excl\n",
		"sub/deep/.gitignore": "*.txt\n!keep.txt\n",
	}
	names := []string{"a.log", "keep.log", "x/b.log", "build/f.txt", "sub/build/f.txt", "out/f.txt",
		"x/out/f.txt", "gen/a.go", "x/gen/b.go", "x/gen/y/c.go", "docs/a.tmp", "docs/x/y/b.tmp", "docs.tmp",
		strings.Repeat("a", 40) + "b", strings.Repeat("a", 41), strings.Repeat("a", 39) + "xb",
		"Temp1.txt", "temp2.txt", "xtemp.txt", "m.pyc", "m.pyo", "m.py", "#lit", "lit", "sub/q.x", "sub/deep/q.x",
		"fooXbar", "foo/bar", "a.ign", "special.ign", "sub/c.log", "sub/local1.txt", "sub/x/local2.txt",
		"sub/anchored.txt", "sub/deep/anchored.txt", "trail", "space ", "space", "n.z", "b.z", "lib/x.txt",
		"x/lib/y.txt", "lib2", "v.1", "v.10", "é.log", "é.txt",
		"q/é.md", "q/ab.md", "q/a.md", "q/m/n", "q/m/x/n", "q/m/x/y/n", "q/mm/n", "q/x/m/n",
		"q/é.c", "q/ü.c", "q/x.c", "q/éé.c", "a.excl", "sub/deep/keep.txt", "sub/deep/drop.txt",
		"nested/a.log", "nested/b.own", "nested/c.ign", "nested/deep/d.ign", "nested/deep/e.own", "nested/f.txt",
		".hidden", ".hdir/x.txt", ".keepme", "sub/.h/y.txt"}
	tree := map[string]string{}
	for name, body := range ignores {
		tree[name] = body
	}
	for _, n := range names {
		_, dup := tree[n]
		require.False(t, dup, "duplicate %q", n)
		tree[n] = "x\n"
	}
	root := makeTree(t, tree)
	require.NoError(t, os.Symlink("sub", filepath.Join(root, "linkdir")))
	require.NoError(t, os.Symlink("lit", filepath.Join(root, "link.txt")))

	for _, c := range []struct {
		name  string
		opts  walk.Options
		flags []string
	}{
		{"default", walk.Options{}, nil},
		{"hidden", walk.Options{Hidden: true}, []string{"--hidden"}},
		{"no-ignore", walk.Options{NoIgnore: true}, []string{"--no-ignore"}},
	} {
		theirs := ripgrepFiles(t, root, c.flags...)
		ours := list(t, root, c.opts).files
		require.NotEmpty(t, theirs, c.name)
		require.Equal(t, theirs, ours, c.name)
	}
}

// Acceptance (real peer): on the Go source tree, List gives the same file set as
// `rg --files`.
func TestListAgreesWithRipgrepFilesOnGoSource(t *testing.T) {
	needRipgrep(t)
	root := testenv.GoSrcOrSkip(t)
	theirs := ripgrepFiles(t, root)
	ours := list(t, root, walk.Options{}).files
	require.Greater(t, len(theirs), 5000)
	require.Equal(t, theirs, ours)
}
