package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/pmacs-go/pmacs-go/walk"
)

// TestWatchReportsChangesInNestedDirs covers the basic operations: a create,
// a write, a rename and a remove two levels down each arrive with the
// absolute path, the operation and whether it is a directory.
func TestWatchReportsChangesInNestedDirs(t *testing.T) {
	root := t.TempDir()
	testenv.WriteTree(t, root, map[string]string{"a/b/old.txt": "x", "a/b/gone.txt": "x", "top.txt": ""})
	r := start(t, root, Options{})
	nested := filepath.Join(root, "a", "b")

	write(t, filepath.Join(nested, "new.txt"), "hello")
	r.waitFor("create", func(evs []Event) bool {
		return has(evs, filepath.Join(nested, "new.txt"), Create) || has(evs, filepath.Join(nested, "new.txt"), Write)
	})
	f, err := os.OpenFile(filepath.Join(root, "top.txt"), os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString("more")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, os.Rename(filepath.Join(nested, "old.txt"), filepath.Join(nested, "renamed.txt")))
	require.NoError(t, os.Remove(filepath.Join(nested, "gone.txt")))
	require.NoError(t, os.Mkdir(filepath.Join(nested, "sub"), 0o755))

	evs := r.waitFor("every change", func(evs []Event) bool {
		return has(evs, filepath.Join(root, "top.txt"), Write) &&
			has(evs, filepath.Join(nested, "old.txt"), Rename) &&
			has(evs, filepath.Join(nested, "renamed.txt"), Create) &&
			has(evs, filepath.Join(nested, "gone.txt"), Remove) &&
			has(evs, filepath.Join(nested, "sub"), Create)
	})
	for _, e := range evs {
		require.True(t, filepath.IsAbs(e.Path), e.Path)
		require.Empty(t, e.Notice)
		require.Equal(t, e.Path == filepath.Join(nested, "sub"), e.Dir, "%+v", e)
	}
}

// TestWatchLeavesIgnoredTreesUnwatched covers the ignore rules: a
// .gitignore'd build directory, node_modules (a skipped name) and a hidden
// directory get no kernel watch, and changes in them are not reported,
// while a change next to them is.
func TestWatchLeavesIgnoredTreesUnwatched(t *testing.T) {
	root := t.TempDir()
	testenv.WriteTree(t, root, map[string]string{
		".git/HEAD":                 "ref: refs/heads/main\n",
		".gitignore":                "build/\n*.log\n",
		"build/a/b/c/out.o":         "",
		"node_modules/m/n/index.js": "",
		".cache/x/y":                "",
		"src/main.go":               "",
	})
	var added []string
	old := addWatch
	addWatch = func(w *fsnotify.Watcher, path string) error {
		added = append(added, path)
		return old(w, path)
	}
	t.Cleanup(func() { addWatch = old })
	r := start(t, root, Options{SkipDirs: []string{"node_modules"}})
	sort.Strings(added)
	require.Equal(t, []string{root, filepath.Join(root, "src")}, added, "only the root and src are watched")
	require.EqualValues(t, 2, r.counts.Watched.Load())

	write(t, filepath.Join(root, "build", "a", "new.o"), "")
	write(t, filepath.Join(root, "node_modules", "m", "new.js"), "")
	write(t, filepath.Join(root, ".cache", "new"), "")
	write(t, filepath.Join(root, "debug.log"), "")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "build", "fresh"), 0o755))
	write(t, filepath.Join(root, "src", "marker.go"), "")
	evs := r.waitFor("the marker", func(evs []Event) bool { return has(evs, filepath.Join(root, "src", "marker.go"), Create) })
	for _, e := range evs {
		require.True(t, strings.HasPrefix(e.Path, filepath.Join(root, "src")), "an ignored path was reported: %+v", e)
	}
	require.EqualValues(t, 2, r.counts.Watched.Load(), "nothing ignored was watched since")
}

// TestWatchFollowsNewDirectories covers directories that appear after the
// start: one made with its content at once (mkdir -p and files) reports
// that content as created and is watched, so a later change inside it is
// reported too; removing it drops its watches.
func TestWatchFollowsNewDirectories(t *testing.T) {
	root := t.TempDir()
	r := start(t, root, Options{})
	require.EqualValues(t, 1, r.counts.Watched.Load())
	deep := filepath.Join(root, "n1", "n2", "n3")
	require.NoError(t, os.MkdirAll(deep, 0o755))
	write(t, filepath.Join(deep, "early.txt"), "")
	r.waitFor("the new tree", func(evs []Event) bool {
		return has(evs, filepath.Join(root, "n1"), Create) && has(evs, filepath.Join(deep, "early.txt"), Create) ||
			has(evs, filepath.Join(deep, "early.txt"), Write)
	})
	require.Eventually(t, func() bool { return r.counts.Watched.Load() == 4 }, 20*time.Second, 5*time.Millisecond)
	write(t, filepath.Join(deep, "late.txt"), "")
	r.waitFor("a change in the new tree", func(evs []Event) bool { return has(evs, filepath.Join(deep, "late.txt"), Create) })

	require.NoError(t, os.RemoveAll(filepath.Join(root, "n1")))
	r.waitFor("the removal", func(evs []Event) bool { return has(evs, filepath.Join(root, "n1"), Remove) })
	require.Eventually(t, func() bool { return r.counts.Watched.Load() == 1 }, 20*time.Second, 5*time.Millisecond)
}

// TestWatchFollowsARenamedDirectory covers a directory renamed within the
// tree: the old path is reported renamed and the new one created, and a
// change under the new path is reported with the new path.
func TestWatchFollowsARenamedDirectory(t *testing.T) {
	root := t.TempDir()
	testenv.WriteTree(t, root, map[string]string{"old/sub/f.txt": ""})
	r := start(t, root, Options{})
	require.NoError(t, os.Rename(filepath.Join(root, "old"), filepath.Join(root, "new")))
	r.waitFor("the rename", func(evs []Event) bool {
		return has(evs, filepath.Join(root, "old"), Rename) && has(evs, filepath.Join(root, "new"), Create)
	})
	write(t, filepath.Join(root, "new", "sub", "g.txt"), "")
	evs := r.waitFor("a change under the new path", func(evs []Event) bool {
		return has(evs, filepath.Join(root, "new", "sub", "g.txt"), Create)
	})
	for _, e := range evs {
		require.False(t, strings.HasPrefix(e.Path, filepath.Join(root, "old")+"/"), "a stale path: %+v", e)
		if e.Path == filepath.Join(root, "old") || e.Path == filepath.Join(root, "new") {
			// The kernel reports the moved directory's own watch moving too, after
			// the directory was dropped: that must not make it a file.
			require.True(t, e.Dir, "%+v", e)
		}
	}
	require.EqualValues(t, 3, r.counts.Watched.Load())
}

// TestWatchFollowsAChangedGitignore covers an ignore file edited while
// watching: a tree it now ignores is dropped, one it no longer ignores is
// watched.
func TestWatchFollowsAChangedGitignore(t *testing.T) {
	root := t.TempDir()
	testenv.WriteTree(t, root, map[string]string{".git/HEAD": "", ".gitignore": "a/\n", "a/f": "", "b/f": ""})
	r := start(t, root, Options{})
	require.EqualValues(t, 2, r.counts.Watched.Load())
	write(t, filepath.Join(root, ".gitignore"), "b/\n")
	// The ignore file is hidden, so not reported: its effect shows once a write in a
	// is, and from then on b is not watched.
	probe := filepath.Join(root, "a", "probe.txt")
	require.Eventually(t, func() bool {
		write(t, probe, "")
		return has(r.events(), probe, Create) || has(r.events(), probe, Write)
	}, 20*time.Second, 5*time.Millisecond)
	require.EqualValues(t, 2, r.counts.Watched.Load())
	write(t, filepath.Join(root, "b", "hidden.txt"), "")
	write(t, filepath.Join(root, "marker"), "")
	evs := r.waitFor("the marker", func(evs []Event) bool { return has(evs, filepath.Join(root, "marker"), Create) })
	for _, e := range evs {
		require.False(t, strings.HasPrefix(e.Path, filepath.Join(root, "b")+"/"), "b is ignored now: %+v", e)
	}
}

// TestWatchPollsPastTheWatchLimit covers the fallback: once the kernel
// refuses a watch with ENOSPC (pretended after two watches), a notice says
// so once, and creates and removes in the directories not watched are
// still reported, by polling; a directory made in a polled one is followed
// too.
func TestWatchPollsPastTheWatchLimit(t *testing.T) {
	root := t.TempDir()
	testenv.WriteTree(t, root, map[string]string{"d1/f": "", "d2/f": "", "d3/f": "", "d4/f": ""})
	var n atomic.Int32
	old := addWatch
	addWatch = func(w *fsnotify.Watcher, path string) error {
		if n.Add(1) > 2 {
			return fmt.Errorf("inotify_add_watch %s: %w", path, syscall.ENOSPC)
		}
		return old(w, path)
	}
	t.Cleanup(func() { addWatch = old })
	r := start(t, root, Options{PollEvery: 20 * time.Millisecond})
	require.EqualValues(t, 2, r.counts.Watched.Load())
	require.EqualValues(t, 3, r.counts.Polled.Load())

	var polledDir string
	for _, d := range []string{"d1", "d2", "d3", "d4"} {
		if _, err := os.Stat(filepath.Join(root, d)); err == nil {
			polledDir = filepath.Join(root, d) // any: three of four are polled
		}
	}
	for _, d := range []string{"d1", "d2", "d3", "d4"} {
		write(t, filepath.Join(root, d, "new"), "")
		require.NoError(t, os.Remove(filepath.Join(root, d, "f")))
	}
	require.NoError(t, os.Mkdir(filepath.Join(polledDir, "sub"), 0o755))
	evs := r.waitFor("every change", func(evs []Event) bool {
		for _, d := range []string{"d1", "d2", "d3", "d4"} {
			if !has(evs, filepath.Join(root, d, "new"), Create) || !has(evs, filepath.Join(root, d, "f"), Remove) {
				return false
			}
		}
		return has(evs, filepath.Join(polledDir, "sub"), Create)
	})
	notices := 0
	for _, e := range evs {
		if e.Notice != "" {
			notices++
			require.Contains(t, e.Notice, "watch limit")
		}
	}
	require.Equal(t, 1, notices, "the limit is told once: %v", evs)
	require.Eventually(t, func() bool { return r.counts.Polled.Load() == 4 }, 20*time.Second, 5*time.Millisecond)
	write(t, filepath.Join(polledDir, "sub", "deep"), "")
	r.waitFor("a create in the polled new directory", func(evs []Event) bool { return has(evs, filepath.Join(polledDir, "sub", "deep"), Create) })
}

// TestWatchCoalescesAGitCheckoutStorm covers storms: checking out a branch
// that differs in 10,000 files arrives in far fewer batches than files,
// every changed path appears once per batch, and applying the changes to
// the listing from before gives what a fresh walk lists after.
func TestWatchCoalescesAGitCheckoutStorm(t *testing.T) {
	const files = 10_000
	g := testenv.NewGitStorm(t, files)
	root := g.Root

	before := listFiles(t, root)
	r := start(t, root, Options{})
	g.Git("checkout", "-q", "two")
	after := listFiles(t, root)
	changed := map[string]bool{}
	for f := range before {
		if _, ok := after[f]; !ok || before[f] != after[f] {
			changed[f] = true
		}
	}
	for f := range after {
		if _, ok := before[f]; !ok {
			changed[f] = true
		}
	}
	require.Greater(t, len(changed), files)

	evs := r.waitFor("every changed file", func(evs []Event) bool {
		seen := map[string]bool{}
		for _, e := range evs {
			if rel, err := filepath.Rel(root, e.Path); err == nil {
				seen[rel] = true
			}
		}
		for f := range changed {
			if !seen[f] {
				return false
			}
		}
		return true
	})
	batches := r.batchCount()
	t.Logf("%d changed files, %d events, %d batches", len(changed), len(evs), batches)
	require.Less(t, batches, len(changed)/20, "the storm arrives coalesced")
	r.mu.Lock()
	for _, b := range r.batches {
		seen := map[string]bool{}
		for _, e := range b {
			require.Empty(t, e.Notice, "no overflow: %+v", e)
			require.False(t, seen[e.Path], "%s twice in one batch", e.Path)
			seen[e.Path] = true
		}
	}
	r.mu.Unlock()
	// Applying the changes to the listing from before gives the listing after.
	state := map[string]bool{}
	for f := range before {
		state[f] = true
	}
	for _, e := range evs {
		rel, _ := filepath.Rel(root, e.Path)
		if e.Dir {
			continue
		}
		switch e.Op {
		case Remove, Rename:
			delete(state, rel)
		default:
			if _, err := os.Lstat(e.Path); err == nil {
				state[rel] = true
			}
		}
	}
	want := slices.Sorted(func(yield func(string) bool) {
		for f := range after {
			if !yield(f) {
				return
			}
		}
	})
	got := slices.Sorted(func(yield func(string) bool) {
		for f := range state {
			if !yield(f) {
				return
			}
		}
	})
	require.Equal(t, want, got)
}

// listFiles is a fresh walk of root: relative path -> content.
func listFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := walk.List(context.Background(), root, walk.Options{}, func(c walk.Chunk) error {
		for _, f := range c.Files {
			b, err := os.ReadFile(filepath.Join(root, f))
			if err != nil {
				return err
			}
			out[f] = string(b)
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// TestWatchBoundsWhatWaits covers the pending bound: a consumer that does
// not take its batch while more changes than MaxPending come gets them
// replaced by one notice to list afresh, not an ever growing set.
func TestWatchBoundsWhatWaits(t *testing.T) {
	root := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	release := make(chan struct{})
	got := make(chan []Event, 16)
	ready := make(chan Stats, 1)
	done := make(chan error, 1)
	var overflowed atomic.Bool
	notedHook = func(_ int, overflow bool) {
		if overflow {
			overflowed.Store(true)
		}
	}
	defer func() { notedHook = nil }()
	go func() {
		done <- Watch(ctx, root, Options{MaxPending: 10, Ready: func(s Stats) { ready <- s }}, func(b []Event) error {
			got <- b
			<-release
			return nil
		})
	}()
	<-ready
	write(t, filepath.Join(root, "first"), "")
	first := <-got // the consumer now holds on to this batch
	require.NotEmpty(t, first)
	for i := range 50 {
		write(t, filepath.Join(root, fmt.Sprintf("f%02d", i)), "")
	}
	write(t, filepath.Join(root, "last"), "")
	require.Eventually(t, overflowed.Load, 20*time.Second, time.Millisecond, "the bound is reached while the consumer holds on")
	close(release)
	var all []Event
	deadline := time.After(20 * time.Second)
	for !slices.ContainsFunc(all, func(e Event) bool { return e.Notice != "" }) {
		select {
		case b := <-got:
			require.LessOrEqual(t, len(b), 10)
			all = append(all, b...)
		case <-deadline:
			t.Fatalf("no notice; got %v", all)
		}
	}
	cancel()
	require.True(t, errors.Is(<-done, context.Canceled))
}

// TestWatchRefusesAMissingRoot covers bad input: a root that does not exist
// or is a file fails at once with the path's error.
func TestWatchRefusesAMissingRoot(t *testing.T) {
	root := t.TempDir()
	err := Watch(context.Background(), filepath.Join(root, "nope"), Options{}, func([]Event) error { return nil })
	require.ErrorIs(t, err, os.ErrNotExist)
	write(t, filepath.Join(root, "file"), "")
	err = Watch(context.Background(), filepath.Join(root, "file"), Options{}, func([]Event) error { return nil })
	require.ErrorIs(t, err, syscall.ENOTDIR)
}

// TestWatchReturnsEmitsError covers emit's error: it ends the watch and
// Watch returns it.
func TestWatchReturnsEmitsError(t *testing.T) {
	root := t.TempDir()
	boom := errors.New("boom")
	ready := make(chan Stats, 1)
	done := make(chan error, 1)
	go func() {
		done <- Watch(context.Background(), root, Options{Ready: func(s Stats) { ready <- s }}, func([]Event) error { return boom })
	}()
	<-ready
	write(t, filepath.Join(root, "f"), "")
	select {
	case err := <-done:
		require.ErrorIs(t, err, boom)
	case <-time.After(20 * time.Second):
		t.Fatal("Watch did not return emit's error")
	}
}

// TestWatchEmitsErrorStopsAScan covers emit's error during a scan: a
// notice emitted while the first scan of a large tree runs fails, and the
// scan stops there instead of watching the rest of the tree first.
func TestWatchEmitsErrorStopsAScan(t *testing.T) {
	const dirs = 2000
	root := t.TempDir()
	for i := range dirs {
		require.NoError(t, os.Mkdir(filepath.Join(root, fmt.Sprintf("d%04d", i)), 0o755))
	}
	emitted := make(chan struct{})
	var calls atomic.Int32
	old := addWatch
	addWatch = func(w *fsnotify.Watcher, path string) error {
		switch n := calls.Add(1); {
		case n == 1:
			return old(w, path)
		case n == 2:
			return fmt.Errorf("inotify_add_watch %s: %w", path, syscall.ENOSPC)
		default:
			<-emitted // the notice of call 2 reached emit, which failed
			return fmt.Errorf("inotify_add_watch %s: %w", path, syscall.ENOSPC)
		}
	}
	t.Cleanup(func() { addWatch = old })
	boom := errors.New("boom")
	err := Watch(context.Background(), root, Options{}, func([]Event) error {
		close(emitted)
		return boom
	})
	require.ErrorIs(t, err, boom)
	require.Less(t, int(calls.Load()), dirs/2, "the scan went on after emit failed")
}
