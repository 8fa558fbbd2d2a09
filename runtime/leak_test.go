package runtime_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/pmacs-go/pmacs-go/kinds/demojob"
	"github.com/pmacs-go/pmacs-go/kinds/kindtest"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// leakKey is a distinct supersede key of 4 KiB: a table that kept one per
// cycle would grow the heap by megabytes over the cycles below.
func leakKey(i int) string {
	return fmt.Sprintf("%06d", i) + strings.Repeat("k", 4<<10)
}

// 1000 dispatch/supersede/cancel cycles, each under a fresh key, leave the
// pending and supersede tables empty, the ring full, and the heap where it
// was after a warm-up (ported: dispatch_cancel_1000_cycles_no_leak; the
// keys make the supersede table's emptiness something the test could fail).
func TestDispatchCancel1000CyclesNoLeak(t *testing.T) {
	rt := kindtest.New(t, 2)
	cycle := func(i int) {
		key := leakKey(i)
		first := demojob.DispatchSleep(rt, 5*time.Millisecond, runtime.DispatchOptions{Key: key})
		id := demojob.DispatchSleep(rt, 5*time.Millisecond, runtime.DispatchOptions{Key: key}) // supersedes first
		require.Equal(t, 1, rt.SupersedeLen())
		rt.Cancel(id)
		kindtest.PumpUntil(t, rt, func() bool { return rt.IsComplete(first) && rt.IsComplete(id) })
		require.True(t, rt.IsCancelled(first))
		rt.TakeResult(first)
		rt.TakeResult(id)
	}
	for i := range 100 { // fills the ring and warms every pool
		cycle(-1 - i)
	}
	before := testenv.HeapAfterGC()
	for i := range 1000 {
		cycle(i)
	}
	after := testenv.HeapAfterGC()
	require.Zero(t, rt.PendingLen())
	require.Zero(t, rt.SupersedeLen())
	snap := rt.Snapshot()
	require.Empty(t, snap.Active)
	require.Len(t, snap.Completed, runtime.CompletedRingCap)
	t.Logf("heap %d KiB before the 1000 cycles, %d KiB after", before>>10, after>>10)
	require.Less(t, int64(after)-int64(before), int64(1<<20),
		"1000 cycles with 4 KiB keys grew the heap by %d KiB", (int64(after)-int64(before))>>10)
}

// 500 supersede cycles under one key: the table never exceeds one slot and
// returns to zero (ported: supersede_churn_500_cycles_table_returns_to_zero).
func TestSupersedeChurn500CyclesTableReturnsToZero(t *testing.T) {
	rt := kindtest.New(t, 2)
	ids := make([]runtime.JobID, 0, 500)
	for range 500 {
		ids = append(ids, demojob.DispatchSleep(rt, 3*time.Millisecond, runtime.DispatchOptions{Key: "search"}))
		require.Equal(t, 1, rt.SupersedeLen())
	}
	kindtest.PumpFor(t, rt, 15*time.Second, func() bool {
		for _, id := range ids {
			if rt.IsComplete(id) {
				rt.TakeResult(id)
			}
		}
		return rt.PendingLen() == 0
	})
	require.Zero(t, rt.SupersedeLen())
}

// 200 streams, each under a fresh key, run to their closing batch and leave
// nothing pending, queued or keyed, and the heap where it was after a
// warm-up (ported: stream_dispatch_close_200_cycles_no_leak).
func TestStreamDispatchClose200CyclesNoLeak(t *testing.T) {
	rt := kindtest.New(t, 2)
	cycle := func(i int) {
		id := demojob.DispatchEmitN(rt, 8, runtime.DispatchOptions{MaxBatch: 8, Key: leakKey(i)})
		require.Equal(t, 1, rt.SupersedeLen())
		res := kindtest.Drain(t, rt, id, time.Millisecond, 2*time.Second)
		require.Len(t, res.Items, 8)
	}
	for i := range 100 {
		cycle(-1 - i)
	}
	before := testenv.HeapAfterGC()
	for i := range 200 {
		cycle(i)
	}
	after := testenv.HeapAfterGC()
	require.Zero(t, rt.PendingLen())
	require.Zero(t, rt.SupersedeLen())
	require.Zero(t, rt.ReadyLen())
	t.Logf("heap %d KiB before the 200 cycles, %d KiB after", before>>10, after>>10)
	require.Less(t, int64(after)-int64(before), int64(512<<10),
		"200 streams with 4 KiB keys grew the heap by %d KiB", (int64(after)-int64(before))>>10)
}
