package mcp

import (
	"errors"
	"sync"
	"time"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// Host ties MCP connections to one Runtime. Calls settle on goroutines of
// their own, but the Runtime belongs to the main goroutine, so a finished
// call is queued here and reaches the Runtime when the Host is polled:
// register it with Runtime.AddPoller and every Tick polls it.
type Host struct {
	rt *runtime.Runtime

	mu    sync.Mutex
	out   []settlement
	spare []settlement
	conns map[*Conn]struct{}
	ready chan struct{}
	// progress holds each call's latest progress line until Poll.
	progress map[runtime.JobID]string
}

// settlement is a finished call waiting for Poll.
type settlement struct {
	id    runtime.JobID
	state runtime.State
	value any
	err   error  // why a Failed call failed
	code  string // its name for Lua (CodeToolError, ...)
}

// A Host attaches to its runtime as lsp.Client does (see Poll).
var _ runtime.Poller = (*Host)(nil)

// DefaultPollBudget bounds one Poll when the frame sets no budget.
const DefaultPollBudget = 4 * time.Millisecond

// NewHost returns a Host whose calls settle as external jobs of rt. The
// jobs settle once the Host is polled: register it with rt.AddPoller.
func NewHost(rt *runtime.Runtime) *Host {
	return &Host{rt: rt, conns: make(map[*Conn]struct{}), ready: make(chan struct{}, 1)}
}

// Ready receives a value when settlements are waiting for Poll. However many
// calls finish between two Polls, the loop is woken once; the Runtime
// forwards it to its own Ready once the Host is registered. Safe from any
// goroutine.
func (h *Host) Ready() <-chan struct{} { return h.ready }

// Poll hands the finished calls to the Runtime (CompleteExternal*), so the
// Tick that polls it settles them, and returns how many it handed over. It
// stops once budget is spent (DefaultPollBudget when budget is 0), after
// one call at least, since a call's value is copied on the main goroutine
// and a burst of large results could otherwise take a frame; the rest keep
// their order, go first at the next Poll and are signalled on Ready. It
// also hands over the calls' latest progress notifications
// (Runtime.SetExternalProgress), for the *workers* view. It is the Host's
// runtime.Poller method: Tick calls it. Main goroutine only; it never
// blocks.
func (h *Host) Poll(budget time.Duration) int {
	if budget <= 0 {
		budget = DefaultPollBudget
	}
	h.pollProgress()
	h.mu.Lock()
	batch := h.out
	h.out, h.spare = h.spare[:0], nil
	h.mu.Unlock()
	start := time.Now()
	n := 0
	for n < len(batch) {
		if n > 0 && time.Since(start) >= budget {
			break
		}
		s := &batch[n]
		switch s.state {
		case runtime.Complete:
			// An unencodable value has already been settled Failed by the
			// runtime itself, so the error needs no handling here.
			_ = h.rt.CompleteExternalOK(s.id, s.value)
		case runtime.Cancelled:
			h.rt.CompleteExternalCancelled(s.id)
		default:
			h.rt.CompleteExternalFailed(s.id, &runtime.JobError{Message: s.err.Error(), Code: s.code, Err: s.err})
		}
		*s = settlement{}
		n++
	}
	h.mu.Lock()
	if n < len(batch) {
		// What is left goes before what finished meanwhile.
		left := batch[n:]
		h.out = append(left[:len(left):len(left)], h.out...)
	} else if h.spare == nil {
		h.spare = batch[:0]
	}
	h.mu.Unlock()
	if n < len(batch) {
		h.signal()
	}
	return n
}

// Progress returns the latest progress notification of pending call id on
// any of the host's connections (see Conn.Progress). Safe from any
// goroutine.
func (h *Host) Progress(id runtime.JobID) (Progress, bool) {
	h.mu.Lock()
	conns := make([]*Conn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	h.mu.Unlock()
	for _, c := range conns {
		if p, ok := c.Progress(id); ok {
			return p, true
		}
	}
	return Progress{}, false
}

func (h *Host) settle(s settlement) {
	h.mu.Lock()
	h.out = append(h.out, s)
	h.mu.Unlock()
	h.signal()
}

func (h *Host) signal() {
	select {
	case h.ready <- struct{}{}:
	default:
	}
}

func (h *Host) add(c *Conn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.conns == nil {
		return false
	}
	h.conns[c] = struct{}{}
	return true
}

func (h *Host) remove(c *Conn) {
	h.mu.Lock()
	delete(h.conns, c)
	h.mu.Unlock()
}

// Close closes every connection at once (see Conn.Close) and refuses new
// ones; it returns within CloseTimeout. Calls that were pending settle
// Failed, but only a later Poll hands them to the Runtime. Safe from any
// goroutine.
func (h *Host) Close() error {
	h.mu.Lock()
	conns := make([]*Conn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	h.conns = nil
	h.mu.Unlock()
	errs := make([]error, len(conns))
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Go(func() { errs[i] = c.Close() })
	}
	wg.Wait()
	return errors.Join(errs...)
}
