package runtime

import (
	"sync/atomic"
	"time"
)

// Poller is main-goroutine work that does not arrive through the bus: a
// protocol client (lsp.Client, mcp.Host) whose replies are read and
// decoded on goroutines of its own and must be handed to the runtime
// (CompleteExternal*) on the runtime's goroutine. A poller registered with
// AddPoller is polled by every Tick, before the tick drains the bus, so the
// jobs a Poll settles settle in that same Tick; a host loop calls neither
// the poller nor anything else for it.
type Poller interface {
	// Poll does the work waiting for the main goroutine and returns how
	// much it did (messages handled, jobs handed over). budget is what the
	// frame has left for it: the poller stops once it is spent (it always
	// does at least one unit of work, so nothing starves) and signals
	// Ready for the rest, which waits for the next frame. A budget of 0
	// means the frame sets none: the poller's own bound applies. Called on
	// the runtime's goroutine, from inside Tick.
	Poll(budget time.Duration) int
	// Ready receives a token when work waits for Poll. It may be selected
	// on from any goroutine; the runtime forwards its tokens to its own
	// Ready channel.
	Ready() <-chan struct{}
}

// pollers are the registered pollers. list belongs to the runtime's
// goroutine; woke is set by the forwarders (see forward).
type pollers struct {
	list  []*pollerEntry
	dirty bool // an entry was removed: list is compacted at the next poll
	woke  atomic.Bool
}

type pollerEntry struct {
	p       Poller
	removed bool
	quit    chan struct{}
	// forwarded is closed when the forwarder has returned.
	forwarded chan struct{}
}

// AddPoller registers p to be polled by every Tick (see Poller), after the
// pollers registered before it, and returns the function that removes it;
// removing it twice is harmless. A poller added after Close is never
// polled. Tick's budget is shared in order: a poller gets what its
// predecessors left of the frame. Main goroutine only, like Tick; a
// poller may add or remove pollers (itself included) while it is polled.
//
// The runtime's Ready channel receives a token whenever p's does, so a
// host loop waits on the runtime's Ready alone. A goroutine forwards the
// tokens until the poller is removed or the runtime closed.
func (rt *Runtime) AddPoller(p Poller) (remove func()) {
	e := &pollerEntry{p: p, quit: make(chan struct{}), forwarded: make(chan struct{})}
	if rt.closed {
		e.removed = true
		return func() {}
	}
	rt.pollers.list = append(rt.pollers.list, e)
	go rt.forward(e)
	return func() {
		if e.removed {
			return
		}
		e.removed = true
		rt.pollers.dirty = true
		close(e.quit)
	}
}

// forward passes e's Ready tokens on to the runtime's. woke is set before
// each token, so a token the tick's bus drain swallows is sent again (see
// rewakePollers).
func (rt *Runtime) forward(e *pollerEntry) {
	defer close(e.forwarded)
	ready := e.p.Ready()
	for {
		select {
		case <-ready:
			rt.pollers.woke.Store(true)
			rt.main.Wake()
		case <-e.quit:
			return
		}
	}
}

// poll runs the registered pollers at the start of a tick, each with what
// is left of the tick's deadline dl (0: none).
func (rt *Runtime) poll(dl mono) {
	ps := &rt.pollers
	if len(ps.list) == 0 {
		return
	}
	if ps.dirty {
		live := ps.list[:0]
		for _, e := range ps.list {
			if !e.removed {
				live = append(live, e)
			}
		}
		clear(ps.list[len(live):])
		ps.list = live
		ps.dirty = false
	}
	// Tokens forwarded from here on are for work these polls may miss.
	ps.woke.Store(false)
	// Ranging over the slice as it is now: a poller added by a poll is
	// first polled by the next tick, and one removed is skipped.
	for _, e := range ps.list {
		if e.removed {
			continue
		}
		var budget time.Duration
		if dl != 0 {
			// A spent frame still lets each poller do its one unit.
			budget = max(dl.sub(monoNow()), time.Nanosecond)
		}
		e.p.Poll(budget)
	}
}

// rewakePollers runs after the tick has drained the bus, which clears its
// Ready token: a token a poller's forwarder sent since the polls, for work
// they did not see, must not be lost with it.
func (rt *Runtime) rewakePollers() {
	if rt.pollers.woke.Load() {
		rt.main.Wake()
	}
}

// closePollers ends the forwarders; the pollers are not polled again.
func (rt *Runtime) closePollers() {
	for _, e := range rt.pollers.list {
		if !e.removed {
			e.removed = true
			close(e.quit)
		}
	}
	rt.pollers.list = nil
}
