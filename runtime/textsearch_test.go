package runtime

import (
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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
	rt := newRT(t, 2)
	for _, c := range []struct {
		spec TextSearchSpec
		re   string
	}{
		{TextSearchSpec{Pattern: "func"}, `func`},
		{TextSearchSpec{Pattern: "func", IgnoreCase: true}, `(?i)func`},
		{TextSearchSpec{Pattern: "été", IgnoreCase: true}, `(?i)été`},
		{TextSearchSpec{Pattern: `f\w+c`, Regex: true}, `f\w+c`},
		{TextSearchSpec{Pattern: `x*`, Regex: true}, `x*`},
		{TextSearchSpec{Pattern: "(", IgnoreCase: true}, `\(`},
	} {
		c.spec.Text = NewTextSnapshot(lines)
		res := drainStream(t, rt, rt.DispatchTextSearch(c.spec, DispatchOptions{}), time.Millisecond, 5*time.Second)
		require.Equal(t, Complete, res.outcome.State, c.spec.Pattern)
		want := naiveHits(lines, regexp.MustCompile(c.re))
		require.Equal(t, want, textHits(t, res.ints), c.spec.Pattern)
		require.Equal(t, uint64(len(want)), res.progress, c.spec.Pattern)
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
	rt := newRT(t, 2)
	res := drainStream(t, rt, rt.DispatchTextSearch(TextSearchSpec{
		Text: NewTextSnapshot(lines), Pattern: "needle", FirstRow: 4000, EndRow: 4010,
	}, DispatchOptions{}), time.Millisecond, 5*time.Second)
	hits := textHits(t, res.ints)
	require.Len(t, hits, 10000)
	require.Equal(t, textHit{4000, 2, 8}, hits[0], "the window comes first")
	require.Equal(t, textHit{4009, 11, 17}, hits[19])
	require.Equal(t, textHit{0, 2, 8}, hits[20], "then the text from the top")

	res = drainStream(t, rt, rt.DispatchTextSearch(TextSearchSpec{
		Text: NewTextSnapshot(lines), Pattern: "needle", MaxResults: 7,
	}, DispatchOptions{MaxBatch: 10}), time.Millisecond, 5*time.Second)
	require.Len(t, textHits(t, res.ints), 7)
	require.Equal(t, uint64(10000), res.progress, "counting goes on past the cap")
	require.LessOrEqual(t, res.maxLen, 9, "a batch holds whole matches")
}

// A spec that cannot run fails the job with a message, never a panic.
func TestTextSearchBadSpecFails(t *testing.T) {
	rt := newRT(t, 2)
	for _, spec := range []TextSearchSpec{
		{Pattern: "x"},
		{Text: NewTextSnapshot([]string{"a"}), Pattern: ""},
		{Text: NewTextSnapshot([]string{"a"}), Pattern: "(", Regex: true},
	} {
		res := drainStream(t, rt, rt.DispatchTextSearch(spec, DispatchOptions{}), time.Millisecond, 5*time.Second)
		require.Equal(t, Failed, res.outcome.State)
		require.Contains(t, res.outcome.Err.Error(), "invalid text search")
	}
}

// A second search under the same key supersedes the first, which stops
// reading the snapshot.
func TestTextSearchSupersededStops(t *testing.T) {
	lines := make([]string, 2_000_000)
	for i := range lines {
		lines[i] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"
	}
	snap := NewTextSnapshot(lines)
	rt := newRT(t, 2)
	first := rt.DispatchTextSearch(TextSearchSpec{Text: snap, Pattern: "a+b", Regex: true}, DispatchOptions{Key: "isearch"})
	second := rt.DispatchTextSearch(TextSearchSpec{Text: snap, Pattern: "zzz"}, DispatchOptions{Key: "isearch"})
	got := drainStreams(t, rt, 20*time.Second, first, second)
	require.Equal(t, Cancelled, got[first].outcome.State)
	require.Equal(t, Complete, got[second].outcome.State)
	pumpUntil(t, rt, func() bool { return !snap.InUse() })
}

// A retired snapshot (its owner now writes into its lines) cannot be
// searched any more: the job fails rather than racing the writes.
func TestTextSearchRetiredSnapshotFails(t *testing.T) {
	snap := NewTextSnapshot([]string{"a"})
	snap.Retire()
	rt := newRT(t, 2)
	res := drainStream(t, rt, rt.DispatchTextSearch(TextSearchSpec{Text: snap, Pattern: "a"}, DispatchOptions{}), time.Millisecond, 5*time.Second)
	require.Equal(t, Failed, res.outcome.State)
	require.Contains(t, res.outcome.Err.Error(), "the text changed")
	require.False(t, snap.InUse())
}
