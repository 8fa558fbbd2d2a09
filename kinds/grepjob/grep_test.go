package grepjob

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/pmacs-go/pmacs-go/kinds/kindtest"
	"github.com/pmacs-go/pmacs-go/runtime"
)

func makeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	testenv.WriteTree(t, dir, files)
	return dir
}

// Known matches come back with their lines, text and offsets (ported:
// grep_finds_known_matches_in_synthetic_tree).
func TestGrepFindsKnownMatchesInSyntheticTree(t *testing.T) {
	root := makeTree(t, map[string]string{
		"src/a.txt":     "first\nneedle here\nthird\n",
		"src/b.txt":     "no match here\n",
		"src/sub/c.txt": "alpha needle\nbeta\nneedle\n",
		"README.md":     "needle\n",
	})
	rt := newRT(t, 4)
	res := drainStream(t, rt, rt.DispatchGrep(grep.Spec{Root: root, Pattern: "needle"}, DispatchOptions{}), time.Millisecond, 5*time.Second)
	require.Equal(t, Complete, res.outcome.State)
	require.Len(t, res.matches, 4)
	require.Equal(t, uint64(4), res.progress, "the closing batch reports files searched")
	byFile := map[string][]grep.Match{}
	for _, m := range res.matches {
		byFile[m.File] = append(byFile[m.File], m)
	}
	a := byFile["src/a.txt"]
	require.Len(t, a, 1)
	require.Equal(t, grep.Match{File: "src/a.txt", Line: 2, Text: "needle here", MatchStart: 0, MatchEnd: 6, Spans: [][2]uint32{{0, 6}}}, a[0])
	require.Len(t, byFile["src/sub/c.txt"], 2)
}

// Case-insensitive mode folds (ported: grep_case_insensitive_matches_mixed_case).
func TestGrepCaseInsensitiveMatchesMixedCase(t *testing.T) {
	root := makeTree(t, map[string]string{"a.txt": "FOO\nfoo\nFoO\n"})
	rt := newRT(t, 2)
	res := drainStream(t, rt, rt.DispatchGrep(grep.Spec{Root: root, Pattern: "foo", IgnoreCase: true}, DispatchOptions{}), time.Millisecond, 5*time.Second)
	require.Len(t, res.matches, 3)
}

// Binary and oversize files are skipped (ported: grep_skips_binary_and_oversize_files).
func TestGrepSkipsBinaryAndOversizeFiles(t *testing.T) {
	root := makeTree(t, map[string]string{
		"bin.dat":   "prefix\x00needle suffix\n",
		"big.txt":   strings.Repeat("needle\n", 400),
		"small.txt": "needle\n",
	})
	rt := newRT(t, 2)
	res := drainStream(t, rt, rt.DispatchGrep(grep.Spec{Root: root, Pattern: "needle", MaxFileBytes: 1024}, DispatchOptions{}), time.Millisecond, 5*time.Second)
	require.Len(t, res.matches, 1)
	require.Equal(t, "small.txt", res.matches[0].File)
}

// Superseding a running grep cancels it within 50 ms, on the best of three
// attempts (ported: grep_supersede_cancels_predecessor_within_50ms). The
// predecessor is held at its first match until its successor has been
// dispatched, so it is running when superseded however fast the machine:
// the first file matches, the 5,000 after it do not, and a predecessor that
// went on searching would settle Complete.
func TestGrepSupersedeCancelsPredecessorWithin50ms(t *testing.T) {
	files := map[string]string{"a0000.txt": "needle\n"}
	body := strings.Repeat("noise noise noise noise noise\n", 50)
	for i := range 5000 {
		files[fmt.Sprintf("f%05d.txt", i)] = body
	}
	root := makeTree(t, files)
	matched, release := make(chan struct{}, 1), make(chan struct{})
	setHook(t, &grepEmitHook, func() {
		matched <- struct{}{}
		waitOrPanic(release)
	})
	rt := newRT(t, 4)
	defer close(release)
	attempt := 0
	best := kindtest.BestOfThree(50*time.Millisecond, func() time.Duration {
		attempt++
		key := fmt.Sprint("search", attempt)
		prior := rt.DispatchGrep(grep.Spec{Root: root, Pattern: "needle", Fanout: 1}, DispatchOptions{Key: key})
		select {
		case <-matched:
		case <-time.After(10 * time.Second):
			t.Fatal("the predecessor never reached its first match")
		}
		started := time.Now()
		rt.DispatchGrep(grep.Spec{Root: root, Pattern: "alpha", Fanout: 1}, DispatchOptions{Key: key})
		release <- struct{}{} // let the held predecessor go on, now cancelled
		var outcome *Outcome
		for outcome == nil {
			require.Less(t, time.Since(started), 5*time.Second, "the superseded grep never closed")
			rt.Tick()
			for _, b := range rt.TakeStreamBatches() {
				if b.ID == prior && b.Closed {
					outcome = &b.Outcome
				}
			}
			waitReady(rt, time.Millisecond)
		}
		took := time.Since(started)
		require.Equal(t, Cancelled, outcome.State)
		return took
	})
	t.Logf("supersede cancelled a running grep in %v", best)
	require.Less(t, best, 50*time.Millisecond, "grep supersede did not cancel within 50ms in three attempts")
}

// A saturating match rate is coalesced: 500 matches at cap 64 arrive in at
// most 64 batches, none over the cap (ported: grep_coalesces_saturating_match_rate).
func TestGrepCoalescesSaturatingMatchRate(t *testing.T) {
	root := makeTree(t, map[string]string{"dense.txt": strings.Repeat("needle\n", 500)})
	rt := newRT(t, 2)
	res := drainStream(t, rt, rt.DispatchGrep(grep.Spec{Root: root, Pattern: "needle"}, DispatchOptions{MaxBatch: 64}), 16*time.Millisecond, 5*time.Second)
	require.Len(t, res.matches, 500)
	require.LessOrEqual(t, res.maxLen, 64)
	require.LessOrEqual(t, res.batches, 64)
}

// 1000 small files are all searched (ported: grep_parallel_search_completes_at_synthetic_scale).
func TestGrepParallelSearchCompletesAtSyntheticScale(t *testing.T) {
	files := map[string]string{}
	for i := range 1000 {
		files[fmt.Sprintf("f%04d.txt", i)] = fmt.Sprintf("header line\nnoise noise noise\nneedle line %d\nfooter\n", i)
	}
	root := makeTree(t, files)
	rt := newRT(t, 4)
	res := drainStream(t, rt, rt.DispatchGrep(grep.Spec{Root: root, Pattern: "needle"}, DispatchOptions{}), time.Millisecond, 5*time.Second)
	require.Len(t, res.matches, 1000)
	seen := map[string]bool{}
	for _, m := range res.matches {
		require.Equal(t, uint32(3), m.Line)
		require.False(t, seen[m.File], "duplicate match for %s", m.File)
		seen[m.File] = true
	}
}

// Long lines are cut to max_match_text (ported: grep_truncates_long_lines_to_max_match_text).
func TestGrepTruncatesLongLines(t *testing.T) {
	root := makeTree(t, map[string]string{"long.txt": "needle " + strings.Repeat("x", 16*1024) + "\n"})
	rt := newRT(t, 2)
	res := drainStream(t, rt, rt.DispatchGrep(grep.Spec{Root: root, Pattern: "needle", MaxMatchText: 128}, DispatchOptions{}), time.Millisecond, 5*time.Second)
	require.Len(t, res.matches, 1)
	require.LessOrEqual(t, len(res.matches[0].Text), 128)
	require.True(t, strings.HasPrefix(res.matches[0].Text, "needle"))
}

// The empty pattern matches nothing and closes cleanly (ported:
// grep_empty_pattern_emits_no_matches).
func TestGrepEmptyPatternEmitsNoMatches(t *testing.T) {
	root := makeTree(t, map[string]string{"a.txt": "any line\n"})
	rt := newRT(t, 2)
	res := drainStream(t, rt, rt.DispatchGrep(grep.Spec{Root: root}, DispatchOptions{}), time.Millisecond, 5*time.Second)
	require.Empty(t, res.matches)
	require.Equal(t, Complete, res.outcome.State)
}

// Bad input fails the job with a clear message rather than an empty success.
func TestGrepBadInputFailsTheJob(t *testing.T) {
	root := makeTree(t, map[string]string{"a.txt": "x\n"})
	rt := newRT(t, 2)
	cases := map[string]grep.Spec{
		"no such":   {Root: filepath.Join(root, "missing"), Pattern: "x"},
		"not a dir": {Root: filepath.Join(root, "a.txt"), Pattern: "x"},
		"bad regex": {Root: root, Pattern: "(", Regex: true},
		"nul":       {Root: root, Pattern: "a\x00b"},
	}
	for name, spec := range cases {
		res := drainStream(t, rt, rt.DispatchGrep(spec, DispatchOptions{}), time.Millisecond, 5*time.Second)
		require.Equal(t, Failed, res.outcome.State, name)
		require.NotEmpty(t, jobErr(t, res.outcome.Err).Message, name)
	}
}

// A million matches with nobody draining hold bounded memory: the stream
// never buffers more than its credit plus one producer batch per fanout
// goroutine (issue 3: bounded memory with a slow consumer).
func TestGrepUndrainedHoldsBoundedMemory(t *testing.T) {
	root := makeTree(t, map[string]string{"a.txt": strings.Repeat("needle\n", 20_000), "b.txt": strings.Repeat("needle\n", 20_000)})
	rt, err := New(Options{StreamCredit: 2000})
	require.NoError(t, err)
	t.Cleanup(rt.Close)
	// One batch takes everything buffered: what waits undrained only grows,
	// so its size at the end is the most the stream held.
	id := rt.DispatchGrep(grep.Spec{Root: root, Pattern: "needle", Fanout: 2}, DispatchOptions{MaxBatch: runtime.MaxMaxBatch})
	deadline := time.Now().Add(150 * time.Millisecond)
	for time.Now().Before(deadline) {
		rt.Tick()
		waitReady(rt, time.Millisecond)
	}
	require.False(t, rt.IsComplete(id))
	rt.Tick()
	held := rt.TakeStreamBatches()
	require.Len(t, held, 1)
	require.LessOrEqual(t, held[0].Len(), 2000+20_000)
	res := drainStream(t, rt, id, time.Millisecond, 10*time.Second)
	require.Equal(t, Complete, res.outcome.State)
	require.Len(t, res.matches, 40_000-held[0].Len(), "nothing is lost when the consumer catches up")
}

// A running grep reports how many files it has searched, before it ends and
// whether or not they matched. Two files match; the search is held at the
// first match until the progress reporter has sent a count, so a count is
// seen while the search runs however fast the machine (with one fanout
// goroutine the second matching file is not yet searched, so that count is
// below the total).
func TestGrepReportsProgressWhileRunning(t *testing.T) {
	files := map[string]string{}
	for i := range 3000 {
		files[fmt.Sprintf("d%02d/f%04d.txt", i%30, i)] = strings.Repeat("noise noise noise\n", 40)
	}
	files["d07/f1007.txt"] = "needle\n"
	files["d13/f2013.txt"] = "needle\n"
	root := makeTree(t, files)
	reported, seenByMain := make(chan struct{}), make(chan struct{})
	var once, onceSeen sync.Once
	setHook(t, &grepProgressHook, func() { once.Do(func() { close(reported) }) })
	setHook(t, &grepEmitHook, func() { waitOrPanic(seenByMain) })
	rt := newRT(t, 4)
	defer func(d time.Duration) { grepProgressEvery = d }(grepProgressEvery)
	grepProgressEvery = 100 * time.Microsecond
	id := rt.DispatchGrep(grep.Spec{Root: root, Pattern: "needle", Fanout: 1}, DispatchOptions{})
	var seen []uint64
	var final Outcome
	closed := false
	deadline := time.Now().Add(20 * time.Second)
	for !closed {
		require.True(t, time.Now().Before(deadline))
		rt.Tick()
		if p, ok := rt.StreamProgress(id); ok && p > 0 && !rt.IsComplete(id) {
			seen = append(seen, p)
			select {
			case <-reported:
				onceSeen.Do(func() { close(seenByMain) })
			default:
			}
		}
		for _, b := range rt.TakeStreamBatches() {
			if b.ID == id && b.Closed {
				closed, final = true, b.Outcome
				require.Equal(t, uint64(len(files)), b.Progress)
			}
		}
		waitReady(rt, time.Millisecond)
	}
	require.Equal(t, Complete, final.State)
	require.NotEmpty(t, seen, "progress was reported while the search ran")
	require.True(t, slices.IsSorted(seen), "progress only grows: %v", seen)
	require.Less(t, seen[0], uint64(len(files)))
	_, ok := rt.StreamProgress(id)
	require.False(t, ok, "a closed stream is gone")
}
