package runtime

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A stream whose cancel was requested delivers nothing more until its worker
// has stopped, and if it turns out to have completed anyway its items are
// delivered with a Complete close. (What a cancelled stream delivers once
// stopped: TestExplicitCancelDeliversBufferedItemsSupersedeDropsThem.)
func TestCancelRequestedStreamHoldsItems(t *testing.T) {
	rt := newRT(t, 2)
	id := rt.startInts(10, DispatchOptions{})
	pumpUntil(t, rt, func() bool { return rt.IsComplete(id) })
	j := rt.pending.get(id)
	// Completed before the cancel: Cancel is a no-op and the items come.
	rt.Cancel(id)
	require.False(t, j.cancelRequested)
	res := drainStream(t, rt, id, time.Second)
	require.Equal(t, Complete, res.outcome.State)
	require.Len(t, res.ints, 10)

	// Items buffered for a running stream whose cancel is requested are held.
	k := rt.newJob(testIntsKind, "")
	rt.newStream(k, 0)
	require.NoError(t, k.stream.credit.Acquire(context.Background(), 3))
	require.NoError(t, rt.wbus.Send(replyTopic, intsReply(k.t.id, 1, 2, 3)))
	rt.Tick()
	rt.Cancel(k.t.id)
	require.Empty(t, rt.TakeStreamBatches())
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: k.t.id, Kind: replyClosed}))
	rt.Tick()
	batches := rt.TakeStreamBatches()
	require.Len(t, batches, 1)
	require.Equal(t, []uint64{1, 2, 3}, intsOf(batches[0]))
	require.True(t, batches[0].Closed)
	require.Equal(t, Complete, batches[0].Outcome.State)
}

// bufferedStream makes a running integer stream under key whose items
// 1..n wait in the runtime, undelivered.
func bufferedStream(t *testing.T, rt *Runtime, key string, n uint64) *job {
	t.Helper()
	j := rt.newJob(testIntsKind, key)
	rt.newStream(j, 0)
	items := make([]uint64, n)
	for i := range items {
		items[i] = uint64(i + 1)
	}
	require.NoError(t, j.stream.credit.Acquire(context.Background(), len(items)))
	require.NoError(t, rt.wbus.Send(replyTopic, intsReply(j.t.id, items...)))
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
	rt.Cancel(cancelled.t.id)
	require.Empty(t, rt.TakeStreamBatches(), "nothing more until the worker has stopped")
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: cancelled.t.id, Kind: replyCancelled}))
	rt.Tick()
	batches := rt.TakeStreamBatches()
	require.Len(t, batches, 1)
	require.Equal(t, []uint64{1, 2, 3}, intsOf(batches[0]))
	require.True(t, batches[0].Closed)
	require.Equal(t, Cancelled, batches[0].Outcome.State)
	require.False(t, batches[0].Superseded)
	require.Zero(t, cancelled.stream.credit.InFlight(), "delivered items return their credit")

	superseded := bufferedStream(t, rt, "search", 3)
	successor := rt.newJob(testIntsKind, "search")
	rt.newStream(successor, 0)
	require.Empty(t, rt.TakeStreamBatches())
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: superseded.t.id, Kind: replyCancelled}))
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
	rt.HoldStream(held.t.id, true)
	successor := rt.newJob(testIntsKind, "search")
	rt.newStream(successor, 0)
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: held.t.id, Kind: replyCancelled}))
	rt.Tick()
	batches := rt.TakeStreamBatches()
	require.Len(t, batches, 1)
	require.Equal(t, held.t.id, batches[0].ID)
	require.Empty(t, intsOf(batches[0]), "a superseded search must not land late")
	require.True(t, batches[0].Closed)
	require.True(t, batches[0].Superseded)
	require.Zero(t, held.stream.credit.InFlight(), "dropped items return their credit")

	// A held stream cancelled with Cancel keeps its items for the release.
	cancelled := bufferedStream(t, rt, "", 3)
	rt.HoldStream(cancelled.t.id, true)
	rt.Cancel(cancelled.t.id)
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: cancelled.t.id, Kind: replyCancelled}))
	rt.Tick()
	require.Empty(t, rt.TakeStreamBatches())
	rt.HoldStream(cancelled.t.id, false)
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
