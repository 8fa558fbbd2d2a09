package bus

import (
	"context"
	"sync"
)

// Credit bounds the items a stream has in flight between its producer and
// the consumer that finally takes them. The producer calls Acquire before it
// sends n items and blocks while the stream is over its limit; the consumer
// calls Release when it hands items on. A Credit is safe for concurrent use.
//
// A request larger than the whole limit is admitted once nothing else is in
// flight, so a single oversized batch cannot deadlock its producer; the
// memory held is then at most one such batch.
type Credit struct {
	mu       sync.Mutex
	limit    int
	inFlight int
	waiters  int
	wake     chan struct{} // closed and replaced on release when waiters > 0
}

// NewCredit returns a credit of limit items; a limit below 1 is raised to 1.
func NewCredit(limit int) *Credit {
	return &Credit{limit: max(limit, 1), wake: make(chan struct{})}
}

// Limit returns the high-water mark.
func (c *Credit) Limit() int { return c.limit }

// InFlight returns the items acquired and not yet released.
func (c *Credit) InFlight() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inFlight
}

// Acquire takes n items of credit, waiting while the stream is over its
// limit. It returns ctx.Err() as soon as ctx ends, having taken nothing.
func (c *Credit) Acquire(ctx context.Context, n int) error {
	if n <= 0 {
		return ctx.Err()
	}
	c.mu.Lock()
	for {
		if err := ctx.Err(); err != nil {
			c.mu.Unlock()
			return err
		}
		if c.inFlight+n <= c.limit || c.inFlight == 0 {
			c.inFlight += n
			c.mu.Unlock()
			return nil
		}
		wake := c.wake
		c.waiters++
		c.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
		}
		c.mu.Lock()
		c.waiters--
	}
}

// TryAcquire takes n items of credit if that needs no wait, and reports
// whether it did. A producer that must tell its scheduler before it blocks
// tries this first and calls Acquire only when it returns false.
func (c *Credit) TryAcquire(n int) bool {
	if n <= 0 {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inFlight+n <= c.limit || c.inFlight == 0 {
		c.inFlight += n
		return true
	}
	return false
}

// Release returns n items of credit. Releasing more than is in flight clamps
// at zero rather than minting credit.
func (c *Credit) Release(n int) {
	if n <= 0 {
		return
	}
	c.mu.Lock()
	c.inFlight = max(c.inFlight-n, 0)
	if c.waiters > 0 {
		close(c.wake)
		c.wake = make(chan struct{})
	}
	c.mu.Unlock()
}
