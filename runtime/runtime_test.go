package runtime

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/workers"
)

// injectRun allocates two resource jobs without running them, injects their
// successful replies in the order given, and returns what Tick reported.
func injectRun(t *testing.T, reverse bool) []ResourceOp {
	rt := newRT(t, 2)
	a := rt.newJob(KindFSRename, "")
	a.resource = &ResourceOp{Op: ResourceRename, From: "/tmp/a-from", To: "/tmp/a-to"}
	b := rt.newJob(KindFSRemove, "")
	b.resource = &ResourceOp{Op: ResourceRemove, From: "/tmp/b-gone"}
	order := []*job{a, b}
	if reverse {
		order = []*job{b, a}
	}
	for _, j := range order {
		require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: j.id, Kind: replyUnit}))
	}
	out := rt.Tick()
	require.Len(t, out.Settled, 2)
	return out.Resources
}

// Resources are reported in bus-arrival order, not allocation order (ported:
// tick_reports_resources_in_bus_arrival_order_not_allocation_order).
func TestTickReportsResourcesInBusArrivalOrder(t *testing.T) {
	aOp := ResourceOp{Op: ResourceRename, From: "/tmp/a-from", To: "/tmp/a-to"}
	bOp := ResourceOp{Op: ResourceRemove, From: "/tmp/b-gone"}
	require.Equal(t, []ResourceOp{bOp, aOp}, injectRun(t, true), "B injected first is reported first")
	require.Equal(t, []ResourceOp{aOp, bOp}, injectRun(t, false))
}

// A failed or cancelled mutation is settled but never harvested (ported:
// a_failed_or_cancelled_resource_job_is_not_harvested).
func TestFailedOrCancelledResourceJobIsNotHarvested(t *testing.T) {
	rt := newRT(t, 2)
	failed := rt.newJob(KindFSRename, "")
	failed.resource = &ResourceOp{Op: ResourceRename, From: "/tmp/nope", To: "/tmp/also-nope"}
	cancelled := rt.newJob(KindFSRemove, "")
	cancelled.resource = &ResourceOp{Op: ResourceRemove, From: "/tmp/never"}
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: failed.id, Kind: replyFailed, Msg: "ENOENT", Code: "ENOENT"}))
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: cancelled.id, Kind: replyCancelled}))
	out := rt.Tick()
	require.Len(t, out.Settled, 2)
	require.Empty(t, out.Resources)
}

// A duplicate or late terminal reply is ignored: settle is exactly once.
func TestSettleIsExactlyOnce(t *testing.T) {
	rt := newRT(t, 2)
	j := rt.newJob(KindComputeSum, "")
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: j.id, Kind: replySum, N: 3}))
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: j.id, Kind: replyFailed, Msg: "late"}))
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: 999_999, Kind: replyUnit}))
	out := rt.Tick()
	require.Equal(t, []JobID{j.id}, out.Settled)
	o, ok := rt.TakeResult(j.id)
	require.True(t, ok)
	require.Equal(t, Outcome{State: Complete, value: uint64(3)}, o)
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: j.id, Kind: replyUnit}))
	require.Empty(t, rt.Tick().Settled, "a reply after take is ignored")
}

// A malformed envelope is counted and dropped; the main goroutine goes on.
func TestMalformedReplyIsDroppedNotPanicked(t *testing.T) {
	rt := newRT(t, 2)
	require.NoError(t, rt.wbus.SendEnvelope(busEnvelope([]byte{0x92, 0x01})))
	require.NoError(t, rt.wbus.SendEnvelope(busEnvelope([]byte{0xc1})))
	require.NoError(t, rt.wbus.SendEnvelope(busEnvelope([]byte{0x92, 0x01, 0x7f})))
	require.Empty(t, rt.Tick().Settled)
	require.Equal(t, uint64(3), rt.MalformedReplies())
	id := rt.DispatchSum(4, DispatchOptions{})
	require.Equal(t, uint64(10), outcomeOf(t, rt, id).value)
}

// compute_sum completes with 1+..+n (ported: dispatch_sum_completes_with_correct_value).
func TestDispatchSumCompletesWithCorrectValue(t *testing.T) {
	rt := newRT(t, 2)
	o := outcomeOf(t, rt, rt.DispatchSum(10, DispatchOptions{}))
	require.Equal(t, Outcome{State: Complete, value: uint64(55)}, o)
}

// sleep completes with no value (ported: dispatch_sleep_completes_with_unit).
func TestDispatchSleepCompletesWithUnit(t *testing.T) {
	rt := newRT(t, 2)
	o := outcomeOf(t, rt, rt.DispatchSleep(5*time.Millisecond, DispatchOptions{}))
	require.Equal(t, Outcome{State: Complete}, o)
}

// Cancelling a running sleep settles it Cancelled (ported:
// cancel_in_flight_sleep_yields_cancelled_outcome).
func TestCancelInFlightSleepYieldsCancelled(t *testing.T) {
	rt := newRT(t, 2)
	id := rt.DispatchSleep(2*time.Second, DispatchOptions{})
	rt.Cancel(id)
	pumpUntil(t, rt, func() bool { return rt.IsComplete(id) })
	require.True(t, rt.IsCancelled(id))
	o, ok := rt.TakeResult(id)
	require.True(t, ok)
	require.Equal(t, Cancelled, o.State)
}

// Many independent jobs complete with their own values (ported:
// many_independent_jobs_complete_concurrently).
func TestManyIndependentJobsCompleteConcurrently(t *testing.T) {
	rt := newRT(t, 4)
	ids := map[uint64]JobID{}
	for n := uint64(1); n <= 20; n++ {
		ids[n] = rt.DispatchSum(n, DispatchOptions{})
	}
	pumpUntil(t, rt, func() bool {
		for _, id := range ids {
			if !rt.IsComplete(id) {
				return false
			}
		}
		return true
	})
	for n, id := range ids {
		o, ok := rt.TakeResult(id)
		require.True(t, ok)
		require.Equal(t, n*(n+1)/2, o.value)
	}
	require.Zero(t, rt.PendingLen())
}

// Unknown and running ids are refused quietly (ported: take_result_on_unknown_id_returns_none,
// take_result_while_running_returns_none, cancel_unknown_id_is_noop).
func TestUnknownAndRunningIdsAreRefused(t *testing.T) {
	rt := newRT(t, 2)
	_, ok := rt.TakeResult(99_999)
	require.False(t, ok)
	rt.Cancel(12_345)
	id := rt.DispatchSleep(time.Second, DispatchOptions{})
	_, ok = rt.TakeResult(id)
	require.False(t, ok, "a running job cannot be taken")
	require.False(t, rt.IsComplete(id))
	_, _, known := rt.Lookup(id)
	require.True(t, known)
	rt.Cancel(id)
	require.Equal(t, Cancelled, outcomeOf(t, rt, id).State)
}

// The frame target is tunable and clamps into [1, 1000] ms (ported:
// frame_target_is_tunable_and_clamped).
func TestFrameTargetIsTunableAndClamped(t *testing.T) {
	rt := newRT(t, 2)
	require.Equal(t, 16*time.Millisecond, rt.FrameTarget())
	rt.SetFrameTarget(33 * time.Millisecond)
	require.Equal(t, 33*time.Millisecond, rt.FrameTarget())
	rt.SetFrameTarget(0)
	require.Equal(t, time.Millisecond, rt.FrameTarget())
	rt.SetFrameTarget(10 * time.Second)
	require.Equal(t, time.Second, rt.FrameTarget())
	rt.SetFrameTarget(-5 * time.Millisecond)
	require.Equal(t, time.Millisecond, rt.FrameTarget())
}

// The default max batch is tunable and clamps into [1, 1_000_000] (ported:
// default_max_batch_is_tunable_and_clamped).
func TestDefaultMaxBatchIsTunableAndClamped(t *testing.T) {
	rt := newRT(t, 2)
	require.Equal(t, DefaultMaxBatch, rt.DefaultMaxBatch())
	rt.SetDefaultMaxBatch(64)
	require.Equal(t, 64, rt.DefaultMaxBatch())
	rt.SetDefaultMaxBatch(0)
	require.Equal(t, 1, rt.DefaultMaxBatch())
	rt.SetDefaultMaxBatch(10_000_000)
	require.Equal(t, 1_000_000, rt.DefaultMaxBatch())
}

// The stream credit option clamps too.
func TestStreamCreditOptionClamps(t *testing.T) {
	for in, want := range map[int]int{0: DefaultStreamCredit, -4: 1, 7: 7, 1 << 30: MaxStreamCredit} {
		rt, err := New(Options{StreamCredit: in, Executor: workers.Config{PoolSize: 2}})
		require.NoError(t, err)
		require.Equal(t, want, rt.StreamCredit(), "StreamCredit %d", in)
		rt.Close()
	}
}

// A job dispatched after Close fails at the next Tick with a shutdown code
// instead of hanging; Close is idempotent.
func TestDispatchAfterCloseFailsClearly(t *testing.T) {
	rt := newRT(t, 2)
	running := rt.DispatchSleep(time.Minute, DispatchOptions{})
	rt.Close()
	rt.Close()
	o := outcomeOf(t, rt, running)
	require.Equal(t, Cancelled, o.State, "Close cancels running jobs")
	o = outcomeOf(t, rt, rt.DispatchSum(3, DispatchOptions{}))
	require.Equal(t, Failed, o.State)
	require.Contains(t, o.Err.Error(), "runtime is closed")
	require.True(t, errors.Is(o.Err, workers.ErrShutdown))
}
