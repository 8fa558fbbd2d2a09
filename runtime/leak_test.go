package runtime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// 1000 dispatch/cancel cycles leave the tables empty and the ring full
// (ported: dispatch_cancel_1000_cycles_no_leak).
func TestDispatchCancel1000CyclesNoLeak(t *testing.T) {
	rt := newRT(t, 2)
	for range 1000 {
		id := rt.DispatchSleep(5*time.Millisecond, DispatchOptions{})
		rt.Cancel(id)
		pumpUntil(t, rt, func() bool { return rt.IsComplete(id) })
		rt.TakeResult(id)
	}
	require.Zero(t, rt.PendingLen())
	require.Zero(t, rt.SupersedeLen())
	snap := rt.Snapshot()
	require.Empty(t, snap.Active)
	require.Len(t, snap.Completed, CompletedRingCap)
}

// 500 supersede cycles under one key: the table never exceeds one slot and
// returns to zero (ported: supersede_churn_500_cycles_table_returns_to_zero).
func TestSupersedeChurn500CyclesTableReturnsToZero(t *testing.T) {
	rt := newRT(t, 2)
	ids := make([]JobID, 0, 500)
	for range 500 {
		ids = append(ids, rt.DispatchSleep(3*time.Millisecond, DispatchOptions{Key: "search"}))
		require.Equal(t, 1, rt.SupersedeLen())
	}
	pumpFor(t, rt, 15*time.Second, func() bool {
		for _, id := range ids {
			if rt.IsComplete(id) {
				rt.TakeResult(id)
			}
		}
		return rt.PendingLen() == 0
	})
	require.Zero(t, rt.SupersedeLen())
}

// 200 streams run to their closing batch and leave nothing pending (ported:
// stream_dispatch_close_200_cycles_no_leak).
func TestStreamDispatchClose200CyclesNoLeak(t *testing.T) {
	rt := newRT(t, 2)
	for range 200 {
		id := rt.DispatchEmitN(8, DispatchOptions{MaxBatch: 8})
		res := drainStream(t, rt, id, time.Millisecond, 2*time.Second)
		require.Len(t, res.ints, 8)
	}
	require.Zero(t, rt.PendingLen())
	require.Zero(t, len(rt.ready))
}
