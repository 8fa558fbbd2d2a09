package runtime_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/kinds/demojob"
	"github.com/pmacs-go/pmacs-go/kinds/kindtest"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// 10,000 items arrive without loss in at most 64 batches at a frame cadence
// (ported: streaming_handler_emits_all_items_with_few_batches).
func TestStreamEmitsAllItemsWithFewBatches(t *testing.T) {
	const n = 10_000
	rt := kindtest.New(t, 2)
	id := demojob.DispatchEmitN(rt, n, runtime.DispatchOptions{})
	res := kindtest.Drain(t, rt, id, 16*time.Millisecond, 10*time.Second)
	require.Equal(t, runtime.Outcome{State: runtime.Complete}, res.Outcome)
	require.Len(t, res.Items, n)
	for i, v := range res.Items.(demojob.Ints) {
		require.Equal(t, uint64(i+1), v, "items arrive in order")
	}
	require.LessOrEqual(t, res.Batches, 64)
	require.Zero(t, rt.PendingLen(), "the closing batch evicts the stream")
}

// Per-stream max batch caps every delivery (ported: stream_max_batch_caps_batch_size).
func TestStreamMaxBatchCapsBatchSize(t *testing.T) {
	rt := kindtest.New(t, 2)
	id := demojob.DispatchEmitN(rt, 1_000, runtime.DispatchOptions{MaxBatch: 32})
	res := kindtest.Drain(t, rt, id, 8*time.Millisecond, 10*time.Second)
	require.Len(t, res.Items, 1_000)
	require.LessOrEqual(t, res.MaxLen, 32)
	require.GreaterOrEqual(t, res.Batches, 1_000/32)
}

// TakeStreamBatches gives at most one batch per stream per call and nothing
// at all when no stream has anything to deliver.
func TestTakeStreamBatchesAtMostOnePerStream(t *testing.T) {
	rt := kindtest.New(t, 2)
	a := demojob.DispatchEmitN(rt, 300, runtime.DispatchOptions{MaxBatch: 100})
	b := demojob.DispatchEmitN(rt, 300, runtime.DispatchOptions{MaxBatch: 100})
	kindtest.PumpUntil(t, rt, func() bool { return rt.IsComplete(a) && rt.IsComplete(b) })
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
	rt, err := runtime.New(runtime.Options{StreamCredit: 1000})
	require.NoError(t, err)
	t.Cleanup(rt.Close)
	id := demojob.DispatchEmitN(rt, 1_000_000, runtime.DispatchOptions{})
	credit := rt.CreditOf(id)
	// Tick without taking batches: items pile up only to the credit.
	deadline := time.Now().Add(200 * time.Millisecond)
	for time.Now().Before(deadline) {
		rt.Tick()
		buffered, _, _ := rt.StreamHolds(id)
		require.LessOrEqual(t, buffered, 1000+emitBatch)
		kindtest.WaitReady(rt, time.Millisecond)
	}
	require.False(t, rt.IsComplete(id), "the producer is held by its credit")
	require.LessOrEqual(t, credit.InFlight(), 1000+emitBatch)

	// Cancelling the parked producer closes the stream within 50 ms, on
	// the best of three attempts; each attempt parks a fresh producer.
	best := kindtest.BestOfThree(50*time.Millisecond, func() time.Duration {
		if credit == nil {
			id = demojob.DispatchEmitN(rt, 1_000_000, runtime.DispatchOptions{})
			credit = rt.CreditOf(id)
			kindtest.PumpUntil(t, rt, func() bool { return credit.InFlight() >= 1000 })
		}
		start := time.Now()
		rt.Cancel(id)
		res := kindtest.Drain(t, rt, id, time.Millisecond, 5*time.Second)
		took := time.Since(start)
		require.Equal(t, runtime.Cancelled, res.Outcome.State)
		require.NotEmpty(t, res.Items, "an explicit cancel delivers what was buffered")
		require.Zero(t, credit.InFlight(), "delivered items return their credit")
		credit = nil
		return took
	})
	t.Logf("cancel of a producer parked on credit closed its stream in %v", best)
	require.Less(t, best, 50*time.Millisecond, "cancel did not close a parked stream within 50ms in three attempts")
}

// A held stream delivers nothing and its producer stops at the credit; on
// release every item arrives, in order, and the stream closes.
func TestHoldStreamPushesBackOnTheProducer(t *testing.T) {
	rt, err := runtime.New(runtime.Options{StreamCredit: 512})
	require.NoError(t, err)
	t.Cleanup(rt.Close)
	id := demojob.DispatchEmitN(rt, 5000, runtime.DispatchOptions{MaxBatch: 100})
	rt.HoldStream(id, true)
	rt.HoldStream(12345, true) // unknown: ignored
	credit := rt.CreditOf(id)
	deadline := time.Now().Add(100 * time.Millisecond)
	for time.Now().Before(deadline) {
		rt.Tick()
		require.Empty(t, rt.TakeStreamBatches())
		require.LessOrEqual(t, credit.InFlight(), 512+emitBatch)
		kindtest.WaitReady(rt, time.Millisecond)
	}
	require.False(t, rt.IsComplete(id))
	rt.HoldStream(id, false)
	res := kindtest.Drain(t, rt, id, time.Millisecond, 5*time.Second)
	require.Equal(t, runtime.Complete, res.Outcome.State)
	require.Len(t, res.Items, 5000)
	require.Equal(t, uint64(5000), res.Items.(demojob.Ints)[4999])
}

// Releasing a held stream that settled while held delivers its closing batch.
func TestHoldStreamReleaseAfterSettle(t *testing.T) {
	rt := kindtest.New(t, 2)
	id := demojob.DispatchEmitN(rt, 3, runtime.DispatchOptions{})
	rt.HoldStream(id, true)
	kindtest.PumpUntil(t, rt, func() bool { return rt.IsComplete(id) })
	require.Empty(t, rt.TakeStreamBatches())
	rt.HoldStream(id, false)
	b := rt.TakeStreamBatches()
	require.Len(t, b, 1)
	require.True(t, b[0].Closed)
	require.Equal(t, demojob.Ints{1, 2, 3}, demojob.IntsOf(b[0]))
}

// emitBatch is how many integers an emit_n producer sends at a time
// (kinds/demojob): what a stream may hold past its credit.
const emitBatch = 256
