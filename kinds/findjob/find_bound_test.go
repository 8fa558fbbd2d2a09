package findjob

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A cache no query uses keeps at most maxFindInbox of the renames and
// removes reported under its root; past that it drops them and its next
// query lists the root afresh, finding what is there. (Issue 25 point 7:
// "the finder's inbox grow[s] without a byte bound".)
func TestFinderInboxIsBounded(t *testing.T) {
	rt := newRT(t, 2)
	files := map[string]string{}
	for i := range 10 {
		files[fmt.Sprintf("d/f%d.txt", i)] = ""
	}
	root := makeTree(t, files)
	r, _ := findAll(t, rt, FindSpec{Root: root}, DispatchOptions{})
	require.Equal(t, 10, r.Candidates)
	abs, err := filepath.Abs(root)
	require.NoError(t, err)
	c := rt.finder().caches[cacheKey{root: abs}]
	for i := range 3 * maxFindInbox {
		rt.noteResource(ResourceOp{Op: ResourceRemove, From: filepath.Join(abs, fmt.Sprintf("gone%d", i))})
		c.inboxMu.Lock()
		n := len(c.inbox)
		c.inboxMu.Unlock()
		require.LessOrEqual(t, n, maxFindInbox)
	}
	require.True(t, c.overflow)
	r, _ = findAll(t, rt, FindSpec{Root: root}, DispatchOptions{})
	require.Equal(t, 10, r.Candidates)
	require.Equal(t, 2, c.walks, "the root was listed afresh")
	require.Empty(t, c.inbox)
	require.False(t, c.overflow)
}

// A root's first walk outlives the query that started it, but what it
// lists for the next query is bounded: past walkPendingMax of paths it
// waits, and the next query takes them and lets it go on; with no query
// for walkIdleMax it gives up and drops its listing, and the next query
// walks afresh. Either way that query finds every file. (Issue 25 point
// 7: "the finder's inbox ... grow[s] without a byte bound": the walker's
// output waiting for a query.)
func TestWalkWithoutAQueryHoldsBoundedPaths(t *testing.T) {
	pending, idle := walkPendingMax, walkIdleMax
	t.Cleanup(func() { walkPendingMax, walkIdleMax = pending, idle })
	files := map[string]string{}
	for i := range 5000 {
		files[fmt.Sprintf("d%02d/file_%05d.txt", i%50, i)] = ""
	}
	root := makeTree(t, files)
	abs, err := filepath.Abs(root)
	require.NoError(t, err)
	// The walk's chunk that passes the mark lands whole (512 entries and
	// the names of the directory that filled it), against 85 KB listed.
	bound := 2<<10 + 2*512*len("d00/file_00000.txt")

	// startWalk starts the root's first walk as a query would, and leaves
	// it without one.
	startWalk := func(rt testRT) (*fileCache, *bgWalk) {
		c := rt.fileCache(cacheKey{root: abs})
		c.lock <- struct{}{}
		require.NoError(t, c.startWalk())
		bg := c.bg
		<-c.lock
		return c, bg
	}
	state := func(bg *bgWalk) (pending, peak, held int, done bool, err error) {
		bg.mu.Lock()
		defer bg.mu.Unlock()
		return bg.pending, bg.peak, len(bg.files), bg.done, bg.err
	}

	t.Run("waits for the next query", func(t *testing.T) {
		walkPendingMax, walkIdleMax = 2<<10, time.Minute
		rt := newRT(t, 2)
		c, bg := startWalk(rt)
		pumpFor(t, rt, 10*time.Second, func() bool {
			pending, _, _, _, _ := state(bg)
			return pending >= walkPendingMax
		})
		r, _ := findAll(t, rt, FindSpec{Root: root, Query: "file"}, DispatchOptions{})
		require.Equal(t, 5000, r.Candidates)
		require.Equal(t, 1, c.walks, "the query took the walk over")
		_, peak, _, _, _ := state(bg)
		require.Less(t, peak, bound)
	})

	t.Run("gives up without one", func(t *testing.T) {
		walkPendingMax, walkIdleMax = 2<<10, 50*time.Millisecond
		rt := newRT(t, 2)
		c, bg := startWalk(rt)
		pumpFor(t, rt, 10*time.Second, func() bool {
			_, _, _, done, _ := state(bg)
			return done
		})
		_, peak, held, _, err := state(bg)
		require.ErrorIs(t, err, errWalkAbandoned)
		require.Zero(t, held, "the abandoned listing is dropped")
		require.Less(t, peak, bound)
		r, _ := findAll(t, rt, FindSpec{Root: root, Query: "file"}, DispatchOptions{})
		require.Equal(t, 5000, r.Candidates)
		require.Equal(t, 2, c.walks, "the query walked afresh")
	})
}
