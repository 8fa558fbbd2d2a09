package runtime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Superseding cancels an in-flight job within 50 ms, on the best of three
// attempts (ported: supersede_cancels_in_flight_job_within_50ms; issue 2
// acceptance).
func TestSupersedeCancelsInFlightJobWithin50ms(t *testing.T) {
	rt := newRT(t, 2)
	best := bestOfThree(50*time.Millisecond, func() time.Duration {
		first := rt.DispatchSleep(2*time.Second, DispatchOptions{Key: "search"})
		waitRunning(t, rt, first)
		started := time.Now()
		rt.DispatchSleep(2*time.Second, DispatchOptions{Key: "search"})
		pumpUntil(t, rt, func() bool { return rt.IsComplete(first) })
		took := time.Since(started)
		require.True(t, rt.IsCancelled(first), "a superseded sleep settles cancelled, not complete")
		return took
	})
	t.Logf("supersede cancelled a running sleep in %v", best)
	require.Less(t, best, 50*time.Millisecond, "supersede did not cancel within 50ms in three attempts")
}

// waitRunning waits until the executor has picked the job up, so a cancel
// hits a running job rather than a queued one.
func waitRunning(t *testing.T, rt *Runtime, id JobID) {
	t.Helper()
	// The sleep handler has no hook; a short wait is enough for an idle pool
	// to start it, and the assertions do not depend on it having started.
	deadline := time.Now().Add(15 * time.Millisecond)
	for time.Now().Before(deadline) {
		rt.Tick()
		waitReady(rt, time.Millisecond)
	}
	require.False(t, rt.IsComplete(id))
}

// Queued jobs under one key are cancelled before they run: of 100
// dispatches behind a gate, at most one completes (ported:
// supersede_drops_queued_jobs_before_they_run).
func TestSupersedeDropsQueuedJobsBeforeTheyRun(t *testing.T) {
	rt := newRT(t, 2)
	gate := rt.DispatchSleep(100*time.Millisecond, DispatchOptions{})
	ids := make([]JobID, 100)
	for i := range ids {
		ids[i] = rt.DispatchSleep(0, DispatchOptions{Key: "k"})
	}
	pumpFor(t, rt, 3*time.Second, func() bool {
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
		case Complete:
			completed++
		case Cancelled:
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
	rt := newRT(t, 2)
	var ids []JobID
	for range 50 {
		ids = append(ids, rt.DispatchSleep(50*time.Millisecond, DispatchOptions{Key: "only-one"}))
	}
	got, ok := rt.ActiveForKey("only-one")
	require.True(t, ok)
	require.Equal(t, ids[len(ids)-1], got)
	for _, id := range ids[:len(ids)-1] {
		pumpUntil(t, rt, func() bool { return rt.IsComplete(id) })
		require.True(t, rt.IsCancelled(id), "prior id %d", id)
	}
}

// Distinct keys do not interfere (ported: supersede_keys_are_independent).
func TestSupersedeKeysAreIndependent(t *testing.T) {
	rt := newRT(t, 2)
	alpha1 := rt.DispatchSleep(2*time.Second, DispatchOptions{Key: "alpha"})
	beta := rt.DispatchSleep(0, DispatchOptions{Key: "beta"})
	rt.DispatchSleep(0, DispatchOptions{Key: "alpha"})
	pumpUntil(t, rt, func() bool { return rt.IsComplete(beta) && rt.IsComplete(alpha1) })
	require.True(t, rt.IsCancelled(alpha1))
	o, _ := rt.TakeResult(beta)
	require.Equal(t, Complete, o.State)
}

// A keyless job is untouched by dispatches under keys (ported:
// keyless_dispatch_is_unaffected_by_supersede).
func TestKeylessDispatchIsUnaffectedBySupersede(t *testing.T) {
	rt := newRT(t, 2)
	keyless := rt.DispatchSum(1_000_000, DispatchOptions{})
	for range 5 {
		rt.DispatchSleep(0, DispatchOptions{Key: "noisy"})
	}
	o := outcomeOf(t, rt, keyless)
	require.Equal(t, uint64(1_000_000*1_000_001/2), o.value)
}

// Settling a superseded job does not clobber its successor's slot (ported:
// settling_superseded_does_not_clobber_successor_table_slot).
func TestSettlingSupersededDoesNotClobberSuccessorSlot(t *testing.T) {
	rt := newRT(t, 2)
	prior := rt.DispatchSleep(2*time.Second, DispatchOptions{Key: "k"})
	successor := rt.DispatchSleep(2*time.Second, DispatchOptions{Key: "k"})
	pumpUntil(t, rt, func() bool { return rt.IsComplete(prior) })
	got, ok := rt.ActiveForKey("k")
	require.True(t, ok)
	require.Equal(t, successor, got)
}

// A stream predecessor settling does not clobber a live successor's slot
// (ported: stream_settle_does_not_clobber_successor_supersede_slot).
func TestStreamSettleDoesNotClobberSuccessorSlot(t *testing.T) {
	rt := newRT(t, 2)
	prior := rt.DispatchEmitN(1, DispatchOptions{Key: "k", MaxBatch: 8})
	successor := rt.DispatchSleep(5*time.Second, DispatchOptions{Key: "k"})
	res := drainStream(t, rt, prior, time.Millisecond, time.Second)
	require.True(t, res.outcome.State == Cancelled || res.outcome.State == Complete)
	got, ok := rt.ActiveForKey("k")
	require.True(t, ok)
	require.Equal(t, successor, got)
}

// A second stream under a key cancels the first, whose last batch is
// Closed with Cancelled (ported: stream_supersede_cancels_predecessor_with_cancelled_outcome).
func TestStreamSupersedeCancelsPredecessor(t *testing.T) {
	rt := newRT(t, 2)
	first := rt.DispatchEmitN(1_000_000, DispatchOptions{Key: "emit", MaxBatch: 1_000_000})
	second := rt.DispatchEmitN(10, DispatchOptions{Key: "emit", MaxBatch: 64})
	res := drainStreams(t, rt, 5*time.Second, first, second)
	require.Equal(t, Cancelled, res[first].outcome.State)
	require.Empty(t, res[first].ints, "a cancelled stream's undelivered items are dropped")
	require.Equal(t, Complete, res[second].outcome.State)
	require.Len(t, res[second].ints, 10)
}
