package runtime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakePoller settles the external jobs queued in todo, one per unit of
// work, and records the budgets it was given.
type fakePoller struct {
	rt      *Runtime
	ready   chan struct{}
	todo    []JobID
	budgets []time.Duration
	// during, when set, runs inside Poll.
	during func()
}

func newFakePoller(rt *Runtime) *fakePoller {
	return &fakePoller{rt: rt, ready: make(chan struct{}, 1)}
}

func (p *fakePoller) Ready() <-chan struct{} { return p.ready }

func (p *fakePoller) Poll(budget time.Duration) int {
	p.budgets = append(p.budgets, budget)
	if p.during != nil {
		p.during()
	}
	n := len(p.todo)
	for _, id := range p.todo {
		_ = p.rt.CompleteExternalOK(id, "done")
	}
	p.todo = nil
	return n
}

func (p *fakePoller) signal() {
	select {
	case p.ready <- struct{}{}:
	default:
	}
}

// A registered poller is polled by Tick before the bus is drained, so the
// job it settles settles in that same tick; Tick gives no budget (0) and
// TickWithin what is left of its deadline.
func TestPollerSettlesInTheTickThatPollsIt(t *testing.T) {
	rt := newRT(t, 1)
	p := newFakePoller(rt)
	remove := rt.AddPoller(p)
	defer remove()

	id, _ := rt.RegisterExternal(kindReply, "")
	p.todo = append(p.todo, id)
	out := rt.Tick()
	require.Equal(t, []JobID{id}, out.Settled, "settled in the tick that polled it")
	require.Equal(t, []time.Duration{0}, p.budgets, "Tick sets no budget")

	limit := 50 * time.Millisecond
	rt.TickWithin(TickLimit{Deadline: time.Now().Add(limit)})
	require.Len(t, p.budgets, 2)
	require.Greater(t, p.budgets[1], time.Duration(0))
	require.LessOrEqual(t, p.budgets[1], limit, "the poller gets what is left of the frame")

	rt.TickWithin(TickLimit{Deadline: time.Now().Add(-time.Second)})
	require.Equal(t, time.Nanosecond, p.budgets[2], "a spent frame still polls, with the least budget")
}

// Removing a poller stops its polls; removing it twice is harmless.
func TestRemovedPollerIsNotPolled(t *testing.T) {
	rt := newRT(t, 1)
	p := newFakePoller(rt)
	remove := rt.AddPoller(p)
	rt.Tick()
	require.Len(t, p.budgets, 1)
	remove()
	remove()
	rt.Tick()
	rt.Tick()
	require.Len(t, p.budgets, 1, "not polled once removed")
}

// A poller may remove itself and add another while it is polled: the one
// added is first polled by the next tick.
func TestPollerMayAddAndRemoveWhilePolled(t *testing.T) {
	rt := newRT(t, 1)
	first, second := newFakePoller(rt), newFakePoller(rt)
	var removeFirst, removeSecond func()
	first.during = func() {
		removeFirst()
		removeSecond = rt.AddPoller(second)
	}
	removeFirst = rt.AddPoller(first)
	rt.Tick()
	require.Len(t, first.budgets, 1)
	require.Empty(t, second.budgets, "added during a tick: polled from the next")
	rt.Tick()
	require.Len(t, first.budgets, 1)
	require.Len(t, second.budgets, 1)
	removeSecond()
}

// A poller's Ready token reaches the runtime's Ready channel, so a loop
// waits on that alone; after removal its tokens no longer do.
func TestPollerReadyWakesTheRuntime(t *testing.T) {
	rt := newRT(t, 1)
	p := newFakePoller(rt)
	remove := rt.AddPoller(p)
	rt.Tick() // drains any token
	p.signal()
	select {
	case <-rt.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("the poller's token never reached the runtime's Ready")
	}
	e := rt.pollers.list[0]
	remove()
	select {
	case <-e.forwarded:
	case <-time.After(10 * time.Second):
		t.Fatal("the forwarder outlived the removal")
	}
	p.signal()
	rt.Tick()
	select {
	case <-rt.Ready():
		t.Fatal("a removed poller's token woke the runtime")
	default:
	}
}

// Work that arrives while the pollers run is signalled to the runtime's
// Ready; the tick's drain of the bus, which clears that channel, must not
// swallow the token, or the loop would sleep while the work waits.
func TestPollerTokenDuringTickSurvivesTheDrain(t *testing.T) {
	rt := newRT(t, 1)
	p := newFakePoller(rt)
	remove := rt.AddPoller(p)
	defer remove()
	p.during = func() {
		p.during = nil
		p.signal()
		// Wait until the forwarder has passed the token on.
		deadline := time.Now().Add(10 * time.Second)
		for len(rt.Ready()) == 0 {
			require.True(t, time.Now().Before(deadline), "the token was never forwarded")
			time.Sleep(time.Millisecond)
		}
	}
	rt.Tick()
	require.Len(t, rt.Ready(), 1, "the token sent during the polls is still there")
}

// A poller added after Close is never polled, and Close ends the
// forwarders of those still registered (TestMain checks for leaks).
func TestPollerAfterClose(t *testing.T) {
	rt := newRT(t, 1)
	p := newFakePoller(rt)
	rt.AddPoller(p)
	rt.Close()
	late := newFakePoller(rt)
	rt.AddPoller(late)()
	rt.Tick()
	require.Empty(t, late.budgets)
}
