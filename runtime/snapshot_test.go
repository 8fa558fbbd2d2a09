package runtime

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Active jobs are listed oldest first with kind, key, age and flags (ported:
// workers_snapshot_lists_active_jobs).
func TestSnapshotListsActiveJobs(t *testing.T) {
	rt := newRT(t, 2)
	sleep := rt.DispatchSleep(2*time.Second, DispatchOptions{Key: "sleeper"})
	sum := rt.DispatchSum(1<<62, DispatchOptions{})
	stream := rt.DispatchEmitN(1<<40, DispatchOptions{})
	time.Sleep(5 * time.Millisecond) // age must be observably non-zero
	snap := rt.Snapshot()
	require.Empty(t, snap.Completed)
	require.Len(t, snap.Active, 3)
	require.Equal(t, []JobID{sleep, sum, stream}, []JobID{snap.Active[0].ID, snap.Active[1].ID, snap.Active[2].ID})
	require.Equal(t, KindSleep, snap.Active[0].Kind)
	require.Equal(t, "sleeper", snap.Active[0].Key)
	require.Greater(t, snap.Active[0].Age, time.Duration(0))
	require.GreaterOrEqual(t, snap.Active[0].Age, snap.Active[2].Age)
	require.False(t, snap.Active[0].CancelRequested)
	require.Equal(t, KindComputeSum, snap.Active[1].Kind)
	require.False(t, snap.Active[1].Stream)
	require.True(t, snap.Active[2].Stream)
	require.Equal(t, "emit_n", snap.Active[2].Kind.String())
}

// Cancel requested shows at once, before the worker observes it (ported:
// workers_snapshot_marks_cancel_requested).
func TestSnapshotMarksCancelRequested(t *testing.T) {
	rt := newRT(t, 2)
	id := rt.DispatchSleep(2*time.Second, DispatchOptions{})
	rt.Cancel(id)
	snap := rt.Snapshot()
	require.Len(t, snap.Active, 1)
	require.True(t, snap.Active[0].CancelRequested)
}

// A settled job moves to the completed ring with its outcome (ported:
// workers_snapshot_records_completed_ring).
func TestSnapshotRecordsCompletedRing(t *testing.T) {
	rt := newRT(t, 2)
	id := rt.DispatchSum(10, DispatchOptions{Key: "s"})
	pumpUntil(t, rt, func() bool { return rt.IsComplete(id) })
	snap := rt.Snapshot()
	require.Empty(t, snap.Active)
	require.Len(t, snap.Completed, 1)
	c := snap.Completed[0]
	require.Equal(t, id, c.ID)
	require.Equal(t, KindComputeSum, c.Kind)
	require.Equal(t, Complete, c.State)
	require.Equal(t, "s", c.Key)
	require.GreaterOrEqual(t, c.SettledAge, time.Duration(0))
}

// Newest completion first (ported: workers_completed_ring_orders_newest_first).
func TestCompletedRingOrdersNewestFirst(t *testing.T) {
	rt := newRT(t, 2)
	first := rt.DispatchSum(1, DispatchOptions{})
	pumpUntil(t, rt, func() bool { return rt.IsComplete(first) })
	second := rt.DispatchSum(2, DispatchOptions{})
	pumpUntil(t, rt, func() bool { return rt.IsComplete(second) })
	snap := rt.Snapshot()
	require.Equal(t, second, snap.Completed[0].ID)
	require.Equal(t, first, snap.Completed[1].ID)
}

// The ring keeps the newest 64 (ported: workers_completed_ring_evicts_oldest_at_capacity).
func TestCompletedRingEvictsOldestAtCapacity(t *testing.T) {
	rt := newRT(t, 2)
	var ids []JobID
	for range CompletedRingCap + 16 {
		id := rt.DispatchSum(1, DispatchOptions{})
		pumpUntil(t, rt, func() bool { return rt.IsComplete(id) })
		ids = append(ids, id)
	}
	snap := rt.Snapshot()
	require.Len(t, snap.Completed, CompletedRingCap)
	require.Equal(t, ids[len(ids)-1], snap.Completed[0].ID)
	require.Equal(t, ids[16], snap.Completed[CompletedRingCap-1].ID)
	for _, old := range ids[:16] {
		for _, c := range snap.Completed {
			require.NotEqual(t, old, c.ID)
		}
	}
}

// A failure's error is kept in the ring for the *workers* view.
func TestCompletedRingKeepsFailureMessage(t *testing.T) {
	rt := newRT(t, 2)
	j := rt.newJob(kindReply, "")
	rt.CompleteExternalFailed(j.id, errors.New("server crashed"))
	rt.Tick()
	snap := rt.Snapshot()
	require.Equal(t, Failed, snap.Completed[0].State)
	require.Equal(t, "server crashed", snap.Completed[0].Err.Error())
}
