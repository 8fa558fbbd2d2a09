package findjob

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/runtime"

	"github.com/pmacs-go/pmacs-go/fuzzy"
)

// findAll runs a find_files to its end and returns its final ranking and the
// snapshots delivered before it.
func findAll(t *testing.T, rt testRT, spec FindSpec, o DispatchOptions) (Ranking, []*Ranking) {
	t.Helper()
	id := rt.DispatchFindFiles(spec, o)
	var snaps []*Ranking
	deadline := time.Now().Add(10 * time.Second)
	for {
		require.True(t, time.Now().Before(deadline), "find_files did not close")
		rt.Tick()
		for _, b := range rt.TakeStreamBatches() {
			if b.ID != id {
				continue
			}
			if SnapshotOf(b) != nil {
				snaps = append(snaps, SnapshotOf(b))
			}
			if b.Closed {
				require.Equal(t, Complete, b.Outcome.State, "%v", b.Outcome.Err)
				r, ok := RankingOf(b.Outcome)
				require.True(t, ok, "a ranking: %+v", b.Outcome)
				return r, snaps
			}
		}
		waitReady(rt, time.Millisecond)
	}
}

func texts(r Ranking) []string {
	out := make([]string, len(r.Matches))
	for i, m := range r.Matches {
		out[i] = m.Text
	}
	return out
}

func TestFindFilesRanksLikeFuzzySearch(t *testing.T) {
	rt := newRT(t, 2)
	files := map[string]string{}
	var paths []string
	for i := range 300 {
		p := fmt.Sprintf("pkg%d/sub%d/file_%d.go", i%7, i%13, i)
		files[p] = ""
		paths = append(paths, p)
	}
	root := makeTree(t, files)
	for _, q := range []string{"", "f1", "pkg3 sub1", "file_29", "p6s12", "!go", "'_10"} {
		got, snaps := findAll(t, rt, FindSpec{Root: root, Query: q, Limit: 20}, DispatchOptions{})
		require.NotEmpty(t, snaps, q)
		store := fuzzy.NewStore(paths)
		pat := fuzzy.ParsePattern(q)
		want, err := fuzzy.Search(context.Background(), store, pat, fuzzy.Options{Limit: 20})
		require.NoError(t, err)
		all, err := fuzzy.Search(context.Background(), store, pat, fuzzy.Options{})
		require.NoError(t, err)
		byText := map[string]fuzzy.Match{}
		for _, m := range all.Matches {
			byText[store.Item(m.Index)] = m
		}
		require.Equal(t, want.Total, got.Total, q)
		require.Len(t, got.Matches, len(want.Matches), q)
		// Ties of equal score may order differently (the walk's order is
		// not the list's), so ranks are compared by score, and each
		// result by its own score and positions.
		for i, m := range want.Matches {
			g := got.Matches[i]
			require.Equal(t, m.Score, g.Score, "query %q rank %d", q, i)
			exp, ok := byText[g.Text]
			require.True(t, ok, "query %q: %s does not match", q, g.Text)
			require.Equal(t, exp.Score, g.Score, "query %q: %s", q, g.Text)
			require.Equal(t, exp.Positions, g.Positions, "query %q: %s", q, g.Text)
		}
	}
}

// statAlways makes every query compare the directories' mtimes, as a query
// made findStatEvery after the previous one does.
func statAlways(t *testing.T) {
	old := findStatEvery
	findStatEvery = 0
	t.Cleanup(func() { findStatEvery = old })
}

func TestFindFilesCacheFreshness(t *testing.T) {
	statAlways(t)
	rt := newRT(t, 2)
	root := makeTree(t, map[string]string{"a/alpha.txt": "", "a/beta.txt": "", "c/gamma.txt": "", "delta.txt": ""})
	spec := FindSpec{Root: root, Query: "txt", Limit: 100}
	set := func() []string {
		r, _ := findAll(t, rt, spec, DispatchOptions{})
		s := texts(r)
		slices.Sort(s)
		return s
	}
	require.Equal(t, []string{"a/alpha.txt", "a/beta.txt", "c/gamma.txt", "delta.txt"}, set())

	// Renamed through an fs job: the old name goes, the new one comes.
	o := outcomeOf(t, rt, rt.DispatchRename(filepath.Join(root, "a/alpha.txt"), filepath.Join(root, "c/omega.txt"), false, DispatchOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	require.Equal(t, []string{"a/beta.txt", "c/gamma.txt", "c/omega.txt", "delta.txt"}, set())

	// Created through an fs job: renamed in from outside the root.
	outside := filepath.Join(t.TempDir(), "new.txt")
	require.NoError(t, os.WriteFile(outside, nil, 0o644))
	o = outcomeOf(t, rt, rt.DispatchRename(outside, filepath.Join(root, "a/epsilon.txt"), false, DispatchOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	require.Equal(t, []string{"a/beta.txt", "a/epsilon.txt", "c/gamma.txt", "c/omega.txt", "delta.txt"}, set())

	// Removed through an fs job.
	o = outcomeOf(t, rt, rt.DispatchRemove(filepath.Join(root, "c/gamma.txt"), DispatchOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	require.Equal(t, []string{"a/beta.txt", "a/epsilon.txt", "c/omega.txt", "delta.txt"}, set())

	// Renamed into a hidden directory the listing never entered: still
	// not listed, as a walk would not list it.
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".secret"), 0o755))
	o = outcomeOf(t, rt, rt.DispatchRename(filepath.Join(root, "a/epsilon.txt"), filepath.Join(root, ".secret/epsilon.txt"), false, DispatchOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	require.Equal(t, []string{"a/beta.txt", "c/omega.txt", "delta.txt"}, set())
	o = outcomeOf(t, rt, rt.DispatchRename(filepath.Join(root, ".secret/epsilon.txt"), filepath.Join(root, "a/epsilon.txt"), false, DispatchOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	require.Equal(t, []string{"a/beta.txt", "a/epsilon.txt", "c/omega.txt", "delta.txt"}, set())

	// Created behind the editor's back, in a new directory: the parent's
	// mtime changed. The mtime is set explicitly so a coarse clock cannot
	// hide the change.
	require.NoError(t, os.MkdirAll(filepath.Join(root, "c/deep"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "c/deep/zeta.txt"), nil, 0o644))
	future := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(root, "c"), future, future))
	require.Equal(t, []string{"a/beta.txt", "a/epsilon.txt", "c/deep/zeta.txt", "c/omega.txt", "delta.txt"}, set())

	// Removed behind its back.
	require.NoError(t, os.Remove(filepath.Join(root, "delta.txt")))
	require.NoError(t, os.Chtimes(root, future, future))
	require.Equal(t, []string{"a/beta.txt", "a/epsilon.txt", "c/deep/zeta.txt", "c/omega.txt"}, set())

	// A whole directory removed behind its back: the root is re-read
	// without entering the directories it knows, and the gone one, whose
	// stat fails, leaves with everything below it.
	require.NoError(t, os.RemoveAll(filepath.Join(root, "c")))
	later := future.Add(time.Hour)
	require.NoError(t, os.Chtimes(root, later, later))
	require.Equal(t, []string{"a/beta.txt", "a/epsilon.txt"}, set())
}

// A warm cache is not walked again: a file added without touching any
// directory's mtime (the mtime is put back) stays unseen.
func TestFindFilesWarmCacheDoesNotWalk(t *testing.T) {
	statAlways(t)
	rt := newRT(t, 2)
	root := makeTree(t, map[string]string{"a/one.txt": ""})
	spec := FindSpec{Root: root, Query: "txt"}
	r, _ := findAll(t, rt, spec, DispatchOptions{})
	require.Equal(t, []string{"a/one.txt"}, texts(r))
	dir := filepath.Join(root, "a")
	st, err := os.Stat(dir)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "two.txt"), nil, 0o644))
	require.NoError(t, os.Chtimes(dir, st.ModTime(), st.ModTime()))
	r, _ = findAll(t, rt, spec, DispatchOptions{})
	require.Equal(t, []string{"a/one.txt"}, texts(r))
}

// A burst of keystrokes under one key leaves one live job, and no batch of a
// superseded job is delivered after its successor was dispatched, except
// the closing batch of one that had finished before the supersede was seen
// (the runtime's rule for every stream; the Lua binding drops those too).
func TestFindFilesSupersedeBurst(t *testing.T) {
	rt := newRT(t, 2)
	files := map[string]string{}
	for i := range 2000 {
		files[fmt.Sprintf("d%d/e%d/name%d.go", i%40, i%17, i)] = ""
	}
	root := makeTree(t, files)
	query := "name1999.go"
	var ids []JobID
	stale := 0
	for k := range 100 {
		q := query[:1+min(k, len(query)-1)]
		ids = append(ids, rt.DispatchFindFiles(FindSpec{Root: root, Query: q, Limit: 10}, DispatchOptions{Key: "picker"}))
		rt.Tick()
		for _, b := range rt.TakeStreamBatches() {
			if b.ID != ids[len(ids)-1] && SnapshotOf(b) != nil && !finishedAnyway(&b) {
				stale++
			}
		}
	}
	require.Equal(t, 0, stale, "snapshots of superseded jobs were delivered")
	last := ids[len(ids)-1]
	live := 0
	for _, a := range rt.Snapshot().Active {
		if a.Kind == FindKind && !a.CancelRequested {
			live++
		}
	}
	require.Equal(t, 1, live)
	var final Ranking
	pumpFor(t, rt, 10*time.Second, func() bool {
		for _, b := range rt.TakeStreamBatches() {
			require.True(t, b.ID == last || SnapshotOf(b) == nil || finishedAnyway(&b), "a superseded job delivered a snapshot")
			if b.ID == last && b.Closed {
				final = rankingOf(b.Outcome)
				return true
			}
		}
		return false
	})
	require.NotEmpty(t, final.Matches)
	require.Equal(t, "d39/e10/name1999.go", final.Matches[0].Text)
	pumpUntil(t, rt, func() bool { rt.TakeStreamBatches(); return rt.PendingLen() == 0 })
}

func TestFindFilesBadRootFails(t *testing.T) {
	rt := newRT(t, 2)
	for _, root := range []string{"", filepath.Join(t.TempDir(), "missing")} {
		id := rt.DispatchFindFiles(FindSpec{Root: root}, DispatchOptions{})
		var out Outcome
		pumpUntil(t, rt, func() bool {
			for _, b := range rt.TakeStreamBatches() {
				if b.ID == id && b.Closed {
					out = b.Outcome
					return true
				}
			}
			return false
		})
		require.Equal(t, Failed, out.State)
		require.Contains(t, jobErr(t, out.Err).Message, "find_files")
	}
}

func TestFuzzyItemsAndSource(t *testing.T) {
	rt := newRT(t, 2)
	items := []string{"main.go", "README.md", "runtime/find.go", "fuzzy/search.go", "luabind/find.go"}
	check := func(q string, o Outcome) {
		want, err := fuzzy.Search(context.Background(), fuzzy.NewStore(items), fuzzy.ParsePattern(q), fuzzy.Options{})
		require.NoError(t, err)
		require.True(t, o.OK(), "%v", o.Err)
		r := rankingOf(o)
		require.Equal(t, want.Total, r.Total)
		require.Len(t, r.Matches, len(want.Matches))
		for i, m := range want.Matches {
			require.Equal(t, m.Index, r.Matches[i].Index)
			require.Equal(t, items[m.Index], r.Matches[i].Text)
			require.Equal(t, m.Positions, r.Matches[i].Positions)
		}
	}
	check("fgo", outcomeOf(t, rt, rt.DispatchFuzzy(FuzzySpec{Items: items, Query: "fgo"}, DispatchOptions{})))
	src := rt.FuzzySource(items)
	// Narrowing under a key refines; the result equals a full search.
	check("f", outcomeOf(t, rt, rt.DispatchFuzzy(FuzzySpec{Source: src, Query: "f"}, DispatchOptions{Key: "k"})))
	check("fgo", outcomeOf(t, rt, rt.DispatchFuzzy(FuzzySpec{Source: src, Query: "fgo"}, DispatchOptions{Key: "k"})))
	require.True(t, rt.FreeFuzzySource(src))
	require.False(t, rt.FreeFuzzySource(src))
	o := outcomeOf(t, rt, rt.DispatchFuzzy(FuzzySpec{Source: src, Query: "x"}, DispatchOptions{}))
	require.Equal(t, Failed, o.State)
	require.Contains(t, jobErr(t, o.Err).Message, ErrUnknownSource.Error())
}

func TestFuzzySourcesAreCapped(t *testing.T) {
	rt := newRT(t, 1)
	first := rt.FuzzySource([]string{"a"})
	for range maxFuzzySources {
		rt.FuzzySource([]string{"b"})
	}
	require.Equal(t, maxFuzzySources, rt.FuzzySourceLen())
	require.False(t, rt.FreeFuzzySource(first), "the least recently used source is evicted")
}

// A job whose wait for a busy cache ends by cancellation must leave the
// holder's lock alone; before, it took the token back and let a second job
// into the cache while the first still walked (a concurrent map write).
func TestLockCacheCancelledWaiterLeavesTheHolder(t *testing.T) {
	lock := make(chan struct{}, 1)
	lock <- struct{}{} // held by another job
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, lockCache(ctx, new(runtime.Task), lock), context.Canceled)
	require.Len(t, lock, 1, "the holder still holds the cache")
}

// A query superseded while the root's first walk runs stops, but the walk
// goes on for the next query, which takes what was listed so far instead of
// walking again: typing into a picker that just opened never restarts it.
func TestFindFilesSupersededFirstQueryKeepsTheWalk(t *testing.T) {
	rt := newRT(t, 2)
	files := map[string]string{}
	for i := range 3000 {
		files[fmt.Sprintf("d%d/f%d.txt", i%50, i)] = ""
	}
	root := makeTree(t, files)
	var last JobID
	for _, q := range []string{"", "f", "f1", "f12"} {
		last = rt.DispatchFindFiles(FindSpec{Root: root, Query: q}, DispatchOptions{Key: "picker"})
	}
	var final Ranking
	pumpFor(t, rt, 10*time.Second, func() bool {
		for _, b := range rt.TakeStreamBatches() {
			if b.ID == last && b.Closed {
				require.Equal(t, Complete, b.Outcome.State, "%v", b.Outcome.Err)
				final = rankingOf(b.Outcome)
				return true
			}
		}
		return false
	})
	require.Equal(t, 3000, final.Candidates)
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	res, err := fuzzy.Search(context.Background(), fuzzy.NewStore(paths), fuzzy.ParsePattern("f12"), fuzzy.Options{Limit: 1})
	require.NoError(t, err)
	want := res.Total
	require.Equal(t, want, final.Total)
	abs, err := filepath.Abs(root)
	require.NoError(t, err)
	c := rt.finder().caches[cacheKey{root: abs}]
	require.NotNil(t, c)
	require.Equal(t, 1, c.walks, "the root was walked once")
}

// Close stops a first walk that no job waits for any more and waits for it:
// no goroutine of it outlives the runtime (goleak checks in TestMain).
func TestFindFilesCloseStopsTheWalk(t *testing.T) {
	rt := newRT(t, 2)
	files := map[string]string{}
	for i := range 2000 {
		files[fmt.Sprintf("d%d/f%d.txt", i%40, i)] = ""
	}
	root := makeTree(t, files)
	id := rt.DispatchFindFiles(FindSpec{Root: root}, DispatchOptions{})
	rt.Cancel(id)
	rt.Close()
	require.True(t, rt.finder().life.closed)
	require.False(t, rt.finder().life.start(func(context.Context) {}), "no walk starts after Close")
}

// The completion ring keeps a ranking's counts, not its matches.
func TestFinderJobsSummariseTheirRanking(t *testing.T) {
	rt := newRT(t, 2)
	o := outcomeOf(t, rt, rt.DispatchFuzzy(FuzzySpec{Items: []string{"alpha", "beta", "gamma"}, Query: "a"}, DispatchOptions{}))
	require.True(t, o.OK())
	root := makeTree(t, map[string]string{"one.txt": "", "two.txt": ""})
	findAll(t, rt, FindSpec{Root: root, Query: "one"}, DispatchOptions{})
	got := map[runtime.Kind]string{}
	for _, c := range rt.Snapshot().Completed {
		got[c.Kind] = c.Result
	}
	require.Equal(t, "3 of 3 matched", got[FuzzyKind])
	require.Contains(t, got[FindKind], "1 of 2 matched")
}

// finishedAnyway reports a stream's closing batch after it completed.
func finishedAnyway(b *runtime.StreamBatch) bool { return b.Closed && b.Outcome.State == Complete }

// TestLargeStoreRanksAFirstSliceEarly covers the early snapshot: on a store of more than
// twice firstSlice candidates, searchKeyed first hands over the ranking of the candidates
// below firstSlice (fresh, and refining the previous result under the key), then returns
// the ranking of the whole store, equal to a full search; a small store gets no early
// ranking.
func TestLargeStoreRanksAFirstSliceEarly(t *testing.T) {
	old := firstSlice
	firstSlice = 64
	t.Cleanup(func() { firstSlice = old })
	var paths []string
	for i := range 1000 {
		paths = append(paths, fmt.Sprintf("pkg%d/sub%d/file_%d.go", i%7, i%13, i))
	}
	store := fuzzy.NewStore(paths)
	head := fuzzy.NewStore(paths[:64])
	ctx := context.Background()
	var last map[string]*refineEntry
	var uses uint64
	for _, q := range []string{"f", "fi", "fil", "file_1", "pkg3 sub1"} {
		pat := fuzzy.ParsePattern(q)
		var early []*fuzzy.Result
		got, err := searchKeyed(ctx, store, &last, &uses, "k", pat, 20, func(r *fuzzy.Result) error {
			early = append(early, r)
			return nil
		})
		require.NoError(t, err)
		require.Len(t, early, 1, q)
		wantHead, err := fuzzy.Search(ctx, head, pat, fuzzy.Options{Limit: 20})
		require.NoError(t, err)
		require.Equal(t, wantHead.Matches, early[0].Matches, q)
		want, err := fuzzy.Search(ctx, store, pat, fuzzy.Options{Limit: 20})
		require.NoError(t, err)
		require.Equal(t, want.Matches, got.Matches, q)
		require.Equal(t, want.Total, got.Total, q)
	}
	small := fuzzy.NewStore(paths[:100])
	_, err := searchKeyed(ctx, small, &last, &uses, "", fuzzy.ParsePattern("f"), 20, func(*fuzzy.Result) error {
		t.Fatal("an early ranking of a small store")
		return nil
	})
	require.NoError(t, err)
}
