package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"time"

	"go.lsp.dev/protocol"

	"github.com/pmacs-go/pmacs-go/proc"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// The teardown's budget: a server being stopped gets SIGTERM (its whole
// tree, see proc) StopGrace after shutdown, and SIGKILL killGrace after
// that; Close and Stop's job give up at CloseTimeout. With the default
// StopGrace, SIGTERM at 1 s, SIGKILL at 2 s and the reaping fit in 3 s.
const (
	// CloseTimeout bounds Close, and the job StopJob returns when
	// StopGrace is the default.
	CloseTimeout = 3 * time.Second
	killGrace    = time.Second
)

// ErrStopTimeout is the cause of a Close, or of StopJob's job, that gave
// up waiting for the server to be reaped.
var ErrStopTimeout = errors.New("lsp: the server did not end in time")

// Events of StopJob's job: cancelled, or past its bound.
type (
	evStopCancelled struct{ job runtime.JobID }
	evStopLimit     struct{ job runtime.JobID }
)

// Stop asks the server to shut down: pending requests fail with
// ErrStopped, shutdown is sent and exit follows its reply; StopGrace later
// (1 s by default) the server's whole tree gets SIGTERM if the server is
// still there, and SIGKILL a second after that. It does not wait; Done
// tells when the server is gone, StopJob gives a job for it. Idempotent.
func (c *Client) Stop() {
	if c.state == dead || c.state == stopping {
		return
	}
	c.stopping.Store(true)
	c.watchersChanged = true
	was := c.state
	c.state = stopping
	c.failAll(ErrStopped)
	c.endAllProgress(ErrStopped)
	c.preInit = nil
	if was == restarting {
		// No server runs between a death and its restart.
		c.restartTimer.Stop()
		c.state = dead
		c.finish()
		c.settleStopJob()
		return
	}
	if was == running {
		r := c.newRequest(protocol.MethodShutdown, 0, true)
		c.t.shutdownID.Store(r.id)
		r.sent = true
		c.t.track(r.id, protocol.MethodShutdown)
		c.t.send(c.encodeRequest(r.id, protocol.MethodShutdown, nil))
	} else {
		// Nothing may be sent before initialize is answered, shutdown
		// included, so a server still starting only gets its input closed.
		c.t.endInput()
	}
	p := c.p
	c.stopTimer = time.AfterFunc(c.cfg.StopGrace, p.Terminate)
}

// StopJob stops the server (see Stop) and returns a job (kind
// lsp_request) that completes once the server has exited, its whole tree
// has ended and it has been reaped, with the server's last exit as its
// value: {code, signal} (signal "" unless a signal ended it). It fails
// with ErrStopTimeout if that has not happened StopGrace plus two seconds
// after the stop (3 s with the default StopGrace), and is cancelled like
// any job, which only ends the wait. Calling it again returns the same job
// until it has settled, and a settled one's next call a new job that
// completes at once. Its outcome is taken like a request's
// (runtime.TakeResult).
func (c *Client) StopJob() runtime.JobID {
	if c.stopJob != 0 {
		return c.stopJob
	}
	id, ctx := c.rt.RegisterExternal(RequestKind, "")
	c.stopJob = id
	t := c.t
	c.stopWatch = context.AfterFunc(ctx, func() { t.push(evStopCancelled{job: id}, false) })
	c.Stop()
	if c.state == dead {
		c.settleStopJob()
		return id
	}
	c.stopLimit = time.AfterFunc(c.stopBound(), func() { t.push(evStopLimit{job: id}, false) })
	return id
}

// stopBound is how long StopJob's job waits for the server to be reaped.
func (c *Client) stopBound() time.Duration { return c.cfg.StopGrace + killGrace + time.Second }

// settleStopJob completes StopJob's job, if there is one, with the last
// exit: the server is gone for good.
func (c *Client) settleStopJob() {
	if c.stopJob == 0 {
		return
	}
	v := map[string]any{"code": c.lastExit.Code}
	if c.lastExit.Signal != "" {
		v["signal"] = c.lastExit.Signal
	}
	_ = c.rt.CompleteExternalOK(c.stopJob, v)
	c.endStopJob()
}

// endStopJob forgets StopJob's job once it is settled.
func (c *Client) endStopJob() {
	if c.stopWatch != nil {
		c.stopWatch()
	}
	if c.stopLimit != nil {
		c.stopLimit.Stop()
	}
	c.stopJob, c.stopWatch, c.stopLimit = 0, nil, nil
}

// Close stops the server and waits until it is gone and its exit handled,
// so every request has settled (at the runtime's next Tick) when it
// returns. It returns within CloseTimeout (3 s) whatever the server does:
// after shutdown, the server's tree gets SIGTERM at most a second later
// (sooner with a shorter StopGrace) and SIGKILL a second after that; an
// error wrapping ErrStopTimeout says the server had still not been reaped
// at CloseTimeout (a process stuck in the kernel), and its goroutines end
// once it is. Close polls while it waits: a reader blocked on a full inbox
// must be drained before it can read the shutdown reply, or before proc
// can finish delivering a dead server's output.
func (c *Client) Close() error { return CloseAll(c) }

// closeStep is a step of Close's escalation: at is counted from the
// start of the close; do nil means giving up.
type closeStep struct {
	at time.Duration
	do func(*proc.Process)
}

// CloseAll closes the clients side by side, on the goroutine that owns
// their runtime: it stops them all first, then waits for them as Close
// does, each escalating on one shared clock, so the whole wait stays
// within CloseTimeout however many clients there are (closing them one
// after the other could take CloseTimeout each). The error joins the
// Close error of each client that had one.
func CloseAll(clients ...*Client) error {
	type closing struct {
		c     *Client
		steps []closeStep
	}
	var open []*closing
	for _, c := range clients {
		if c == nil {
			continue
		}
		c.Stop()
		grace := min(c.cfg.StopGrace, time.Second)
		open = append(open, &closing{c: c, steps: []closeStep{
			{grace, (*proc.Process).Terminate},
			{grace + killGrace, (*proc.Process).Kill},
			{CloseTimeout, nil},
		}})
	}
	var errs []error
	start := time.Now()
	timer := time.NewTimer(CloseTimeout)
	defer timer.Stop()
	// cases holds each open client's Done and Ready, then the timer.
	var cases []reflect.SelectCase
	for len(open) > 0 {
		next := CloseTimeout
		cases = cases[:0]
		for _, o := range open {
			next = min(next, o.steps[0].at)
			cases = append(cases,
				reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(o.c.done)},
				reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(o.c.t.ready)})
		}
		timer.Reset(max(next-time.Since(start), 0))
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(timer.C)})
		// Reset, on the next round, leaves no stale tick to receive.
		chosen, _, _ := reflect.Select(cases)
		switch {
		case chosen == len(cases)-1:
			elapsed := time.Since(start)
			keep := open[:0]
			for _, o := range open {
				for o.steps[0].at <= elapsed && o.steps[0].do != nil {
					o.steps[0].do(o.c.p)
					o.steps = o.steps[1:]
				}
				if o.steps[0].at <= elapsed {
					errs = append(errs, fmt.Errorf("lsp: close %s: %w: the server has not been reaped within %v",
						filepath.Base(o.c.cfg.Argv[0]), ErrStopTimeout, CloseTimeout))
					continue
				}
				keep = append(keep, o)
			}
			open = keep
		case chosen%2 == 0:
			// The exit event is queued before Done closes.
			o := open[chosen/2]
			for o.c.state != dead {
				o.c.Poll(0)
			}
			open = slices.Delete(open, chosen/2, chosen/2+1)
		default:
			open[chosen/2].c.Poll(0)
		}
	}
	return errors.Join(errs...)
}
