package fuzzy_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/fuzzy"
	"github.com/pmacs-go/pmacs-go/fuzzy/internal/pathgen"
)

func indices(ms []fuzzy.Match) []int {
	out := make([]int, len(ms))
	for i, m := range ms {
		out[i] = m.Index
	}
	return out
}

// TestRefineEqualsFullSearch covers the narrowing point: a query that extends the previous
// one, searched through Refine over the previous matches only, ranks exactly like a full
// search, keystroke after keystroke, and a query that does not extend it falls back to a
// full search.
func TestRefineEqualsFullSearch(t *testing.T) {
	store := fuzzy.NewStore(pathgen.Synthetic(20000))
	ctx := context.Background()
	opt := fuzzy.Options{Limit: 50}
	var prev *fuzzy.Result
	for _, q := range []string{"r", "re", "ren", "rend", "rende", "render", "render go", "render go$", "render", "rend !test", "x | render"} {
		p := fuzzy.ParsePattern(q)
		full, err := fuzzy.Search(ctx, store, p, opt)
		require.NoError(t, err)
		if prev == nil {
			prev = full
			continue
		}
		got, err := prev.Refine(ctx, p, opt)
		require.NoError(t, err)
		require.Equal(t, full.Total, got.Total, q)
		require.Equal(t, full.Matches, got.Matches, q)
		prev = got
	}
}

// TestRefineSeesStoreChanges checks that narrowing stays correct when the store changed
// between the two queries: a removed candidate disappears and an added one is scored.
func TestRefineSeesStoreChanges(t *testing.T) {
	store := fuzzy.NewStore([]string{"a/render.go", "b/render_test.go", "c/other.go"})
	ctx := context.Background()
	prev, err := fuzzy.Search(ctx, store, fuzzy.ParsePattern("ren"), fuzzy.Options{})
	require.NoError(t, err)
	require.Equal(t, 2, prev.Total)
	require.NoError(t, store.Remove(0))
	added := store.Add("d/renderer.go")
	res, err := prev.Refine(ctx, fuzzy.ParsePattern("rend"), fuzzy.Options{})
	require.NoError(t, err)
	require.ElementsMatch(t, []int{1, added}, indices(res.Matches))
	require.Equal(t, 2, res.Total)
	require.Equal(t, 3, store.Live())
	require.True(t, store.Removed(0))
	require.Equal(t, "d/renderer.go", store.Item(added))
}

// TestThreadsDoNotChangeRanking checks that splitting the work differently never changes
// the answer: chunk order and heap merging are deterministic.
func TestThreadsDoNotChangeRanking(t *testing.T) {
	store := fuzzy.NewStore(pathgen.Synthetic(30000))
	for _, q := range []string{"cfg", "srv/http", "tree_node", "a"} {
		p := fuzzy.ParsePattern(q)
		one, err := fuzzy.Search(context.Background(), store, p, fuzzy.Options{Limit: 100, Threads: 1})
		require.NoError(t, err)
		for _, threads := range []int{2, 3, 8} {
			many, err := fuzzy.Search(context.Background(), store, p, fuzzy.Options{Limit: 100, Threads: threads})
			require.NoError(t, err)
			require.Equal(t, one.Matches, many.Matches, "%q with %d threads", q, threads)
			require.Equal(t, one.Total, many.Total)
		}
	}
}

// TestLimitAndOrder checks that Limit keeps the best matches in rank order and that ties
// go to the shorter, then the earlier candidate.
func TestLimitAndOrder(t *testing.T) {
	store := fuzzy.NewStore([]string{"xx/abc", "abc", "y/abc", "z/abc", "abcdef"})
	res, err := fuzzy.Search(context.Background(), store, fuzzy.ParsePattern("abc"), fuzzy.Options{Limit: 3})
	require.NoError(t, err)
	require.Equal(t, 5, res.Total)
	require.Len(t, res.Matches, 3)
	// "abc" and "abcdef" start at the text (largest bonus): the shorter first. Among the
	// paths with the match after a slash, y/abc and z/abc tie and the earlier wins.
	require.Equal(t, []int{1, 4, 2}, indices(res.Matches))
	for i := 1; i < len(res.Matches); i++ {
		require.GreaterOrEqual(t, res.Matches[i-1].Score, res.Matches[i].Score)
	}
}

// TestEmptyPatternKeepsOrder checks that an empty query lists the live candidates in store
// order, without positions.
func TestEmptyPatternKeepsOrder(t *testing.T) {
	store := fuzzy.NewStore([]string{"c", "a", "b"})
	require.NoError(t, store.Remove(1))
	res, err := fuzzy.Search(context.Background(), store, fuzzy.ParsePattern("  "), fuzzy.Options{})
	require.NoError(t, err)
	require.Equal(t, []int{0, 2}, indices(res.Matches))
	require.Nil(t, res.Matches[0].Positions)
}

// TestBadInputsAreErrors checks that misuse returns errors instead of panicking.
func TestBadInputsAreErrors(t *testing.T) {
	_, err := fuzzy.Search(context.Background(), nil, fuzzy.ParsePattern("a"), fuzzy.Options{})
	require.ErrorIs(t, err, fuzzy.ErrNilStore)
	var r *fuzzy.Result
	_, err = r.Refine(context.Background(), fuzzy.ParsePattern("a"), fuzzy.Options{})
	require.ErrorIs(t, err, fuzzy.ErrNilStore)
	var s fuzzy.Store
	require.ErrorIs(t, s.Remove(0), fuzzy.ErrIndexRange)
	require.ErrorIs(t, s.Remove(-1), fuzzy.ErrIndexRange)
	require.Equal(t, "", s.Item(3))
	require.Nil(t, s.Text(-1))
	res, err := fuzzy.Search(context.Background(), &s, fuzzy.ParsePattern("a"), fuzzy.Options{})
	require.NoError(t, err, "the zero Store is an empty store")
	require.Zero(t, res.Total)
}

// TestCancelledSearchStops covers the supersede point at the leaf: a search whose context
// is cancelled while it runs returns an error matching context.Canceled (and goleak in
// TestMain shows its goroutines are gone); a context cancelled before the call does no
// work at all.
func TestCancelledSearchStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := fuzzy.Search(ctx, fuzzy.NewStore([]string{"a"}), fuzzy.ParsePattern("a"), fuzzy.Options{})
	require.ErrorIs(t, err, context.Canceled)

	// Large enough that a search takes far longer than the cancel delay, even unloaded.
	store := fuzzy.NewStore(pathgen.Synthetic(300_000))
	p := fuzzy.ParsePattern("render")
	for attempt := 0; ; attempt++ {
		ctx, cancel := context.WithCancel(context.Background())
		timer := time.AfterFunc(time.Millisecond, cancel)
		_, err := fuzzy.Search(ctx, store, p, fuzzy.Options{Limit: 10})
		timer.Stop()
		cancel()
		if err == nil && attempt < 3 {
			// The whole search beat a 1 ms timer: try again rather than prove nothing.
			continue
		}
		require.Error(t, err)
		require.True(t, errors.Is(err, context.Canceled), fmt.Sprint(err))
		return
	}
}

// TestCancelKeepsCause checks that a search stopped with a cause reports both the
// context's error and the cause, so a caller can tell a superseded query from a closed one.
func TestCancelKeepsCause(t *testing.T) {
	errSuperseded := errors.New("superseded")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errSuperseded)
	_, err := fuzzy.Search(ctx, fuzzy.NewStore([]string{"a"}), fuzzy.ParsePattern("a"), fuzzy.Options{})
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, err, errSuperseded)
}

// TestCancelStopsWithinLongLines covers the supersede bound for lists of long lines
// (minified files, log lines): the look at ctx is paced by work, not only by candidate
// count. Each line here is about 100,000 alignment cells, so 256 of them take 25 ms or more
// even on a fast machine, and a search that looked only every 256 candidates would rarely
// return within 5 ms of a cancel. The cancel lands at a different moment in each of three
// attempts and the best is checked, to tolerate a loaded machine.
func TestCancelStopsWithinLongLines(t *testing.T) {
	long := make([]string, 4000)
	for i := range long {
		long[i] = strings.Repeat("render/", 20000/7) + strings.Repeat("y", i%50)
	}
	store := fuzzy.NewStore(long)
	p := fuzzy.ParsePattern("rendr")
	best := time.Hour
	for attempt, delay := range []time.Duration{3 * time.Millisecond, 11 * time.Millisecond, 19 * time.Millisecond} {
		ctx, cancel := context.WithCancel(context.Background())
		var mu sync.Mutex
		var cancelledAt time.Time
		timer := time.AfterFunc(delay, func() {
			mu.Lock()
			cancelledAt = time.Now()
			mu.Unlock()
			cancel()
		})
		_, err := fuzzy.Search(ctx, store, p, fuzzy.Options{Limit: 10})
		end := time.Now()
		timer.Stop()
		cancel()
		require.ErrorIs(t, err, context.Canceled, "the search must still be running at the cancel")
		mu.Lock()
		t.Logf("attempt %d: returned %v after the cancel", attempt, end.Sub(cancelledAt))
		best = min(best, end.Sub(cancelledAt))
		mu.Unlock()
	}
	require.Less(t, best, 5*time.Millisecond)
}
