package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/workers"
)

// settleExternal completes a fresh external job with v and returns the
// outcome the next Tick settled and the error CompleteExternalOK gave.
func settleExternal(t *testing.T, rt *Runtime, v any) (Outcome, error) {
	t.Helper()
	id, _ := rt.RegisterExternal(kindReply, "")
	err := rt.CompleteExternalOK(id, v)
	require.Equal(t, []JobID{id}, rt.Tick().Settled, "the job settles at the next Tick")
	o, ok := rt.TakeResult(id)
	require.True(t, ok)
	return o, err
}

// nest wraps leaf in depth single-element arrays.
func nest(leaf any, depth int) any {
	v := leaf
	for range depth {
		v = []any{v}
	}
	return v
}

// Replies a real language server sends (a semantic-tokens array of 70,000
// integers, a 4 MB document, a deeply nested selection-range chain) complete
// with their value: whatever CompleteExternalOK accepts, the job completes
// with, and nothing is left Running (issue 11 defect 4).
func TestExternalLargeAndDeepRepliesComplete(t *testing.T) {
	rt := newRT(t, 2)

	tokens := make([]any, 70_000)
	for i := range tokens {
		tokens[i] = i * 7
	}
	o, err := settleExternal(t, rt, map[string]any{"data": tokens})
	require.NoError(t, err)
	require.Equal(t, Complete, o.State, "%v", o.Err)
	got := o.value.(map[string]any)["data"].([]any)
	require.Len(t, got, len(tokens))
	for i, v := range got {
		require.EqualValues(t, i*7, v, "token %d", i)
	}

	doc := strings.Repeat("0123456789abcdef", 4<<20/16)
	o, err = settleExternal(t, rt, doc)
	require.NoError(t, err)
	require.Equal(t, Complete, o.State, "%v", o.Err)
	require.Equal(t, doc, o.value)

	o, err = settleExternal(t, rt, nest("leaf", 1000))
	require.NoError(t, err)
	require.Equal(t, Complete, o.State, "%v", o.Err)
	v := o.value
	for range 1000 {
		list, ok := v.([]any)
		require.True(t, ok)
		require.Len(t, list, 1)
		v = list[0]
	}
	require.Equal(t, "leaf", v)
	require.Zero(t, rt.PendingLen())
}

// A value that cannot cross the bus is refused by CompleteExternalOK with
// the reason, and the job settles Failed with that reason instead of
// staying Running: a map with integer keys, nesting past the bound, and a
// cyclic value (which would otherwise recurse the encoder until the process
// died).
func TestExternalValueThatCannotCrossFailsTheJobWithTheReason(t *testing.T) {
	rt := newRT(t, 2)
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	for name, c := range map[string]struct {
		v    any
		want string
	}{
		"integer keys": {map[int]any{1: "a"}, "string keys"},
		"too deep":     {nest(nil, maxWireDepth+5), "nested deeper than"},
		"cyclic":       {cyclic, "nested deeper than"},
	} {
		o, err := settleExternal(t, rt, c.v)
		require.ErrorContains(t, err, c.want, name)
		require.Equal(t, Failed, o.State, name)
		require.Contains(t, jobErr(t, o.Err).Message, c.want, name)
		require.Contains(t, jobErr(t, o.Err).Message, "reply#", name)
	}
	require.Zero(t, rt.PendingLen())
}

// A second completion of an external job is a no-op whichever function made
// the first, and a completion for an unknown id does nothing.
func TestExternalFirstCompletionWins(t *testing.T) {
	rt := newRT(t, 2)
	a, _ := rt.RegisterExternal(kindReply, "")
	b, _ := rt.RegisterExternal(kindReply, "")
	rt.CompleteExternalFailed(a, errors.New("server said no"))
	require.NoError(t, rt.CompleteExternalOK(a, "late"))
	require.NoError(t, rt.CompleteExternalOK(b, "first"))
	require.NoError(t, rt.CompleteExternalOK(b, "second"))
	rt.CompleteExternalCancelled(b)
	require.NoError(t, rt.CompleteExternalOK(12345, make(chan int)))
	require.Equal(t, []JobID{a, b}, rt.Tick().Settled)
	oa, _ := rt.TakeResult(a)
	require.Equal(t, Failed, oa.State)
	require.Nil(t, rt.pending.get(a), "the late value is not pinned")
	ob, _ := rt.TakeResult(b)
	require.Equal(t, Outcome{State: Complete, value: "first", external: true}, ob)
	require.Empty(t, rt.Tick().Settled)
}

// A reply for a known job that reaches Tick but does not decode settles that
// job Failed with malformed_reply and the decoder's reason: a value with a
// non-string map key, an unknown reply kind, a truncated reply. Nothing is
// left Running because its reply was dropped (issue 11 defect 4).
func TestUndecodableReplyForAKnownJobFailsIt(t *testing.T) {
	rt := newRT(t, 2)
	cases := map[string]func(id JobID) []byte{
		"int map key": func(id JobID) []byte {
			return append([]byte{0x93}, append(appendUint(nil, uint64(id)), byte(replyValue), 0x81, 0x01, 0xa1, 'x')...)
		},
		"unknown kind": func(id JobID) []byte { return append(append([]byte{0x92}, appendUint(nil, uint64(id))...), 0x7f) },
		"truncated": func(id JobID) []byte {
			return append(append([]byte{0x93}, appendUint(nil, uint64(id))...), byte(replySum))
		},
		"wide header": func(id JobID) []byte {
			return append(append([]byte{0xdc, 0x00, 0x02}, appendUint(nil, uint64(id))...), 0x7f)
		},
	}
	for name, payload := range cases {
		// Ids above 127 and 255 exercise the wider integer forms.
		for range 130 {
			rt.newJob(kindReply, "")
		}
		id, _ := rt.RegisterExternal(kindReply, "")
		require.NoError(t, rt.wbus.SendEnvelope(busEnvelope(payload(id))))
		require.Equal(t, []JobID{id}, rt.Tick().Settled, name)
		o, ok := rt.TakeResult(id)
		require.True(t, ok)
		require.Equal(t, Failed, o.State, name)
		require.Equal(t, CodeMalformedReply, jobErr(t, o.Err).Code, name)
		require.Contains(t, jobErr(t, o.Err).Message, jobName(kindReply, id)+": its reply could not be decoded", name)
	}
}

// An items envelope that does not decode fails its stream: the items
// delivered before it still arrive, then the stream closes Failed with
// malformed_reply, and its producer's context is cancelled so it stops.
func TestUndecodableStreamItemsFailTheStream(t *testing.T) {
	rt := newRT(t, 2)
	j := rt.newJob(testIntsKind, "")
	rt.newStream(j, 0)
	require.NoError(t, rt.wbus.Send(replyTopic, intsReply(j.t.id, 1, 2)))
	bad := append(append([]byte{0x94}, appendUint(nil, uint64(j.t.id))...), byte(replyItems), 0x02, 0x92, 0x03, 0xa1, 'x')
	require.NoError(t, rt.wbus.SendEnvelope(busEnvelope(bad)))
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: j.t.id, Kind: replyClosed}))
	require.Equal(t, []JobID{j.t.id}, rt.Tick().Settled)
	require.Error(t, j.t.ctx.Err(), "the producer is told to stop")
	batches := rt.TakeStreamBatches()
	require.Len(t, batches, 1)
	require.Equal(t, []uint64{1, 2}, intsOf(batches[0]))
	require.True(t, batches[0].Closed)
	require.Equal(t, Failed, batches[0].Outcome.State)
	require.Equal(t, CodeMalformedReply, jobErr(t, batches[0].Outcome.Err).Code)
	require.Zero(t, rt.PendingLen())
}

// peekJobID reads the id in every integer form the encoder writes, and
// nothing from payloads that hold none.
func TestPeekJobIDReadsEveryIntegerForm(t *testing.T) {
	for _, n := range []uint64{0, 1, 127, 128, 255, 256, 65535, 65536, 1<<32 - 1, 1 << 32, 1<<64 - 1} {
		got, ok := peekJobID(append([]byte{0x92}, appendUint(nil, n)...))
		require.True(t, ok, "%d", n)
		require.Equal(t, JobID(n), got)
	}
	for name, p := range map[string][]byte{
		"empty": nil, "not an array": {0x01}, "empty array": {0x90}, "no id": {0x92},
		"string id": {0x92, 0xa1, 'x'}, "negative": {0x92, 0xd0, 0xff}, "short uint16": {0x92, 0xcd, 0x01},
	} {
		_, ok := peekJobID(p)
		require.False(t, ok, name)
	}
}

// A worker reply that cannot be encoded fails its job with the reason
// instead of being dropped, which left the job Running forever.
func TestUnencodableWorkerReplyFailsTheJob(t *testing.T) {
	rt := newRT(t, 2)
	j := rt.newJob(kindReply, "")
	rt.start(j, BuiltinActor, workers.LaneRead, func(context.Context, *Task) reply {
		return reply{Kind: replyValue, Value: make(chan int)}
	})
	o := outcomeOf(t, rt, j.t.id)
	require.Equal(t, Failed, o.State)
	require.Equal(t, CodeMalformedReply, jobErr(t, o.Err).Code)
	require.Contains(t, jobErr(t, o.Err).Message, jobName(kindReply, j.t.id)+": its reply could not be encoded")
}

// BenchmarkExternalSemanticTokens70k measures the main goroutine's cost of
// completing an external job with a 70,000-integer array (a semantic-tokens
// reply) and settling it: the copy through the wire form plus the Tick.
func BenchmarkExternalSemanticTokens70k(b *testing.B) {
	rt, err := New(Options{})
	require.NoError(b, err)
	defer rt.Close()
	tokens := make([]any, 70_000)
	for i := range tokens {
		tokens[i] = int64(i % 5000)
	}
	reply := map[string]any{"resultId": "1", "data": tokens}
	b.ReportAllocs()
	for b.Loop() {
		id, _ := rt.RegisterExternal(kindReply, "")
		if err := rt.CompleteExternalOK(id, reply); err != nil {
			b.Fatal(err)
		}
		rt.Tick()
		if o, ok := rt.TakeResult(id); !ok || o.State != Complete {
			b.Fatalf("job %d: %+v", id, o)
		}
	}
}

// BenchmarkExternalOwnedSemanticTokens70k is BenchmarkExternalSemanticTokens70k
// with the copy made where the value arrives (OwnExternal on another
// goroutine, not timed): what is left on the main goroutine is
// CompleteExternalOwned and the Tick that settles the job.
func BenchmarkExternalOwnedSemanticTokens70k(b *testing.B) {
	rt, err := New(Options{})
	require.NoError(b, err)
	defer rt.Close()
	tokens := make([]any, 70_000)
	for i := range tokens {
		tokens[i] = int64(i % 5000)
	}
	reply := map[string]any{"resultId": "1", "data": tokens}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		v, err := rt.OwnExternal(reply)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		id, _ := rt.RegisterExternal(kindReply, "")
		rt.CompleteExternalOwned(id, v)
		rt.Tick()
		if o, ok := rt.TakeResult(id); !ok || o.State != Complete {
			b.Fatalf("job %d: %+v", id, o)
		}
	}
}
