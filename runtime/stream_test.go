package runtime

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// 10,000 items arrive without loss in at most 64 batches at a frame cadence
// (ported: streaming_handler_emits_all_items_with_few_batches).
func TestStreamEmitsAllItemsWithFewBatches(t *testing.T) {
	const n = 10_000
	rt := newRT(t, 2)
	id := rt.DispatchEmitN(n, DispatchOptions{})
	res := drainStream(t, rt, id, 16*time.Millisecond, 10*time.Second)
	require.Equal(t, Outcome{State: Complete}, res.outcome)
	require.Len(t, res.ints, n)
	for i, v := range res.ints {
		require.Equal(t, uint64(i+1), v, "items arrive in order")
	}
	require.LessOrEqual(t, res.batches, 64)
	require.Zero(t, rt.PendingLen(), "the closing batch evicts the stream")
}

// Per-stream max batch caps every delivery (ported: stream_max_batch_caps_batch_size).
func TestStreamMaxBatchCapsBatchSize(t *testing.T) {
	rt := newRT(t, 2)
	id := rt.DispatchEmitN(1_000, DispatchOptions{MaxBatch: 32})
	res := drainStream(t, rt, id, 8*time.Millisecond, 10*time.Second)
	require.Len(t, res.ints, 1_000)
	require.LessOrEqual(t, res.maxLen, 32)
	require.GreaterOrEqual(t, res.batches, 1_000/32)
}

// TakeStreamBatches gives at most one batch per stream per call and nothing
// at all when no stream has anything to deliver.
func TestTakeStreamBatchesAtMostOnePerStream(t *testing.T) {
	rt := newRT(t, 2)
	a := rt.DispatchEmitN(300, DispatchOptions{MaxBatch: 100})
	b := rt.DispatchEmitN(300, DispatchOptions{MaxBatch: 100})
	pumpUntil(t, rt, func() bool { return rt.IsComplete(a) && rt.IsComplete(b) })
	for call := range 3 {
		batches := rt.TakeStreamBatches()
		require.Len(t, batches, 2, "call %d", call)
		require.NotEqual(t, batches[0].ID, batches[1].ID)
		for _, bt := range batches {
			require.Equal(t, 100, bt.Len())
			require.Equal(t, call == 2, bt.Closed)
		}
	}
	require.Nil(t, rt.TakeStreamBatches())
	require.Zero(t, rt.PendingLen())
}

// A stream nobody drains holds bounded memory: the producer waits on its
// credit, and cancelling it while it waits settles it at once.
func TestUndrainedStreamIsBoundedByCredit(t *testing.T) {
	rt, err := New(Options{StreamCredit: 1000})
	require.NoError(t, err)
	t.Cleanup(rt.Close)
	id := rt.DispatchEmitN(1_000_000, DispatchOptions{})
	j := rt.pending[id]
	// Tick without taking batches: items pile up only to the credit.
	deadline := time.Now().Add(200 * time.Millisecond)
	for time.Now().Before(deadline) {
		rt.Tick()
		require.LessOrEqual(t, j.stream.len(), 1000+emitBatch)
		waitReady(rt, time.Millisecond)
	}
	require.False(t, rt.IsComplete(id), "the producer is held by its credit")
	require.LessOrEqual(t, j.stream.credit.InFlight(), 1000+emitBatch)

	// Cancelling the parked producer closes the stream within 50 ms, on
	// the best of three attempts; each attempt parks a fresh producer.
	best := bestOfThree(50*time.Millisecond, func() time.Duration {
		if j == nil {
			id = rt.DispatchEmitN(1_000_000, DispatchOptions{})
			j = rt.pending[id]
			pumpUntil(t, rt, func() bool { return j.stream.credit.InFlight() >= 1000 })
		}
		start := time.Now()
		rt.Cancel(id)
		res := drainStream(t, rt, id, time.Millisecond, 5*time.Second)
		took := time.Since(start)
		require.Equal(t, Cancelled, res.outcome.State)
		require.NotEmpty(t, res.ints, "an explicit cancel delivers what was buffered")
		require.Zero(t, j.stream.credit.InFlight(), "delivered items return their credit")
		j = nil
		return took
	})
	t.Logf("cancel of a producer parked on credit closed its stream in %v", best)
	require.Less(t, best, 50*time.Millisecond, "cancel did not close a parked stream within 50ms in three attempts")
}

// A stream whose cancel was requested delivers nothing more until its worker
// has stopped, and if it turns out to have completed anyway its items are
// delivered with a Complete close. (What a cancelled stream delivers once
// stopped: TestExplicitCancelDeliversBufferedItemsSupersedeDropsThem.)
func TestCancelRequestedStreamHoldsItems(t *testing.T) {
	rt := newRT(t, 2)
	id := rt.DispatchEmitN(10, DispatchOptions{})
	pumpUntil(t, rt, func() bool { return rt.IsComplete(id) })
	j := rt.pending[id]
	// Completed before the cancel: Cancel is a no-op and the items come.
	rt.Cancel(id)
	require.False(t, j.cancelRequested)
	res := drainStream(t, rt, id, time.Millisecond, time.Second)
	require.Equal(t, Complete, res.outcome.State)
	require.Len(t, res.ints, 10)

	// Items buffered for a running stream whose cancel is requested are held.
	k := rt.newJob(KindEmitN, "")
	rt.newStream(k, 0)
	require.NoError(t, k.stream.credit.Acquire(context.Background(), 3))
	require.NoError(t, rt.wbus.Send(replyTopic, intsReply(k.id, 1, 2, 3)))
	rt.Tick()
	rt.Cancel(k.id)
	require.Empty(t, rt.TakeStreamBatches())
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: k.id, Kind: replyClosed}))
	rt.Tick()
	batches := rt.TakeStreamBatches()
	require.Len(t, batches, 1)
	require.Equal(t, []uint64{1, 2, 3}, intsOf(batches[0]))
	require.True(t, batches[0].Closed)
	require.Equal(t, Complete, batches[0].Outcome.State)
}

// A held stream delivers nothing and its producer stops at the credit; on
// release every item arrives, in order, and the stream closes.
func TestHoldStreamPushesBackOnTheProducer(t *testing.T) {
	rt, err := New(Options{StreamCredit: 512})
	require.NoError(t, err)
	t.Cleanup(rt.Close)
	id := rt.DispatchEmitN(5000, DispatchOptions{MaxBatch: 100})
	rt.HoldStream(id, true)
	rt.HoldStream(12345, true) // unknown: ignored
	j := rt.pending[id]
	deadline := time.Now().Add(100 * time.Millisecond)
	for time.Now().Before(deadline) {
		rt.Tick()
		require.Empty(t, rt.TakeStreamBatches())
		require.LessOrEqual(t, j.stream.credit.InFlight(), 512+emitBatch)
		waitReady(rt, time.Millisecond)
	}
	require.False(t, rt.IsComplete(id))
	rt.HoldStream(id, false)
	res := drainStream(t, rt, id, time.Millisecond, 5*time.Second)
	require.Equal(t, Complete, res.outcome.State)
	require.Len(t, res.ints, 5000)
	require.Equal(t, uint64(5000), res.ints[4999])
}

// Releasing a held stream that settled while held delivers its closing batch.
func TestHoldStreamReleaseAfterSettle(t *testing.T) {
	rt := newRT(t, 2)
	id := rt.DispatchEmitN(3, DispatchOptions{})
	rt.HoldStream(id, true)
	pumpUntil(t, rt, func() bool { return rt.IsComplete(id) })
	require.Empty(t, rt.TakeStreamBatches())
	rt.HoldStream(id, false)
	b := rt.TakeStreamBatches()
	require.Len(t, b, 1)
	require.True(t, b[0].Closed)
	require.Equal(t, []uint64{1, 2, 3}, intsOf(b[0]))
}

// bufferedStream makes a running emit_n stream under key whose items
// 1..n wait in the runtime, undelivered.
func bufferedStream(t *testing.T, rt *Runtime, key string, n uint64) *job {
	t.Helper()
	j := rt.newJob(KindEmitN, key)
	rt.newStream(j, 0)
	items := make([]uint64, n)
	for i := range items {
		items[i] = uint64(i + 1)
	}
	require.NoError(t, j.stream.credit.Acquire(context.Background(), len(items)))
	require.NoError(t, rt.wbus.Send(replyTopic, intsReply(j.id, items...)))
	rt.Tick()
	return j
}

// A stream cancelled with Cancel delivers the items it had already
// buffered once its worker has stopped, then closes Cancelled, as the seed
// does; a superseded stream drops them and closes at once, marked
// Superseded (issue 11: where the seed's behaviour was lost).
func TestExplicitCancelDeliversBufferedItemsSupersedeDropsThem(t *testing.T) {
	rt := newRT(t, 2)
	cancelled := bufferedStream(t, rt, "", 3)
	rt.Cancel(cancelled.id)
	require.Empty(t, rt.TakeStreamBatches(), "nothing more until the worker has stopped")
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: cancelled.id, Kind: replyCancelled}))
	rt.Tick()
	batches := rt.TakeStreamBatches()
	require.Len(t, batches, 1)
	require.Equal(t, []uint64{1, 2, 3}, intsOf(batches[0]))
	require.True(t, batches[0].Closed)
	require.Equal(t, Cancelled, batches[0].Outcome.State)
	require.False(t, batches[0].Superseded)
	require.Zero(t, cancelled.stream.credit.InFlight(), "delivered items return their credit")

	superseded := bufferedStream(t, rt, "search", 3)
	successor := rt.newJob(KindEmitN, "search")
	rt.newStream(successor, 0)
	require.Empty(t, rt.TakeStreamBatches())
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: superseded.id, Kind: replyCancelled}))
	rt.Tick()
	batches = rt.TakeStreamBatches()
	require.Len(t, batches, 1)
	require.Empty(t, intsOf(batches[0]), "a superseded search must not land late")
	require.True(t, batches[0].Closed)
	require.Equal(t, Cancelled, batches[0].Outcome.State)
	require.True(t, batches[0].Superseded)
	require.Zero(t, superseded.stream.credit.InFlight(), "dropped items return their credit")
}

// A held stream that is superseded still closes at once, marked
// Superseded: the hold keeps items back from a consumer that is not ready,
// and a superseded stream has none left to keep. Before, its closing batch
// waited for the release, so a consumer busy with a batch it had taken
// could not learn that batch was stale, and showed it.
func TestHeldStreamSupersededClosesAtOnce(t *testing.T) {
	rt := newRT(t, 2)
	held := bufferedStream(t, rt, "search", 3)
	rt.HoldStream(held.id, true)
	successor := rt.newJob(KindEmitN, "search")
	rt.newStream(successor, 0)
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: held.id, Kind: replyCancelled}))
	rt.Tick()
	batches := rt.TakeStreamBatches()
	require.Len(t, batches, 1)
	require.Equal(t, held.id, batches[0].ID)
	require.Empty(t, intsOf(batches[0]), "a superseded search must not land late")
	require.True(t, batches[0].Closed)
	require.True(t, batches[0].Superseded)
	require.Zero(t, held.stream.credit.InFlight(), "dropped items return their credit")

	// A held stream cancelled with Cancel keeps its items for the release.
	cancelled := bufferedStream(t, rt, "", 3)
	rt.HoldStream(cancelled.id, true)
	rt.Cancel(cancelled.id)
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: cancelled.id, Kind: replyCancelled}))
	rt.Tick()
	require.Empty(t, rt.TakeStreamBatches())
	rt.HoldStream(cancelled.id, false)
	batches = rt.TakeStreamBatches()
	require.Len(t, batches, 1)
	require.Equal(t, []uint64{1, 2, 3}, intsOf(batches[0]))
	require.True(t, batches[0].Closed)
}

// A batch's weight is what its items held of the stream's credit: an item
// is one unit, a program's line one per started 4 KiB of its text.
func TestStreamBatchWeight(t *testing.T) {
	lines := &StreamBatch{Items: testLines{"", strings.Repeat("x", 4095), strings.Repeat("x", 4096), strings.Repeat("x", 10_000)}}
	require.Equal(t, 4, lines.Len())
	require.Equal(t, 1+1+2+3, lines.Weight())
	ints := &StreamBatch{Items: testInts{1, 2, 3}}
	require.Equal(t, 3, ints.Weight())
}
