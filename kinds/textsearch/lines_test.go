package textsearch

import (
	"iter"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/kinds/kindtest"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// rowsOnly is a Lines whose Row is never to be called: a store that finds
// rows by scanning, where a search must walk them with Rows.
type rowsOnly struct{ s SliceLines }

func (r rowsOnly) Len() int { return r.s.Len() }
func (r rowsOnly) Row(int) string {
	panic("a search walks its rows with Rows")
}
func (r rowsOnly) Rows(from, to int) iter.Seq2[int, string] { return r.s.Rows(from, to) }

// A snapshot over an owner's own store (NewSnapshotOf) searches as one over
// a slice does, walking the store with Rows; SliceLines.Rows cuts a range
// to the rows there are.
func TestSnapshotOfAStoreSearchesLikeASlice(t *testing.T) {
	lines := []string{"alpha", "beta ab", "gamma", "ab ab", ""}
	rt := kindtest.New(t, 2)
	search := func(s *Snapshot) []uint64 {
		res := kindtest.Drain(t, rt, Dispatch(rt, Spec{Text: s, Pattern: "ab"}, runtime.DispatchOptions{}), time.Millisecond, 5*time.Second)
		require.Equal(t, runtime.Complete, res.Outcome.State)
		return ints(res)
	}
	require.Equal(t, search(NewSnapshot(lines)), search(NewSnapshotOf(rowsOnly{SliceLines(lines)})))
	require.NotEmpty(t, search(NewSnapshotOf(rowsOnly{SliceLines(lines)})))

	var got []string
	for i, r := range SliceLines(lines).Rows(-3, 99) {
		require.Equal(t, lines[i], r)
		got = append(got, r)
	}
	require.Equal(t, lines, got)
	for range SliceLines(lines).Rows(4, 2) {
		t.Fatal("an empty range yields nothing")
	}
}
