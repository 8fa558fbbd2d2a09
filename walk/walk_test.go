package walk_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/pmacs-go/pmacs-go/walk"
)

// makeTree writes files (path -> content, '/'-separated) under a fresh directory.
func makeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	testenv.WriteTree(t, root, files)
	return root
}

// listing is what List reported, gathered.
type listing struct {
	files  []string // sorted
	dirs   map[string]walk.DirInfo
	chunks int
}

func list(t *testing.T, root string, opts walk.Options) listing {
	t.Helper()
	l := listing{dirs: map[string]walk.DirInfo{}}
	inEmit := atomic.Int32{}
	err := walk.List(context.Background(), root, opts, func(c walk.Chunk) error {
		if inEmit.Add(1) != 1 {
			return errors.New("two emit calls overlap")
		}
		defer inEmit.Add(-1)
		l.chunks++
		l.files = append(l.files, c.Files...)
		for _, d := range c.Dirs {
			if _, dup := l.dirs[d.Rel]; dup {
				return fmt.Errorf("directory %q reported twice", d.Rel)
			}
			l.dirs[d.Rel] = d
		}
		return nil
	})
	require.NoError(t, err)
	sort.Strings(l.files)
	return l
}

// Ignore files at three depths: .ignore everywhere, .gitignore inside the work tree, a deeper
// file overriding a shallower one, a whitelist, an anchored line, a directory-only line, and
// .git/info/exclude.
func TestListHonoursIgnoreFilesAtSeveralDepths(t *testing.T) {
	root := makeTree(t, map[string]string{
		".git/info/exclude":        "*.excl\n",
		".gitignore":               "*.log\n/top.txt\nbuild/\n",
		".ignore":                  "*.tmp\n",
		"top.txt":                  "",
		"a.log":                    "",
		"a.excl":                   "",
		"a.txt":                    "",
		"build/x.txt":              "",
		"sub/top.txt":              "",
		"sub/build":                "", // a file: the directory-only line spares it
		"sub/.gitignore":           "!keep.log\n",
		"sub/keep.log":             "",
		"sub/drop.log":             "",
		"sub/deep/.ignore":         "!*.tmp\nlocal/\n",
		"sub/deep/x.tmp":           "",
		"sub/deep/y.log":           "",
		"sub/deep/local/z.txt":     "",
		"sub/deep/more/.gitignore": "y.txt\n",
		"sub/deep/more/y.txt":      "",
		"sub/deep/more/w.txt":      "",
		"q.tmp":                    "",
	})
	got := list(t, root, walk.Options{})
	require.Equal(t, []string{"a.txt", "sub/build", "sub/deep/more/w.txt", "sub/deep/x.tmp", "sub/keep.log", "sub/top.txt"}, got.files)

	all := list(t, root, walk.Options{NoIgnore: true})
	require.Len(t, all.files, 15, "NoIgnore lists every non-hidden file: %v", all.files)
}

// Hidden files and directories are left out unless Hidden; a whitelist line brings one back.
func TestListHiddenOption(t *testing.T) {
	root := makeTree(t, map[string]string{
		".hidden.txt":     "",
		".hdir/x.txt":     "",
		"v.txt":           "",
		".ignore":         "!.back\n",
		".back":           "",
		"sub/.inner/y.go": "",
	})
	require.Equal(t, []string{".back", "v.txt"}, list(t, root, walk.Options{}).files)
	require.Equal(t, []string{".back", ".hdir/x.txt", ".hidden.txt", ".ignore", "sub/.inner/y.go", "v.txt"},
		list(t, root, walk.Options{Hidden: true}).files)
}

// A nested repository starts afresh: the outer .gitignore does not reach into it, its own
// .gitignore applies inside it only, and an outer .ignore still applies.
func TestListNestedRepositoryStartsAfresh(t *testing.T) {
	root := makeTree(t, map[string]string{
		".gitignore":       "*.gen\n",
		".ignore":          "*.ign\n",
		"a.gen":            "",
		"a.txt":            "",
		"inner/.git/HEAD":  "",
		"inner/.gitignore": "*.own\n",
		"inner/b.gen":      "",
		"inner/b.own":      "",
		"inner/b.ign":      "",
		"inner/b.txt":      "",
		"other/c.own":      "",
		"sub/.git":         "gitdir: ../elsewhere\n", // a linked work tree's .git file
		"sub/.gitignore":   "*.sub\n",
		"sub/d.sub":        "",
		"sub/d.gen":        "",
	})
	require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
	got := list(t, root, walk.Options{})
	require.Equal(t, []string{"a.txt", "inner/b.gen", "inner/b.txt", "other/c.own", "sub/d.gen"}, got.files)
}

// Symlinks to files and to directories are neither listed nor followed, so a link cycle
// ends too.
func TestListDoesNotFollowSymlinks(t *testing.T) {
	root := makeTree(t, map[string]string{"real/a.txt": "", "b.txt": ""})
	require.NoError(t, os.Symlink("real", filepath.Join(root, "linkdir")))
	require.NoError(t, os.Symlink("b.txt", filepath.Join(root, "link.txt")))
	require.NoError(t, os.Symlink(".", filepath.Join(root, "real", "loop")))
	got := list(t, root, walk.Options{})
	require.Equal(t, []string{"b.txt", "real/a.txt"}, got.files)
	require.NotContains(t, got.dirs, "linkdir")
}

// SkipDirs names directories never entered, at any depth.
func TestListSkipDirsOption(t *testing.T) {
	root := makeTree(t, map[string]string{"a/node_modules/x.js": "", "node_modules/y.js": "", "a/z.js": ""})
	require.Equal(t, []string{"a/z.js"}, list(t, root, walk.Options{SkipDirs: []string{"node_modules"}}).files)
	require.Len(t, list(t, root, walk.Options{}).files, 3, "nil SkipDirs skips none")
}

// Every directory reached is reported once, with the modification time a stat gives, and a
// change in it shows in the next listing's time (what a cache of the listing relies on).
func TestListReportsEveryDirectoryWithItsModTime(t *testing.T) {
	root := makeTree(t, map[string]string{"a/b/c.txt": "", "a/d.txt": "", "e/f.txt": ""})
	require.NoError(t, os.Mkdir(filepath.Join(root, "empty"), 0o755))
	got := list(t, root, walk.Options{})
	require.ElementsMatch(t, []string{"", "a", "a/b", "e", "empty"}, slices.Collect(maps.Keys(got.dirs)))
	for rel, d := range got.dirs {
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		require.NoError(t, err)
		require.NoError(t, d.Err)
		require.True(t, fi.ModTime().Equal(d.ModTime), "%q: %v vs %v", rel, fi.ModTime(), d.ModTime)
	}
	old := got.dirs["empty"].ModTime
	require.NoError(t, os.Chtimes(filepath.Join(root, "empty"), old, old.Add(-3600e9)))
	require.False(t, list(t, root, walk.Options{}).dirs["empty"].ModTime.Equal(old))
}

// An unreadable directory is reported with its error and skipped; the rest of the tree is
// still listed. The directory is removed after its parent was read and before it is read
// itself, which fails for any user, root included; without root a mode-000 directory is
// checked too.
func TestListReportsAnUnreadableDirectoryAndGoesOn(t *testing.T) {
	root := makeTree(t, map[string]string{"a/x.txt": "", "b/y.txt": ""})
	require.NoError(t, os.Mkdir(filepath.Join(root, "gone"), 0o755))
	var mu sync.Mutex
	var files []string
	var failed []*walk.Dir
	err := walk.Walk(context.Background(), root, walk.Options{Fanout: 2}, func(_ int, d *walk.Dir, names []string) error {
		mu.Lock()
		defer mu.Unlock()
		if names == nil && d.Rel() == "" {
			return os.Remove(filepath.Join(root, "gone"))
		}
		if names == nil && d.Err() != nil {
			failed = append(failed, d)
		}
		for _, n := range names {
			files = append(files, d.Join(n))
		}
		return nil
	})
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"a/x.txt", "b/y.txt"}, files)
	require.Len(t, failed, 1)
	require.Equal(t, "gone", failed[0].Rel())
	require.ErrorIs(t, failed[0].Err(), fs.ErrNotExist)
	var pe *fs.PathError
	require.ErrorAs(t, failed[0].Err(), &pe)
	require.True(t, failed[0].ModTime().IsZero())

	if os.Geteuid() == 0 {
		return // root reads a mode-000 directory
	}
	locked := filepath.Join(root, "b")
	require.NoError(t, os.Chmod(locked, 0))
	t.Cleanup(func() { _ = os.Chmod(locked, 0o755) })
	got := list(t, root, walk.Options{})
	require.Equal(t, []string{"a/x.txt"}, got.files)
	require.ErrorIs(t, got.dirs["b"].Err, fs.ErrPermission)
}

// manyFiles makes n files spread over directories of 100.
func manyFiles(t *testing.T, n int) string {
	t.Helper()
	root := t.TempDir()
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("d%03d", i/100))
		if i%100 == 0 {
			require.NoError(t, os.Mkdir(dir, 0o755))
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), nil, 0o644))
	}
	return root
}

// The list streams: a large tree arrives in many bounded chunks, not in one at the end.
func TestListStreamsBoundedChunks(t *testing.T) {
	root := manyFiles(t, 3000)
	var sizes []int
	err := walk.List(context.Background(), root, walk.Options{Fanout: 1}, func(c walk.Chunk) error {
		sizes = append(sizes, len(c.Files)+len(c.Dirs))
		return nil
	})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(sizes), 5, "3031 entries in chunks of about 512: %v", sizes)
	total := 0
	for _, n := range sizes {
		require.LessOrEqual(t, n, 512+8, "a chunk holds at most one batch past the chunk size")
		total += n
	}
	require.Equal(t, 3000+31, total)
}

// Cancelling mid-walk stops it: List returns the context's error, emit is not called after
// the cancel (with one goroutine, deterministically), and every goroutine has returned
// (goleak checks at the end).
func TestListCancelMidWalk(t *testing.T) {
	root := manyFiles(t, 3000)
	for _, fanout := range []int{1, 2} {
		ctx, cancel := context.WithCancel(context.Background())
		calls, after := 0, 0
		err := walk.List(ctx, root, walk.Options{Fanout: fanout}, func(c walk.Chunk) error {
			calls++
			if calls > 1 {
				after++
			}
			cancel()
			return nil
		})
		cancel()
		require.ErrorIs(t, err, context.Canceled, "fanout %d", fanout)
		if fanout == 1 {
			require.Zero(t, after, "no chunk after the cancel")
		}
	}
}

// An emit error stops the walk and List returns it.
func TestListReturnsEmitError(t *testing.T) {
	root := manyFiles(t, 2000)
	boom := errors.New("boom")
	calls := 0
	err := walk.List(context.Background(), root, walk.Options{Fanout: 2}, func(walk.Chunk) error {
		calls++
		return boom
	})
	require.ErrorIs(t, err, boom)
	require.Equal(t, 1, calls)
}

// fs.SkipDir from a directory's visit skips what is below it; fs.SkipAll ends the walk with
// no error.
func TestWalkSkipDirAndSkipAll(t *testing.T) {
	root := makeTree(t, map[string]string{"a/x.txt": "", "b/y.txt": "", "b/c/z.txt": ""})
	var mu sync.Mutex
	var files []string
	err := walk.Walk(context.Background(), root, walk.Options{}, func(_ int, d *walk.Dir, names []string) error {
		if names == nil && d.Rel() == "b" {
			return fs.SkipDir
		}
		mu.Lock()
		defer mu.Unlock()
		for _, n := range names {
			files = append(files, d.Join(n))
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []string{"a/x.txt"}, files)

	visits := 0
	err = walk.Walk(context.Background(), root, walk.Options{Fanout: 1}, func(int, *walk.Dir, []string) error {
		visits++
		return fs.SkipAll
	})
	require.NoError(t, err)
	require.Equal(t, 1, visits)
}

// A root that is missing or a file is refused with an error wrapping the *fs.PathError.
func TestWalkRejectsBadRoot(t *testing.T) {
	root := makeTree(t, map[string]string{"f": ""})
	visit := func(int, *walk.Dir, []string) error { return nil }
	err := walk.Walk(context.Background(), filepath.Join(root, "missing"), walk.Options{}, visit)
	require.ErrorIs(t, err, fs.ErrNotExist)
	err = walk.Walk(context.Background(), filepath.Join(root, "f"), walk.Options{}, visit)
	var pe *fs.PathError
	require.ErrorAs(t, err, &pe)
	require.Contains(t, err.Error(), "not a directory")
}

// A panic in visit is repeated on Walk's caller once every goroutine has returned.
func TestWalkRepanicsAVisitPanicOnTheCaller(t *testing.T) {
	root := manyFiles(t, 200)
	v := func() (v any) {
		defer func() { v = recover() }()
		_ = walk.Walk(context.Background(), root, walk.Options{Fanout: 2}, func(_ int, _ *walk.Dir, names []string) error {
			if names != nil {
				panic("visit failed")
			}
			return nil
		})
		return nil
	}()
	require.Equal(t, "visit failed", v)
}

// Options.Skipped counts what the walk left out, by reason, so a search can
// say what it did not look at: ignored files and directories, hidden ones,
// SkipDirs names, unreadable directories, and entries that are neither file
// nor directory. What lies below a skipped directory is not counted.
func TestWalkCountsWhatItSkipped(t *testing.T) {
	root := makeTree(t, map[string]string{
		".gitignore":        "*.log\nout/\n",
		"keep.go":           "",
		"a.log":             "",
		"sub/b.log":         "",
		"sub/keep.go":       "",
		"out/x.go":          "",
		"out/y.go":          "",
		".hidden":           "",
		".cfg/z.go":         "",
		"node_modules/m.js": "",
		"gone/w.go":         "",
	})
	require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
	require.NoError(t, os.Symlink("keep.go", filepath.Join(root, "link.go")))
	var sk walk.Skipped
	var mu sync.Mutex
	var files []string
	opts := walk.Options{SkipDirs: []string{"node_modules"}, Skipped: &sk, Fanout: 2}
	err := walk.Walk(context.Background(), root, opts, func(_ int, d *walk.Dir, names []string) error {
		mu.Lock()
		defer mu.Unlock()
		if names == nil && d.Rel() == "" {
			// Queued but not yet read: reading it now fails.
			return os.RemoveAll(filepath.Join(root, "gone"))
		}
		for _, n := range names {
			files = append(files, d.Join(n))
		}
		return nil
	})
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"keep.go", "sub/keep.go"}, files)
	require.Equal(t, walk.SkipCounts{
		IgnoredFiles:   2, // a.log, sub/b.log
		IgnoredDirs:    1, // out
		HiddenFiles:    2, // .gitignore, .hidden
		HiddenDirs:     2, // .git, .cfg
		NamedDirs:      1, // node_modules
		UnreadableDirs: 1, // gone
		Other:          1, // link.go
	}, sk.Load())

	// With Hidden and NoIgnore nothing is skipped for those reasons.
	var all walk.Skipped
	err = walk.Walk(context.Background(), root, walk.Options{Hidden: true, NoIgnore: true, Skipped: &all}, func(int, *walk.Dir, []string) error { return nil })
	require.NoError(t, err)
	require.Equal(t, walk.SkipCounts{Other: 1}, all.Load())
}
