package runtime

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// sendSums registers n external jobs and queues a sum reply for each, in
// order, returning their ids.
func sendSums(t *testing.T, rt *Runtime, n int) []JobID {
	ids := make([]JobID, n)
	for i := range ids {
		ids[i], _ = rt.RegisterExternal(kindReply, "")
		require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: ids[i], Kind: replySum, N: uint64(i)}))
	}
	return ids
}

// readyToken reports whether the Ready channel holds a token, taking it.
func readyToken(rt *Runtime) bool {
	select {
	case <-rt.Ready():
		return true
	default:
		return false
	}
}

// A bounded tick leaves the rest of the replies with the runtime: the next
// tick applies them first, in arrival order and each once, and meanwhile
// Pending says so and Ready holds a token even though the loop already took
// the one the bus sent.
func TestTickWithinLeavesRestInOrder(t *testing.T) {
	rt := newRT(t, 1)
	first := sendSums(t, rt, 250)
	require.True(t, readyToken(rt), "the bus signals its replies")

	out := rt.TickWithin(TickLimit{Max: 100})
	require.Equal(t, first[:100], out.Settled)
	require.True(t, rt.Pending())
	require.True(t, readyToken(rt), "leftover replies must wake the loop again")

	// Replies arriving now go after the leftovers.
	second := sendSums(t, rt, 20)
	out = rt.TickWithin(TickLimit{Max: 100})
	require.Equal(t, first[100:200], out.Settled)
	require.True(t, rt.Pending())

	out = rt.Tick()
	require.Equal(t, append(append([]JobID{}, first[200:]...), second...), out.Settled)
	require.False(t, rt.Pending())
	readyToken(rt) // the token the second batch sent, if still there
	require.False(t, readyToken(rt), "nothing left: no token")

	for i, id := range append(first, second...) {
		o, ok := rt.TakeResult(id)
		require.True(t, ok, "job %d", i)
		require.Equal(t, Complete, o.State)
	}
	require.Empty(t, rt.Tick().Settled)
}

// The clock is read every 64 replies: a deadline already past stops a tick
// after exactly 64, so a frame whose time is spent still makes progress and
// overruns by a bounded amount of work.
func TestTickWithinDeadlineStopsEvery64(t *testing.T) {
	rt := newRT(t, 1)
	ids := sendSums(t, rt, 200)
	past := time.Now().Add(-time.Second)
	var got []JobID
	for range 3 {
		out := rt.TickWithin(TickLimit{Deadline: past})
		require.Len(t, out.Settled, 64)
		got = append(got, out.Settled...)
		require.True(t, rt.Pending())
	}
	out := rt.TickWithin(TickLimit{Deadline: past})
	got = append(got, out.Settled...)
	require.Equal(t, ids, got)
	require.False(t, rt.Pending())

	// A deadline in the future, or none, applies everything.
	ids = sendSums(t, rt, 200)
	out = rt.TickWithin(TickLimit{Deadline: time.Now().Add(time.Hour)})
	require.Equal(t, ids, out.Settled)
}

// Resources keep arrival order across bounded ticks.
func TestTickWithinResourcesInOrder(t *testing.T) {
	rt := newRT(t, 1)
	var want []ResourceOp
	for i := range 5 {
		j := rt.newJob(testKind, "")
		op := ResourceOp{Op: ResourceRemove, From: "/tmp/gone-" + string(rune('a'+i))}
		j.resource = &op
		want = append(want, op)
		require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: j.t.id, Kind: replyUnit}))
	}
	var got []ResourceOp
	for rt.Pending() {
		got = append(got, rt.TickWithin(TickLimit{Max: 2}).Resources...)
	}
	require.Equal(t, want, got)
}

// Large replies are clocked by their size, not only every 64: with a
// deadline already past, a tick whose replies each carry more than
// tickCheckBytes applies one of them and stops, where reading the clock
// every 64 replies would decode 64 (a stream of 4096-match batches made
// that tens of milliseconds past a frame's budget). Small replies keep the
// every-64 rhythm.
func TestTickWithinClocksLargeRepliesEachOne(t *testing.T) {
	rt := newRT(t, 1)
	big := strings.Repeat("x", tickCheckBytes)
	ids := make([]JobID, 10)
	for i := range ids {
		ids[i], _ = rt.RegisterExternal(kindReply, "")
		require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: ids[i], Kind: replyFailed, Msg: big}))
	}
	past := time.Now().Add(-time.Second)
	var got []JobID
	for range ids {
		out := rt.TickWithin(TickLimit{Deadline: past})
		require.Len(t, out.Settled, 1, "one large reply per look at a spent deadline")
		got = append(got, out.Settled...)
	}
	require.Equal(t, ids, got)
	require.False(t, rt.Pending())

	// Mixed: small replies until their bytes add up, then the clock.
	small := sendSums(t, rt, 100)
	out := rt.TickWithin(TickLimit{Deadline: past})
	require.Len(t, out.Settled, 64)
	require.Equal(t, small[:64], out.Settled)
	rt.Tick()
}
