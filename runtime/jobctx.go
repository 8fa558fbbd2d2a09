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
type jobCtx struct {
	cancelled atomic.Bool
	mu        sync.Mutex
	done      chan struct{} // made on first Done, or closedChan after cancel
	afters    []*afterFunc
	owner     *task // the job a panicking callback fails; nil outside a job
}

type afterFunc struct {
	f       func()
	removed bool // guarded by jobCtx.mu
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

func (c *jobCtx) Value(any) any { return nil }

// AfterFunc arranges for f to run in its own goroutine once c is cancelled,
// as context.AfterFunc does; stop unregisters it and reports whether it did.
func (c *jobCtx) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancelled.Load() {
		go c.runAfter(f)
		return func() bool { return false }
	}
	a := &afterFunc{f: f}
	c.afters = append(c.afters, a)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		if a.removed {
			return false
		}
		a.removed = true
		for i, x := range c.afters {
			if x == a {
				c.afters = append(c.afters[:i], c.afters[i+1:]...)
				break
			}
		}
		return true
	}
}

// cancel ends the context; later calls do nothing.
func (c *jobCtx) cancel() {
	c.mu.Lock()
	if c.cancelled.Load() {
		c.mu.Unlock()
		return
	}
	c.cancelled.Store(true)
	if c.done == nil {
		c.done = closedChan
	} else {
		close(c.done)
	}
	afters := c.afters
	c.afters = nil
	for _, a := range afters {
		a.removed = true
	}
	c.mu.Unlock()
	for _, a := range afters {
		go c.runAfter(a.f)
	}
}
