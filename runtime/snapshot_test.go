package runtime_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/kinds/demojob"
	"github.com/pmacs-go/pmacs-go/kinds/kindtest"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// Active jobs are listed oldest first with kind, key, age and flags (ported:
// workers_snapshot_lists_active_jobs).
func TestSnapshotListsActiveJobs(t *testing.T) {
	rt := kindtest.New(t, 2)
	sleep := demojob.DispatchSleep(rt, 2*time.Second, runtime.DispatchOptions{Key: "sleeper"})
	sum := demojob.DispatchSum(rt, 1<<62, runtime.DispatchOptions{})
	stream := demojob.DispatchEmitN(rt, 1<<40, runtime.DispatchOptions{})
	time.Sleep(5 * time.Millisecond) // age must be observably non-zero
	snap := rt.Snapshot()
	require.Empty(t, snap.Completed)
	require.Len(t, snap.Active, 3)
	require.Equal(t, []runtime.JobID{sleep, sum, stream}, []runtime.JobID{snap.Active[0].ID, snap.Active[1].ID, snap.Active[2].ID})
	require.Equal(t, demojob.Sleep, snap.Active[0].Kind)
	require.Equal(t, "sleeper", snap.Active[0].Key)
	require.Greater(t, snap.Active[0].Age, time.Duration(0))
	require.GreaterOrEqual(t, snap.Active[0].Age, snap.Active[2].Age)
	require.False(t, snap.Active[0].CancelRequested)
	require.Equal(t, demojob.Sum, snap.Active[1].Kind)
	require.False(t, snap.Active[1].Stream)
	require.True(t, snap.Active[2].Stream)
	require.Equal(t, "emit_n", snap.Active[2].Kind.String())
}

// Cancel requested shows at once, before the worker observes it (ported:
// workers_snapshot_marks_cancel_requested).
func TestSnapshotMarksCancelRequested(t *testing.T) {
	rt := kindtest.New(t, 2)
	id := demojob.DispatchSleep(rt, 2*time.Second, runtime.DispatchOptions{})
	rt.Cancel(id)
	snap := rt.Snapshot()
	require.Len(t, snap.Active, 1)
	require.True(t, snap.Active[0].CancelRequested)
}

// A settled job moves to the completed ring with its outcome (ported:
// workers_snapshot_records_completed_ring).
func TestSnapshotRecordsCompletedRing(t *testing.T) {
	rt := kindtest.New(t, 2)
	id := demojob.DispatchSum(rt, 10, runtime.DispatchOptions{Key: "s"})
	kindtest.PumpUntil(t, rt, func() bool { return rt.IsComplete(id) })
	snap := rt.Snapshot()
	require.Empty(t, snap.Active)
	require.Len(t, snap.Completed, 1)
	c := snap.Completed[0]
	require.Equal(t, id, c.ID)
	require.Equal(t, demojob.Sum, c.Kind)
	require.Equal(t, runtime.Complete, c.State)
	require.Equal(t, "s", c.Key)
	require.GreaterOrEqual(t, c.SettledAge, time.Duration(0))
}

// Newest completion first (ported: workers_completed_ring_orders_newest_first).
func TestCompletedRingOrdersNewestFirst(t *testing.T) {
	rt := kindtest.New(t, 2)
	first := demojob.DispatchSum(rt, 1, runtime.DispatchOptions{})
	kindtest.PumpUntil(t, rt, func() bool { return rt.IsComplete(first) })
	second := demojob.DispatchSum(rt, 2, runtime.DispatchOptions{})
	kindtest.PumpUntil(t, rt, func() bool { return rt.IsComplete(second) })
	snap := rt.Snapshot()
	require.Equal(t, second, snap.Completed[0].ID)
	require.Equal(t, first, snap.Completed[1].ID)
}

// The ring keeps the newest 64 (ported: workers_completed_ring_evicts_oldest_at_capacity).
func TestCompletedRingEvictsOldestAtCapacity(t *testing.T) {
	rt := kindtest.New(t, 2)
	var ids []runtime.JobID
	for range runtime.CompletedRingCap + 16 {
		id := demojob.DispatchSum(rt, 1, runtime.DispatchOptions{})
		kindtest.PumpUntil(t, rt, func() bool { return rt.IsComplete(id) })
		ids = append(ids, id)
	}
	snap := rt.Snapshot()
	require.Len(t, snap.Completed, runtime.CompletedRingCap)
	require.Equal(t, ids[len(ids)-1], snap.Completed[0].ID)
	require.Equal(t, ids[16], snap.Completed[runtime.CompletedRingCap-1].ID)
	for _, old := range ids[:16] {
		for _, c := range snap.Completed {
			require.NotEqual(t, old, c.ID)
		}
	}
}

// A failure's error is kept in the ring for the *workers* view.
func TestCompletedRingKeepsFailureMessage(t *testing.T) {
	rt := kindtest.New(t, 2)
	id, _ := rt.RegisterExternal(kindExternal, "")
	rt.CompleteExternalFailed(id, errors.New("server crashed"))
	rt.Tick()
	snap := rt.Snapshot()
	require.Equal(t, runtime.Failed, snap.Completed[0].State)
	require.Equal(t, "server crashed", snap.Completed[0].Err.Error())
}
