package runtime_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/kinds/demojob"
	"github.com/pmacs-go/pmacs-go/kinds/kindtest"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// Superseding cancels an in-flight job within 50 ms, on the best of three
// attempts (ported: supersede_cancels_in_flight_job_within_50ms; issue 2
// acceptance).
func TestSupersedeCancelsInFlightJobWithin50ms(t *testing.T) {
	rt := kindtest.New(t, 2)
	best := kindtest.BestOfThree(50*time.Millisecond, func() time.Duration {
		first := demojob.DispatchSleep(rt, 2*time.Second, runtime.DispatchOptions{Key: "search"})
		waitRunning(t, rt, first)
		started := time.Now()
		demojob.DispatchSleep(rt, 2*time.Second, runtime.DispatchOptions{Key: "search"})
		kindtest.PumpUntil(t, rt, func() bool { return rt.IsComplete(first) })
		took := time.Since(started)
		require.True(t, rt.IsCancelled(first), "a superseded sleep settles cancelled, not complete")
		return took
	})
	t.Logf("supersede cancelled a running sleep in %v", best)
	require.Less(t, best, 50*time.Millisecond, "supersede did not cancel within 50ms in three attempts")
}

// waitRunning waits until the executor has picked the job up, so a cancel
// hits a running job rather than a queued one.
func waitRunning(t *testing.T, rt *runtime.Runtime, id runtime.JobID) {
	t.Helper()
	// The sleep handler has no hook; a short wait is enough for an idle pool
	// to start it, and the assertions do not depend on it having started.
	deadline := time.Now().Add(15 * time.Millisecond)
	for time.Now().Before(deadline) {
		rt.Tick()
		kindtest.WaitReady(rt, time.Millisecond)
	}
	require.False(t, rt.IsComplete(id))
}

// Queued jobs under one key are cancelled before they run: of 100
// dispatches behind a gate, at most one completes (ported:
// supersede_drops_queued_jobs_before_they_run).
func TestSupersedeDropsQueuedJobsBeforeTheyRun(t *testing.T) {
	rt := kindtest.New(t, 2)
	gate := demojob.DispatchSleep(rt, 100*time.Millisecond, runtime.DispatchOptions{})
	ids := make([]runtime.JobID, 100)
	for i := range ids {
		ids[i] = demojob.DispatchSleep(rt, 0, runtime.DispatchOptions{Key: "k"})
	}
	kindtest.PumpFor(t, rt, 3*time.Second, func() bool {
		if !rt.IsComplete(gate) {
			return false
		}
		for _, id := range ids {
			if !rt.IsComplete(id) {
				return false
			}
		}
		return true
	})
	completed, cancelled := 0, 0
	for _, id := range ids {
		o, ok := rt.TakeResult(id)
		require.True(t, ok)
		switch o.State {
		case runtime.Complete:
			completed++
		case runtime.Cancelled:
			cancelled++
		default:
			t.Fatalf("job %d: %v", id, o.State)
		}
	}
	require.LessOrEqual(t, completed, 1)
	require.Equal(t, len(ids), completed+cancelled)
	rt.TakeResult(gate)
	require.Zero(t, rt.SupersedeLen())
}

// The supersede table holds only the most recent id, and every earlier id
// settles Cancelled (ported: supersede_table_holds_only_the_most_recent_id).
func TestSupersedeTableHoldsOnlyTheMostRecentID(t *testing.T) {
	rt := kindtest.New(t, 2)
	var ids []runtime.JobID
	for range 50 {
		ids = append(ids, demojob.DispatchSleep(rt, 50*time.Millisecond, runtime.DispatchOptions{Key: "only-one"}))
	}
	got, ok := rt.ActiveForKey("only-one")
	require.True(t, ok)
	require.Equal(t, ids[len(ids)-1], got)
	for _, id := range ids[:len(ids)-1] {
		kindtest.PumpUntil(t, rt, func() bool { return rt.IsComplete(id) })
		require.True(t, rt.IsCancelled(id), "prior id %d", id)
	}
}

// Distinct keys do not interfere (ported: supersede_keys_are_independent).
func TestSupersedeKeysAreIndependent(t *testing.T) {
	rt := kindtest.New(t, 2)
	alpha1 := demojob.DispatchSleep(rt, 2*time.Second, runtime.DispatchOptions{Key: "alpha"})
	beta := demojob.DispatchSleep(rt, 0, runtime.DispatchOptions{Key: "beta"})
	demojob.DispatchSleep(rt, 0, runtime.DispatchOptions{Key: "alpha"})
	kindtest.PumpUntil(t, rt, func() bool { return rt.IsComplete(beta) && rt.IsComplete(alpha1) })
	require.True(t, rt.IsCancelled(alpha1))
	o, _ := rt.TakeResult(beta)
	require.Equal(t, runtime.Complete, o.State)
}

// A keyless job is untouched by dispatches under keys (ported:
// keyless_dispatch_is_unaffected_by_supersede).
func TestKeylessDispatchIsUnaffectedBySupersede(t *testing.T) {
	rt := kindtest.New(t, 2)
	keyless := demojob.DispatchSum(rt, 1_000_000, runtime.DispatchOptions{})
	for range 5 {
		demojob.DispatchSleep(rt, 0, runtime.DispatchOptions{Key: "noisy"})
	}
	o := kindtest.Outcome(t, rt, keyless)
	sum, ok := demojob.SumOf(o)
	require.True(t, ok)
	require.Equal(t, uint64(1_000_000*1_000_001/2), sum)
}

// Settling a superseded job does not clobber its successor's slot (ported:
// settling_superseded_does_not_clobber_successor_table_slot).
func TestSettlingSupersededDoesNotClobberSuccessorSlot(t *testing.T) {
	rt := kindtest.New(t, 2)
	prior := demojob.DispatchSleep(rt, 2*time.Second, runtime.DispatchOptions{Key: "k"})
	successor := demojob.DispatchSleep(rt, 2*time.Second, runtime.DispatchOptions{Key: "k"})
	kindtest.PumpUntil(t, rt, func() bool { return rt.IsComplete(prior) })
	got, ok := rt.ActiveForKey("k")
	require.True(t, ok)
	require.Equal(t, successor, got)
}

// A stream predecessor settling does not clobber a live successor's slot
// (ported: stream_settle_does_not_clobber_successor_supersede_slot).
func TestStreamSettleDoesNotClobberSuccessorSlot(t *testing.T) {
	rt := kindtest.New(t, 2)
	prior := demojob.DispatchEmitN(rt, 1, runtime.DispatchOptions{Key: "k", MaxBatch: 8})
	successor := demojob.DispatchSleep(rt, 5*time.Second, runtime.DispatchOptions{Key: "k"})
	res := kindtest.Drain(t, rt, prior, time.Millisecond, time.Second)
	require.True(t, res.Outcome.State == runtime.Cancelled || res.Outcome.State == runtime.Complete)
	got, ok := rt.ActiveForKey("k")
	require.True(t, ok)
	require.Equal(t, successor, got)
}

// A second stream under a key cancels the first, whose last batch is
// Closed with Cancelled (ported: stream_supersede_cancels_predecessor_with_cancelled_outcome).
func TestStreamSupersedeCancelsPredecessor(t *testing.T) {
	rt := kindtest.New(t, 2)
	first := demojob.DispatchEmitN(rt, 1_000_000, runtime.DispatchOptions{Key: "emit", MaxBatch: 1_000_000})
	second := demojob.DispatchEmitN(rt, 10, runtime.DispatchOptions{Key: "emit", MaxBatch: 64})
	res := kindtest.DrainAll(t, rt, 5*time.Second, first, second)
	require.Equal(t, runtime.Cancelled, res[first].Outcome.State)
	require.Empty(t, res[first].Items, "a cancelled stream's undelivered items are dropped")
	require.Equal(t, runtime.Complete, res[second].Outcome.State)
	require.Len(t, res[second].Items, 10)
}
