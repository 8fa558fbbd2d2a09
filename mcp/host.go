package mcp

import (
	"errors"
	"sync"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// Host ties MCP connections to one Runtime. Calls settle on goroutines of
// their own, but the Runtime belongs to the main goroutine, so a finished
// call is queued here and reaches the Runtime when the main loop calls Pump.
type Host struct {
	rt *runtime.Runtime

	mu    sync.Mutex
	out   []settlement
	spare []settlement
	conns map[*Conn]struct{}
	ready chan struct{}
	// progress holds each call's latest progress line until Pump.
	progress map[runtime.JobID]string
}

// settlement is a finished call waiting for Pump.
type settlement struct {
	id    runtime.JobID
	state runtime.State
	value any
	err   error  // why a Failed call failed
	code  string // its name for Lua (CodeToolError, ...)
}

// NewHost returns a Host whose calls settle as external jobs of rt.
func NewHost(rt *runtime.Runtime) *Host {
	return &Host{rt: rt, conns: make(map[*Conn]struct{}), ready: make(chan struct{}, 1)}
}

// Ready receives a value when settlements are waiting for Pump. However many
// calls finish between two Pumps, the loop is woken once; a loop that waits
// on it selects on it beside Runtime.Ready. Safe from any goroutine.
func (h *Host) Ready() <-chan struct{} { return h.ready }

// Pump hands every finished call to the Runtime (CompleteExternal*), so the
// next Tick settles them; it returns how many it handed over. It also
// hands over the calls' latest progress notifications
// (Runtime.SetExternalProgress), for the *workers* view. Main goroutine
// only; call it before Tick in each frame. It never blocks.
func (h *Host) Pump() int {
	h.pumpProgress()
	h.mu.Lock()
	batch := h.out
	h.out, h.spare = h.spare[:0], nil
	h.mu.Unlock()
	for i := range batch {
		s := &batch[i]
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
	}
	h.mu.Lock()
	if h.spare == nil {
		h.spare = batch[:0]
	}
	h.mu.Unlock()
	return len(batch)
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
// Failed, but only a later Pump hands them to the Runtime. Safe from any
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
