package textsearch

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/kinds/kindtest"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// An index filled by a capped search answers for every match: its total,
// the number before any position, the next and previous match from any
// position (across blocks of rows without a match) and a row's matches
// all agree with a regex over every row, past the delivery cap.
func TestIndexAnswersForEveryMatchPastTheCap(t *testing.T) {
	// Three blocks and a half; the second holds no match at all.
	lines := make([]string, 3*IndexBlock+500)
	for i := range lines {
		switch {
		case i/IndexBlock == 1:
			lines[i] = "nothing here"
		case i%7 == 0:
			lines[i] = fmt.Sprintf("%d ab xab ab", i)
		default:
			lines[i] = fmt.Sprintf("%d ab", i)
		}
	}
	want := naiveHits(lines, regexp.MustCompile(`ab`))
	idx := NewIndex()
	rt := kindtest.New(t, 2)
	res := kindtest.Drain(t, rt, Dispatch(rt, Spec{Text: NewSnapshot(lines), Pattern: "ab", MaxResults: 10, Index: idx},
		runtime.DispatchOptions{}), time.Millisecond, 5*time.Second)
	require.Equal(t, runtime.Complete, res.Outcome.State)
	require.Len(t, textHits(t, ints(res)), 10, "the stream stops at the cap")
	require.True(t, idx.Done())
	require.Equal(t, len(want), idx.Total())

	for i, h := range want {
		require.Equal(t, i, idx.Before(int(h.row), int(h.s)), "matches before %v", h)
		row, s, e, ok := idx.Next(int(h.row), int(h.s), true, true)
		require.True(t, ok)
		require.Equal(t, h, textHit{uint64(row), uint64(s), uint64(e)}, "inclusive next at %v", h)
		row, s, _, ok = idx.Next(int(h.row), int(h.s), true, false)
		if i+1 < len(want) {
			require.True(t, ok)
			require.Equal(t, want[i+1], textHit{uint64(row), uint64(s), want[i+1].e}, "next after %v", h)
		} else {
			require.False(t, ok, "nothing after the last")
		}
		row, s, _, ok = idx.Next(int(h.row), int(h.s), false, false)
		if i > 0 {
			require.True(t, ok)
			require.Equal(t, want[i-1], textHit{uint64(row), uint64(s), want[i-1].e}, "previous before %v", h)
		} else {
			require.False(t, ok, "nothing before the first")
		}
	}
	// From the empty block, the next match is the first of the third.
	row, s, _, ok := idx.Next(IndexBlock+3, 0, true, true)
	require.True(t, ok)
	require.Equal(t, 2*IndexBlock, row)
	require.Equal(t, len(fmt.Sprint(2*IndexBlock))+1, s)
	row, _, _, ok = idx.Next(2*IndexBlock-1, 0, false, false)
	require.True(t, ok)
	require.Equal(t, IndexBlock-1, row, "back over the empty block")

	var got []int
	idx.Row(7, func(s, e int) { got = append(got, s, e) })
	require.Equal(t, []int{2, 4, 6, 8, 9, 11}, got)

	require.ErrorContains(t, Spec{Text: NewSnapshot(lines), Pattern: "ab", Index: idx}.Check(), "already filled",
		"one index serves one search")
}

// A cancelled search never makes its index done.
func TestIndexOfACancelledSearchIsNotDone(t *testing.T) {
	lines := make([]string, 2_000_000)
	for i := range lines {
		lines[i] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"
	}
	snap := NewSnapshot(lines)
	idx := NewIndex()
	rt := kindtest.New(t, 2)
	first := Dispatch(rt, Spec{Text: snap, Pattern: "a+b", Regex: true, Index: idx}, runtime.DispatchOptions{Key: "isearch"})
	second := Dispatch(rt, Spec{Text: snap, Pattern: "zzz"}, runtime.DispatchOptions{Key: "isearch"})
	got := kindtest.DrainAll(t, rt, 20*time.Second, first, second)
	require.Equal(t, runtime.Cancelled, got[first].Outcome.State)
	require.False(t, idx.Done())
}
