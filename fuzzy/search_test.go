package fuzzy_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
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
	store := fuzzy.NewStore(pathgen.Synthetic(100_000))
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

// lookCounter is a context that counts how often a search looks at it.
type lookCounter struct {
	context.Context
	looks atomic.Int64
}

func (c *lookCounter) Err() error {
	c.looks.Add(1)
	return c.Context.Err()
}

// TestSearchLooksAtCtxPacedByWork covers the supersede bound for lists of long lines
// (minified files, log lines): the search must look at its context at least once per
// million alignment cells (about a millisecond of work), not only every so many
// candidates. Counting the looks makes the check independent of the machine's speed.
func TestSearchLooksAtCtxPacedByWork(t *testing.T) {
	const lines, length = 100, 20000
	long := make([]string, lines)
	for i := range long {
		long[i] = strings.Repeat("render/", length/7) + strings.Repeat("y", i%50)
	}
	q := "rendr"
	cells := lines * length * len(q)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	counter := &lookCounter{Context: ctx}
	res, err := fuzzy.Search(counter, fuzzy.NewStore(long), fuzzy.ParsePattern(q), fuzzy.Options{Limit: 10})
	require.NoError(t, err)
	require.Equal(t, lines, res.Total)
	looks := counter.looks.Load()
	t.Logf("%d looks for %d million cells", looks, cells/1_000_000)
	require.GreaterOrEqual(t, looks, int64(cells/1_000_000))
}

// TestTopKEqualsFullRanking checks that the top-K search, which skips the exact score of
// candidates that provably cannot enter the K kept so far, returns exactly the first K of
// the full ranking, and still counts every match.
func TestTopKEqualsFullRanking(t *testing.T) {
	store := fuzzy.NewStore(pathgen.Synthetic(50_000))
	ctx := context.Background()
	for _, q := range []string{"render", "re", "rndr", "cfgld", "srv/http", "luaplg", "tree_node", "JsonEnc", "syntx", "authsess", "src", "gogo", "e1"} {
		p := fuzzy.ParsePattern(q)
		full, err := fuzzy.Search(ctx, store, p, fuzzy.Options{NoPositions: true})
		require.NoError(t, err)
		for _, limit := range []int{1, 10, 200} {
			top, err := fuzzy.Search(ctx, store, p, fuzzy.Options{Limit: limit, NoPositions: true})
			require.NoError(t, err)
			require.Equal(t, full.Total, top.Total, "%q limit %d", q, limit)
			require.Equal(t, full.Matches[:min(limit, len(full.Matches))], top.Matches, "%q limit %d", q, limit)
		}
	}
}

// TestRefineByTypingEqualsFullSearch covers the bounded refinement: typing queries letter
// by letter over a list where scores tie often (the Go tree repeated under other prefixes),
// with accented copies and a few candidates added between keys, every keystroke's Refine returns the same
// total, order, scores and positions as a full search, for small and large limits and for
// letters that repeat, change case or extend past every match.
func TestRefineByTypingEqualsFullSearch(t *testing.T) {
	goroot, err := pathgen.GoRootFiles()
	require.NoError(t, err)
	var items []string
	for _, prefix := range []string{"", "copy1/", "a/b/copy2/", "é/", "Über/"} {
		for _, p := range goroot {
			items = append(items, prefix+p)
		}
	}
	items = append(items, "src/rüntime/prôc.go", "GORÜNT", "résumé/ñet/http/sérver.go", "ｇｏｒｕｎｔ")
	ctx := context.Background()
	for _, limit := range []int{1, 10, 200} {
		store := fuzzy.NewStore(items)
		for qi, q := range []string{"gorunt", "nethttpserver", "tsparse", "sssss", "reaDME", "mgcmark", "zzzq", "src/runtime/proc.go"} {
			opt := fuzzy.Options{Limit: limit}
			var prev *fuzzy.Result
			for k := 1; k <= len(q); k++ {
				p := fuzzy.ParsePattern(q[:k])
				if k%3 == 0 {
					store.Add(fmt.Sprintf("added/%d/%s", qi, q))
				}
				full, err := fuzzy.Search(ctx, store, p, opt)
				require.NoError(t, err)
				got := full
				if prev != nil {
					got, err = prev.Refine(ctx, p, opt)
					require.NoError(t, err)
				}
				require.Equal(t, full.Total, got.Total, "limit %d, %q", limit, q[:k])
				require.Equal(t, full.Matches, got.Matches, "limit %d, %q", limit, q[:k])
				prev = got
			}
		}
	}
}

// TestFirstRanksAPrefixThatRefinesToTheWhole covers Options.First: a search limited to the
// first candidates ranks exactly like a search of a store holding only those, from scratch
// or refining a previous result, and refining it with no limit ranks like a full search.
func TestFirstRanksAPrefixThatRefinesToTheWhole(t *testing.T) {
	items := pathgen.Synthetic(20000)
	store := fuzzy.NewStore(items)
	head := fuzzy.NewStore(items[:5000])
	ctx := context.Background()
	opt := fuzzy.Options{Limit: 50}
	first := fuzzy.Options{Limit: 50, First: 5000}
	var prev *fuzzy.Result
	for _, q := range []string{"r", "re", "ren", "render", "render go", "x | render"} {
		p := fuzzy.ParsePattern(q)
		want, err := fuzzy.Search(ctx, head, p, opt)
		require.NoError(t, err)
		part, err := fuzzy.Search(ctx, store, p, first)
		require.NoError(t, err)
		require.Equal(t, want.Total, part.Total, q)
		require.Equal(t, want.Matches, part.Matches, q)
		if prev != nil {
			got, err := prev.Refine(ctx, p, first)
			require.NoError(t, err)
			require.Equal(t, want.Matches, got.Matches, q)
		}
		full, err := fuzzy.Search(ctx, store, p, opt)
		require.NoError(t, err)
		whole, err := part.Refine(ctx, p, opt)
		require.NoError(t, err)
		require.Equal(t, full.Total, whole.Total, q)
		require.Equal(t, full.Matches, whole.Matches, q)
		prev = full
	}
}

// TestRefineBoundsSurviveALongGap covers a narrowing keystroke whose new letter lies far
// past the previous match: the alignment restarts there (the gap costs more than the
// previous letters scored), so the match scores more than its previous score plus a
// gapped letter, and the bound must allow for it. Both texts score the same and the
// shorter, whose gap is longer, must come first, as in a full search.
func TestRefineBoundsSurviveALongGap(t *testing.T) {
	longGap := "a" + strings.Repeat("x", 60) + "b"
	shortGap := "a" + strings.Repeat("x", 40) + "b" + strings.Repeat("y", 50)
	store := fuzzy.NewStore([]string{shortGap, longGap})
	ctx := context.Background()
	opt := fuzzy.Options{Limit: 1}
	prev, err := fuzzy.Search(ctx, store, fuzzy.ParsePattern("a"), opt)
	require.NoError(t, err)
	p := fuzzy.ParsePattern("ab")
	full, err := fuzzy.Search(ctx, store, p, opt)
	require.NoError(t, err)
	require.Equal(t, 1, full.Matches[0].Index)
	got, err := prev.Refine(ctx, p, opt)
	require.NoError(t, err)
	require.Equal(t, full.Matches, got.Matches)
}

// TestTypingEqualsPlainRanking covers the bounded, seeded refinement against the plainest
// ranking there is (every match aligned, no limit, then cut): on random lists of real
// paths (the Go tree under random prefixes, some upper-cased or accented, in random
// order and sizes) and queries typed letter by letter (subsequences of random paths, with
// a wrong letter now and then), every keystroke's Refine returns the same total and the
// same first matches, with their scores, for small and large limits and one or two
// threads.
func TestTypingEqualsPlainRanking(t *testing.T) {
	goroot, err := pathgen.GoRootFiles()
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(31, 16))
	prefixes := []string{"", "copy1/", "a/b/", "Vendor/", "src/", "é/", "x/y/z/w/"}
	ctx := context.Background()
	for round := range 3 {
		n := 2000 + r.IntN(12000)
		items := make([]string, n)
		for i := range items {
			items[i] = prefixes[r.IntN(len(prefixes))] + goroot[r.IntN(len(goroot))]
			if r.IntN(50) == 0 {
				items[i] = strings.ToUpper(items[i])
			}
		}
		store := fuzzy.NewStore(items)
		for range 6 {
			src := strings.ToLower(items[r.IntN(n)])
			var q []byte
			for i := 0; i < len(src) && len(q) < 3+r.IntN(8); i += 1 + r.IntN(4) {
				if c := src[i]; c < 0x80 && c != ' ' {
					q = append(q, c)
				}
			}
			if len(q) > 1 && r.IntN(4) == 0 {
				q[r.IntN(len(q))] = "etaoinsrq"[r.IntN(9)]
			}
			limit := []int{1, 7, 50, 200}[r.IntN(4)]
			opt := fuzzy.Options{Limit: limit, Threads: 1 + r.IntN(2), NoPositions: true}
			var prev *fuzzy.Result
			for k := 1; k <= len(q); k++ {
				p := fuzzy.ParsePattern(string(q[:k]))
				plain, err := fuzzy.Search(ctx, store, p, fuzzy.Options{NoPositions: true})
				require.NoError(t, err)
				got, err := fuzzy.Search(ctx, store, p, opt)
				if prev != nil {
					got, err = prev.Refine(ctx, p, opt)
				}
				require.NoError(t, err)
				want := plain.Matches[:min(limit, len(plain.Matches))]
				require.Equal(t, plain.Total, got.Total, "round %d, %q, limit %d", round, q[:k], limit)
				require.Equal(t, want, got.Matches, "round %d, %q, limit %d", round, q[:k], limit)
				prev = got
			}
		}
	}
}
