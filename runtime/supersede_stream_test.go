package runtime

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/bus"
	"github.com/pmacs-go/pmacs-go/grep"
)

// supersededStream makes a stream job under key with credit taken for n
// items, then supersedes it: the returned job is the predecessor, whose
// worker has not yet seen the cancel.
func supersededStream(t *testing.T, rt *Runtime, key string, n int) *job {
	t.Helper()
	old := rt.newJob(KindGrep, key)
	rt.newStream(old, 0)
	require.NoError(t, old.stream.credit.Acquire(context.Background(), n))
	next := rt.newJob(KindGrep, key)
	rt.newStream(next, 0)
	require.True(t, old.superseded)
	require.Equal(t, Running, old.state, "the worker has not acknowledged the cancel")
	return old
}

// A batch a superseded search sent before its worker saw the cancel is
// dropped without being decoded, and its credit comes back at once. The
// batch here is damaged past its header: decoded, it would count as a
// malformed reply and fail the job (as it did before).
func TestSupersededStreamBatchIsDroppedUndecoded(t *testing.T) {
	rt := newRT(t, 2)
	old := supersededStream(t, rt, "search", 2)
	// [job, items, weight 2, [two matches...]] with the matches cut to
	// garbage.
	payload := []byte{0x94}
	payload = append(payload, byte(old.t.id), byte(replyItems), 0x02, 0x92)
	payload = append(payload, make([]byte, 14)...)
	require.NoError(t, rt.wbus.SendEnvelope(bus.Envelope{Topic: replyTopic, Payload: payload}))
	rt.Tick()
	require.Zero(t, rt.MalformedReplies(), "the batch was decoded")
	require.Zero(t, old.stream.credit.InFlight(), "the dropped items' credit is back before the worker stops")
	require.Equal(t, Running, old.state)

	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: old.t.id, Kind: replyCancelled}))
	rt.Tick()
	batches := rt.TakeStreamBatches()
	require.Len(t, batches, 1)
	require.Empty(t, matchesOf(batches[0]))
	require.True(t, batches[0].Closed)
	require.True(t, batches[0].Superseded)
	require.ErrorIs(t, batches[0].Outcome.Err, ErrSuperseded)
}

// A superseded search whose worker finished before it saw the cancel does
// not land late: it closes Cancelled and superseded, without the items it
// sent, as one that stopped at the cancel does. Before, it closed Complete
// and delivered them.
func TestSupersededStreamThatCompletesAnywayDoesNotLandLate(t *testing.T) {
	rt := newRT(t, 2)
	old := supersededStream(t, rt, "search", 1)
	require.NoError(t, rt.wbus.Send(replyTopic, matchesReply(old.t.id, sampleMatch)))
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: old.t.id, Kind: replyClosed}))
	rt.Tick()
	batches := rt.TakeStreamBatches()
	require.Len(t, batches, 1)
	require.Empty(t, matchesOf(batches[0]), "a superseded search must not land late")
	require.True(t, batches[0].Closed)
	require.True(t, batches[0].Superseded)
	require.Equal(t, Cancelled, batches[0].Outcome.State)
	require.True(t, errors.Is(batches[0].Outcome.Err, ErrSuperseded))
	require.Zero(t, old.stream.credit.InFlight())

	// An explicit cancel still delivers what its stream sent: only a
	// supersede drops items.
	cancelled := rt.newJob(KindGrep, "")
	rt.newStream(cancelled, 0)
	require.NoError(t, cancelled.stream.credit.Acquire(context.Background(), 1))
	rt.Cancel(cancelled.t.id)
	require.NoError(t, rt.wbus.Send(replyTopic, matchesReply(cancelled.t.id, sampleMatch)))
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: cancelled.t.id, Kind: replyClosed}))
	rt.Tick()
	batches = rt.TakeStreamBatches()
	require.Len(t, batches, 1)
	require.Len(t, matchesOf(batches[0]), 1)
	require.Equal(t, Complete, batches[0].Outcome.State)
}

// BenchmarkTickSupersededGrepBatches measures a tick that meets 16 batches
// of 2,048 matches from a search superseded after it sent them: the frame
// after a keystroke that restarts a live grep.
func BenchmarkTickSupersededGrepBatches(b *testing.B) {
	rt, err := New(Options{StreamCredit: MaxStreamCredit})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(rt.Close)
	ms := make([]grep.Match, 2048)
	for i := range ms {
		ms[i] = sampleMatch
	}
	for b.Loop() {
		b.StopTimer()
		old := rt.newJob(KindGrep, "search")
		rt.newStream(old, 0)
		env, err := rt.main.Registry().Encode(replyTopic, matchesReply(old.t.id, ms...))
		if err != nil {
			b.Fatal(err)
		}
		payload := env.Payload
		for range 16 {
			if err := old.stream.credit.Acquire(context.Background(), len(ms)); err != nil {
				b.Fatal(err)
			}
			if err := rt.wbus.SendEnvelope(bus.Envelope{Topic: replyTopic, Payload: payload}); err != nil {
				b.Fatal(err)
			}
		}
		rt.newJob(KindGrep, "search") // supersedes old
		b.StartTimer()
		rt.Tick()
	}
}
