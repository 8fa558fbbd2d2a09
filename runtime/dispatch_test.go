package runtime_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/kinds/demojob"
	"github.com/pmacs-go/pmacs-go/kinds/kindtest"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/workers"
)

// compute_sum completes with 1+..+n (ported: dispatch_sum_completes_with_correct_value).
func TestDispatchSumCompletesWithCorrectValue(t *testing.T) {
	rt := kindtest.New(t, 2)
	o := kindtest.Outcome(t, rt, demojob.DispatchSum(rt, 10, runtime.DispatchOptions{}))
	require.Equal(t, runtime.Complete, o.State)
	sum, ok := demojob.SumOf(o)
	require.True(t, ok)
	require.Equal(t, uint64(55), sum)
}

// sleep completes with no value (ported: dispatch_sleep_completes_with_unit).
func TestDispatchSleepCompletesWithUnit(t *testing.T) {
	rt := kindtest.New(t, 2)
	o := kindtest.Outcome(t, rt, demojob.DispatchSleep(rt, 5*time.Millisecond, runtime.DispatchOptions{}))
	require.Equal(t, runtime.Outcome{State: runtime.Complete}, o)
}

// Cancelling a running sleep settles it Cancelled (ported:
// cancel_in_flight_sleep_yields_cancelled_outcome).
func TestCancelInFlightSleepYieldsCancelled(t *testing.T) {
	rt := kindtest.New(t, 2)
	id := demojob.DispatchSleep(rt, 2*time.Second, runtime.DispatchOptions{})
	rt.Cancel(id)
	kindtest.PumpUntil(t, rt, func() bool { return rt.IsComplete(id) })
	require.True(t, rt.IsCancelled(id))
	o, ok := rt.TakeResult(id)
	require.True(t, ok)
	require.Equal(t, runtime.Cancelled, o.State)
}

// Many independent jobs complete with their own values (ported:
// many_independent_jobs_complete_concurrently).
func TestManyIndependentJobsCompleteConcurrently(t *testing.T) {
	rt := kindtest.New(t, 4)
	ids := map[uint64]runtime.JobID{}
	for n := uint64(1); n <= 20; n++ {
		ids[n] = demojob.DispatchSum(rt, n, runtime.DispatchOptions{})
	}
	kindtest.PumpUntil(t, rt, func() bool {
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
		sum, _ := demojob.SumOf(o)
		require.Equal(t, n*(n+1)/2, sum)
	}
	require.Zero(t, rt.PendingLen())
}

// Unknown and running ids are refused quietly (ported: take_result_on_unknown_id_returns_none,
// take_result_while_running_returns_none, cancel_unknown_id_is_noop).
func TestUnknownAndRunningIdsAreRefused(t *testing.T) {
	rt := kindtest.New(t, 2)
	_, ok := rt.TakeResult(99_999)
	require.False(t, ok)
	rt.Cancel(12_345)
	id := demojob.DispatchSleep(rt, time.Second, runtime.DispatchOptions{})
	_, ok = rt.TakeResult(id)
	require.False(t, ok, "a running job cannot be taken")
	require.False(t, rt.IsComplete(id))
	_, _, known := rt.Lookup(id)
	require.True(t, known)
	rt.Cancel(id)
	require.Equal(t, runtime.Cancelled, kindtest.Outcome(t, rt, id).State)
}

// The frame target is tunable and clamps into [1, 1000] ms (ported:
// frame_target_is_tunable_and_clamped).
func TestFrameTargetIsTunableAndClamped(t *testing.T) {
	rt := kindtest.New(t, 2)
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
	rt := kindtest.New(t, 2)
	require.Equal(t, runtime.DefaultMaxBatch, rt.DefaultMaxBatch())
	rt.SetDefaultMaxBatch(64)
	require.Equal(t, 64, rt.DefaultMaxBatch())
	rt.SetDefaultMaxBatch(0)
	require.Equal(t, 1, rt.DefaultMaxBatch())
	rt.SetDefaultMaxBatch(10_000_000)
	require.Equal(t, 1_000_000, rt.DefaultMaxBatch())
}

// The stream credit option clamps too.
func TestStreamCreditOptionClamps(t *testing.T) {
	for in, want := range map[int]int{0: runtime.DefaultStreamCredit, -4: 1, 7: 7, 1 << 30: runtime.MaxStreamCredit} {
		rt, err := runtime.New(runtime.Options{StreamCredit: in, Executor: workers.Config{PoolSize: 2}})
		require.NoError(t, err)
		require.Equal(t, want, rt.StreamCredit(), "StreamCredit %d", in)
		rt.Close()
	}
}

// A job dispatched after Close fails at the next Tick with a shutdown code
// instead of hanging; Close is idempotent.
func TestDispatchAfterCloseFailsClearly(t *testing.T) {
	rt := kindtest.New(t, 2)
	running := demojob.DispatchSleep(rt, time.Minute, runtime.DispatchOptions{})
	rt.Close()
	rt.Close()
	o := kindtest.Outcome(t, rt, running)
	require.Equal(t, runtime.Cancelled, o.State, "Close cancels running jobs")
	o = kindtest.Outcome(t, rt, demojob.DispatchSum(rt, 3, runtime.DispatchOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	require.Contains(t, o.Err.Error(), "runtime is closed")
	require.True(t, errors.Is(o.Err, workers.ErrShutdown))
}
