package mcp

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// Host ties MCP connections to one Runtime. Calls settle on goroutines of
// their own, but the Runtime belongs to the main goroutine, so a finished
// call is queued here and reaches the Runtime when the Host is polled:
// register it with Runtime.AddPoller and every Tick polls it.
type Host struct {
	rt    *runtime.Runtime
	shape func(method string, v any) (any, error)
	// results holds what Shape made of each completed call, until
	// TakeResult. Main goroutine only.
	results map[runtime.JobID]any

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
	// value is what the job completes with, copied for the runtime on the
	// call's goroutine; shaped is what HostConfig.Shape made of the result.
	value  runtime.ExternalValue
	shaped any
	err    error  // why a Failed call failed
	code   string // its name for Lua (CodeToolError, ...)
}

// A Host attaches to its runtime as lsp.Client does (see Poll).
var _ runtime.Poller = (*Host)(nil)

// DefaultPollBudget bounds one Poll when the frame sets no budget.
const DefaultPollBudget = 4 * time.Millisecond

// The MCP methods a Conn's requests call, as HostConfig.Shape and a
// shaped job's summary name them.
const (
	MethodCallTool      = "tools/call"
	MethodListTools     = "tools/list"
	MethodListResources = "resources/list"
	MethodReadResource  = "resources/read"
	MethodListPrompts   = "prompts/list"
)

// HostConfig tunes a Host.
type HostConfig struct {
	// Shape, when set, turns each completed request's value (the plain
	// value its job would complete with: ToolResult's map for a tool
	// call, a slice of maps for a listing, ...) into the form the host
	// consumes, on the request's own goroutine, so that however large a
	// result is, the main goroutine neither copies nor converts it (the
	// Lua binding builds Lua tables here). Its result is kept for
	// Host.TakeResult, and the job completes with a summary instead:
	// {method = the MCP method, len = the item count of an array result
	// (a listing, a tool call's content, a read's contents), else -1}.
	// An error, or a panic, fails the request with an error wrapping
	// ErrShape (code CodeShapeFailed). Shape must not touch state the
	// main goroutine uses.
	Shape func(method string, v any) (any, error)
}

// NewHost returns a Host whose calls settle as external jobs of rt. The
// jobs settle once the Host is polled: register it with rt.AddPoller.
func NewHost(rt *runtime.Runtime) *Host { return NewHostWith(rt, HostConfig{}) }

// NewHostWith is NewHost with a configuration.
func NewHostWith(rt *runtime.Runtime, cfg HostConfig) *Host {
	return &Host{rt: rt, shape: cfg.Shape, conns: make(map[*Conn]struct{}), ready: make(chan struct{}, 1)}
}

// TakeResult returns, and forgets, what HostConfig.Shape made of the
// result of call id, once Poll has handed the call over; false when there
// is none (no Shape, the call failed, was cancelled before it was handed
// over, or was taken already). A host with Shape set keeps each result
// until it is taken, so whoever takes the jobs' outcomes takes these too.
// Main goroutine only.
func (h *Host) TakeResult(id runtime.JobID) (any, bool) {
	v, ok := h.results[id]
	if ok {
		delete(h.results, id)
	}
	return v, ok
}

// completed makes a call's value ready for the main goroutine, on the
// call's goroutine: shaped by HostConfig.Shape, and the job's value copied
// for the runtime (runtime.Runtime.OwnExternal), so that Poll's share is
// constant however large the result.
func (h *Host) completed(id runtime.JobID, method string, v any) settlement {
	var shaped any
	if h.shape != nil {
		var err error
		if shaped, err = h.runShape(method, v); err != nil {
			return failure(id, err)
		}
		v = map[string]any{"method": method, "len": itemCount(method, v)}
	}
	own, err := h.rt.OwnExternal(v)
	if err != nil {
		return failure(id, fmt.Errorf("%w: the %s result cannot cross to the runtime: %w", ErrShape, method, err))
	}
	return settlement{id: id, state: runtime.Complete, value: own, shaped: shaped}
}

// runShape runs HostConfig.Shape, turning a panic into the call's error:
// it runs on a call's goroutine, where a panic would end the program.
func (h *Host) runShape(method string, v any) (shaped any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: the %s result: HostConfig.Shape panicked: %v", ErrShape, method, p)
		}
	}()
	shaped, err = h.shape(method, v)
	if err != nil {
		return nil, fmt.Errorf("%w: the %s result: %w", ErrShape, method, err)
	}
	return shaped, nil
}

// itemCount is the length of the array in a request's value: the value
// itself for a listing, a tool call's content, a read's contents; -1 when
// there is none.
func itemCount(method string, v any) int {
	switch x := v.(type) {
	case []any:
		return len(x)
	case map[string]any:
		if list, ok := x[ItemsMember(method)].([]any); ok {
			return len(list)
		}
	}
	return -1
}

// ItemsMember names the member of a request's value that holds its array
// of items: "content" for a tool call, "contents" for a read, "" for a
// listing, whose value is the array itself.
func ItemsMember(method string) string {
	switch method {
	case MethodCallTool:
		return "content"
	case MethodReadResource:
		return "contents"
	}
	return ""
}

// Ready receives a value when settlements are waiting for Poll. However many
// calls finish between two Polls, the loop is woken once; the Runtime
// forwards it to its own Ready once the Host is registered. Safe from any
// goroutine.
func (h *Host) Ready() <-chan struct{} { return h.ready }

// Poll hands the finished calls to the Runtime (CompleteExternal*), so the
// Tick that polls it settles them, and returns how many it handed over.
// Handing one over costs constant time, however large its result: the
// result was copied (and shaped, see HostConfig.Shape) on the call's
// goroutine. It stops once budget is spent (DefaultPollBudget when budget
// is 0), after one call at least, so a burst of thousands of calls spreads
// over frames; the rest keep their order, go first at the next Poll and
// are signalled on Ready. It
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
			// A call cancelled meanwhile never reaches TakeResult: its
			// shaped result is not kept.
			if _, st, ok := h.rt.Lookup(s.id); ok && st == runtime.Running && s.shaped != nil {
				if h.results == nil {
					h.results = make(map[runtime.JobID]any)
				}
				h.results[s.id] = s.shaped
			}
			h.rt.CompleteExternalOwned(s.id, s.value)
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
