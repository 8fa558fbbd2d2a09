package runtime

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestJobTableKeepsJobsWhoseSlotIsTaken covers the pending table's two
// homes: a job whose ring slot an older pending job holds goes to the
// overflow map, stays findable there after the older one leaves, and every
// job is yielded once by all, even while the loop deletes what it is given.
func TestJobTableKeepsJobsWhoseSlotIsTaken(t *testing.T) {
	var tb jobTable
	old := &job{t: Task{id: 5}}
	tb.put(old)
	clash := &job{t: Task{id: 5 + tableSlots}}
	tb.put(clash)
	next := &job{t: Task{id: 6}}
	tb.put(next)
	require.Equal(t, 3, tb.len())
	require.Same(t, old, tb.get(5))
	require.Same(t, clash, tb.get(5+tableSlots))
	require.Nil(t, tb.get(5+2*tableSlots), "an id never put is not found in its slot's place")

	tb.del(5)
	require.Nil(t, tb.get(5))
	require.Same(t, clash, tb.get(5+tableSlots), "the overflowed job stays where it was put")
	tb.del(5)
	require.Equal(t, 2, tb.len(), "deleting an absent id changes nothing")
	later := &job{t: Task{id: 5 + 2*tableSlots}}
	tb.put(later)
	require.Same(t, later, tb.get(5+2*tableSlots), "the freed slot takes the next job")

	seen := map[JobID]int{}
	for j := range tb.all() {
		seen[j.t.id]++
		tb.del(j.t.id)
	}
	require.Equal(t, map[JobID]int{6: 1, 5 + tableSlots: 1, 5 + 2*tableSlots: 1}, seen)
	require.Zero(t, tb.len())
	for range tb.all() {
		t.Fatal("an empty table yields nothing")
	}
}
