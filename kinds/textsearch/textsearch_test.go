package textsearch

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/kinds/kindtest"
	"github.com/pmacs-go/pmacs-go/runtime"
)

type textHit struct{ row, s, e uint64 }

func textHits(t *testing.T, ints []uint64) []textHit {
	t.Helper()
	require.Zero(t, len(ints)%3, "matches come as whole triples")
	var out []textHit
	for i := 0; i < len(ints); i += 3 {
		out = append(out, textHit{ints[i], ints[i+1], ints[i+2]})
	}
	return out
}

// naiveHits is the reference: every row's regex matches, in text order.
func naiveHits(lines []string, re *regexp.Regexp) []textHit {
	var out []textHit
	for row, l := range lines {
		for _, m := range re.FindAllStringIndex(l, -1) {
			if m[1] > m[0] {
				out = append(out, textHit{uint64(row), uint64(m[0]), uint64(m[1])})
			}
		}
	}
	return out
}

// A text search finds what a regex over each row finds, for literal,
// case-folded (ASCII and not) and regex patterns, in text order when no
// window is given; the final progress is the count.
func TestTextSearchMatchesNaiveReference(t *testing.T) {
	lines := []string{"Func main() {", "\tfunc(x) func", "", "ÉTÉ été Été", "funcfunc FUNC", "none"}
	rt := kindtest.New(t, 2)
	for _, c := range []struct {
		spec Spec
		re   string
	}{
		{Spec{Pattern: "func"}, `func`},
		{Spec{Pattern: "func", IgnoreCase: true}, `(?i)func`},
		{Spec{Pattern: "été", IgnoreCase: true}, `(?i)été`},
		{Spec{Pattern: `f\w+c`, Regex: true}, `f\w+c`},
		{Spec{Pattern: `x*`, Regex: true}, `x*`},
		{Spec{Pattern: "(", IgnoreCase: true}, `\(`},
	} {
		c.spec.Text = NewSnapshot(lines)
		res := kindtest.Drain(t, rt, Dispatch(rt, c.spec, runtime.DispatchOptions{}), time.Millisecond, 5*time.Second)
		require.Equal(t, runtime.Complete, res.Outcome.State, c.spec.Pattern)
		want := naiveHits(lines, regexp.MustCompile(c.re))
		require.Equal(t, want, textHits(t, ints(res)), c.spec.Pattern)
		require.Equal(t, uint64(len(want)), res.Progress, c.spec.Pattern)
		require.False(t, c.spec.Text.InUse(), "the worker is done with the snapshot")
	}
}

// The window's rows come first, then the rest from the top; the cap stops
// delivery but not the count.
func TestTextSearchWindowFirstAndCap(t *testing.T) {
	lines := make([]string, 5000)
	for i := range lines {
		lines[i] = "x needle y needle"
	}
	rt := kindtest.New(t, 2)
	res := kindtest.Drain(t, rt, Dispatch(rt, Spec{
		Text: NewSnapshot(lines), Pattern: "needle", FirstRow: 4000, EndRow: 4010,
	}, runtime.DispatchOptions{}), time.Millisecond, 5*time.Second)
	hits := textHits(t, ints(res))
	require.Len(t, hits, 10000)
	require.Equal(t, textHit{4000, 2, 8}, hits[0], "the window comes first")
	require.Equal(t, textHit{4009, 11, 17}, hits[19])
	require.Equal(t, textHit{0, 2, 8}, hits[20], "then the text from the top")

	res = kindtest.Drain(t, rt, Dispatch(rt, Spec{
		Text: NewSnapshot(lines), Pattern: "needle", MaxResults: 7,
	}, runtime.DispatchOptions{MaxBatch: 10}), time.Millisecond, 5*time.Second)
	require.Len(t, textHits(t, ints(res)), 7)
	require.Equal(t, uint64(10000), res.Progress, "counting goes on past the cap")
	require.LessOrEqual(t, res.MaxLen, 9, "a batch holds whole matches")
}

// A spec that cannot run fails the job with a message, never a panic.
func TestTextSearchBadSpecFails(t *testing.T) {
	rt := kindtest.New(t, 2)
	for _, spec := range []Spec{
		{Pattern: "x"},
		{Text: NewSnapshot([]string{"a"}), Pattern: ""},
		{Text: NewSnapshot([]string{"a"}), Pattern: "(", Regex: true},
	} {
		res := kindtest.Drain(t, rt, Dispatch(rt, spec, runtime.DispatchOptions{}), time.Millisecond, 5*time.Second)
		require.Equal(t, runtime.Failed, res.Outcome.State)
		require.Contains(t, res.Outcome.Err.Error(), "invalid text search")
	}
}

// A second search under the same key supersedes the first, which stops
// reading the snapshot.
func TestTextSearchSupersededStops(t *testing.T) {
	lines := make([]string, 2_000_000)
	for i := range lines {
		lines[i] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"
	}
	snap := NewSnapshot(lines)
	rt := kindtest.New(t, 2)
	first := Dispatch(rt, Spec{Text: snap, Pattern: "a+b", Regex: true}, runtime.DispatchOptions{Key: "isearch"})
	second := Dispatch(rt, Spec{Text: snap, Pattern: "zzz"}, runtime.DispatchOptions{Key: "isearch"})
	got := kindtest.DrainAll(t, rt, 20*time.Second, first, second)
	require.Equal(t, runtime.Cancelled, got[first].Outcome.State)
	require.Equal(t, runtime.Complete, got[second].Outcome.State)
	kindtest.PumpUntil(t, rt, func() bool { return !snap.InUse() })
}

// A retired snapshot (its owner now writes into its lines) cannot be
// searched any more: the job fails rather than racing the writes.
func TestTextSearchRetiredSnapshotFails(t *testing.T) {
	snap := NewSnapshot([]string{"a"})
	snap.Retire()
	rt := kindtest.New(t, 2)
	res := kindtest.Drain(t, rt, Dispatch(rt, Spec{Text: snap, Pattern: "a"}, runtime.DispatchOptions{}), time.Millisecond, 5*time.Second)
	require.Equal(t, runtime.Failed, res.Outcome.State)
	require.Contains(t, res.Outcome.Err.Error(), "the text changed")
	require.False(t, snap.InUse())
}

// ints is what a drained search delivered.
func ints(res kindtest.Stream) []uint64 {
	m, _ := res.Items.(Matches)
	return m
}

// Issue 31 (resident size after searches): a search allocates per batch,
// not per row. Its match callback captured the row being scanned, so a
// closure was made for every row: 48 bytes a row, 250 MB of garbage a
// search of a 60 MB file, which the collector's headroom let stay
// resident.
func TestTextSearchAllocatesNothingPerRow(t *testing.T) {
	lines := make([]string, 100_000)
	for i := range lines {
		lines[i] = "func f() { return }"
	}
	spec := Spec{Text: NewSnapshot(lines), Pattern: "retur", MaxResults: 10, Index: NewIndex()}
	allocs := testing.AllocsPerRun(3, func() {
		spec.Index = NewIndex()
		require.NoError(t, runTextSearch(context.Background(), spec, func([]uint64, uint64) error { return nil }))
	})
	require.Less(t, allocs, 100.0, "allocations of a search of %d rows", len(lines))
}
