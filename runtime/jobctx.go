package runtime

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// jobCtx is the context a job's worker sees. It does what
// context.WithCancel(context.Background()) does for a job, minus the two
// allocations of a cancelCtx and its cancel func, and with a lock-free Err:
// handlers poll Err in their inner loops.
//
// It implements AfterFunc, so a context derived from it (grep's fanout uses
// context.WithCancel) is cancelled through a registered func rather than a
// watcher goroutine.
//
// It keeps the context.Context contract exactly: Err is nil, then
// context.Canceled; the reason (ErrSuperseded, ErrClosed) is the context's
// cause. context.Cause can only read a cause out of the context package's
// own cancel context, which it finds through Value; so a cancel with a
// reason makes one (the rare path: a plain Cancel makes none) and Value
// answers through it. Contexts derived from a jobCtx then see the same
// cause, because the context package takes a child's cause from
// context.Cause(parent) when the parent's AfterFunc callback runs.
type jobCtx struct {
	cancelled atomic.Bool
	mu        sync.Mutex
	done      chan struct{} // made on first Done, or closedChan after cancel
	// afters are the registered AfterFunc callbacks, newest first: a list
	// rather than a slice keeps every job's entry a size class smaller.
	afters *afterFunc
	owner  *Task // the job a panicking callback fails; nil outside a job
	// because answers Value (and so context.Cause) once cancelled with a
	// reason; set before cancelled, under mu, never changed after.
	because atomic.Pointer[context.Context]
}

type afterFunc struct {
	f       func()
	next    *afterFunc // guarded by jobCtx.mu until the context is cancelled
	removed bool       // guarded by jobCtx.mu
}

var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

var _ context.Context = (*jobCtx)(nil)

func (c *jobCtx) Deadline() (time.Time, bool) { return time.Time{}, false }

func (c *jobCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		if c.cancelled.Load() {
			c.done = closedChan
		} else {
			c.done = make(chan struct{})
		}
	}
	return c.done
}

func (c *jobCtx) Err() error {
	if c.cancelled.Load() {
		return context.Canceled
	}
	return nil
}

func (c *jobCtx) Value(key any) any {
	if b := c.because.Load(); b != nil {
		return (*b).Value(key)
	}
	return nil
}

// AfterFunc arranges for f to run in its own goroutine once c is cancelled,
// as context.AfterFunc does; stop unregisters it and reports whether it did.
func (c *jobCtx) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancelled.Load() {
		go c.runAfter(f)
		return func() bool { return false }
	}
	a := &afterFunc{f: f, next: c.afters}
	c.afters = a
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		if a.removed {
			return false
		}
		a.removed = true
		for p := &c.afters; *p != nil; p = &(*p).next {
			if *p == a {
				*p = a.next
				break
			}
		}
		return true
	}
}

// cancel ends the context with context.Canceled as its cause.
func (c *jobCtx) cancel() { c.cancelCause(nil) }

// cancelCause ends the context; cause (nil for context.Canceled) is what
// context.Cause reports. Only the first call counts.
func (c *jobCtx) cancelCause(cause error) {
	c.mu.Lock()
	if c.cancelled.Load() {
		c.mu.Unlock()
		return
	}
	if cause != nil && cause != context.Canceled {
		b, end := context.WithCancelCause(context.Background())
		end(cause)
		c.because.Store(&b)
	}
	c.cancelled.Store(true)
	if c.done == nil {
		c.done = closedChan
	} else {
		close(c.done)
	}
	afters := c.afters
	c.afters = nil
	for a := afters; a != nil; a = a.next {
		a.removed = true
	}
	c.mu.Unlock()
	// Every callback is marked removed, so no stop unlinks one any more.
	for a := afters; a != nil; a = a.next {
		go c.runAfter(a.f)
	}
}
