package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"go.lsp.dev/uri"
)

// Poll handles what the transport has decoded and returns how many
// messages and lifecycle events it handled: it settles requests (their
// runtime jobs settle in the Tick that polls, or the next), stores
// diagnostics, progress and messages, answers the server's requests, and
// sends the document changes made since the last Poll as one didChange per
// document. It spends at most Config.PollBudget on events, and at most
// budget when budget is positive; events left wait for the next Poll, and
// Ready is signalled for them. It is the client's runtime.Poller method:
// registered with Runtime.AddPoller, the client is polled by every Tick,
// with what is left of the frame.
func (c *Client) Poll(budget time.Duration) int {
	if budget <= 0 {
		budget = c.cfg.PollBudget
	} else {
		budget = min(budget, c.cfg.PollBudget)
	}
	if len(c.progressDone) > 0 {
		c.reapProgressJobs()
	}
	start := time.Now()
	n := 0
	for {
		evs, more := c.t.take(64)
		for _, ev := range evs {
			c.handle(ev)
		}
		n += len(evs)
		if !more {
			break
		}
		if time.Since(start) >= budget {
			c.t.signal()
			break
		}
	}
	c.flushChanges()
	return n
}

// maxChangedDiagnostics bounds the documents TakeChangedDiagnostics
// lists: a host that never takes them loses the oldest, not memory.
const maxChangedDiagnostics = 4096

// TakeChangedDiagnostics returns the documents whose diagnostics changed
// since it was last called, each once however many times the server
// published them, by canonical URI (fileuri.Canonical) whatever the
// server's spelling; at most the 4,096 most recently changed.
func (c *Client) TakeChangedDiagnostics() []uri.URI {
	c.dropOldChanges()
	out := c.changedDiags
	c.changedDiags = nil
	clear(c.changedSet)
	return out
}

func (c *Client) handle(ev any) {
	switch e := ev.(type) {
	case evResponse:
		c.onResponse(e)
	case evNotification:
		c.onNotification(e)
	case evServerRequest:
		c.onServerRequest(e)
	case evCancel:
		if r := c.pending[e.id]; r != nil {
			c.abandon(r)
			c.settle(r, Result{Method: r.method, Err: context.Canceled}, true)
		}
	case evTimeout:
		if r := c.pending[e.id]; r != nil {
			c.abandon(r)
			c.settle(r, Result{Method: r.method, Err: fmt.Errorf("%w: %s", ErrTimeout, r.method)}, false)
		}
	case evCompacted:
		c.onCompacted(e)
	case evProgressCancel:
		c.onProgressCancel(e)
	case evNotice:
		c.keepMessage(Message{Show: true, Type: 1, Text: e.text})
	case evExit:
		c.lastExit = e.exit
		c.clearAllDiagnostics()
		c.onExit(c.t.exitCause(e.err))
	case evStopCancelled:
		if e.job == c.stopJob {
			c.rt.CompleteExternalCancelled(c.stopJob)
			c.endStopJob()
		}
	case evStopLimit:
		if e.job == c.stopJob {
			c.rt.CompleteExternalFailed(c.stopJob, fmt.Errorf("lsp: stop %s: %w: the server has not been reaped within %v",
				filepath.Base(c.cfg.Argv[0]), ErrStopTimeout, c.stopBound()))
			c.endStopJob()
		}
	case evRestart:
		if c.state == restarting {
			if err := c.launch(); err != nil {
				if errors.Is(err, ErrLaunchRefused) {
					// Asking again after a backoff would not make the
					// program any more acceptable: the client ends here.
					c.state, c.exitErr = dead, err
				}
				c.onExit(err)
			}
		}
	}
}
