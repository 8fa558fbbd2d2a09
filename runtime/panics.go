package runtime

import (
	"fmt"

	"github.com/pmacs-go/pmacs-go/workers"
)

// Panics outside the executor's workers. The executor recovers a handler's
// panic on its worker, but a job also runs code on goroutines the executor
// never sees: a kind's own goroutines (grep's flush timer and progress
// reporter, its fanout's match callback; they defer Task.Recover), and the
// callbacks registered on a job's context (context.AfterFunc, and contexts
// derived from it). An unrecovered panic on any of them would end the
// process. Each recovers,
// fails its job with internal_error and the panic value, and cancels the
// job so that its worker stops; the loop goes on.

// failPanic records p as the job's failure, sends it and cancels the job.
// The first panic wins. A reply sent after it (the worker's own terminal
// reply) is ignored by Tick, and the worker replaces its reply with this
// failure anyway (see start), so the job settles Failed whichever arrives
// first.
func (w *Task) failPanic(where string, p any) {
	msg := fmt.Sprintf("%s: panicked in %s: %v", jobName(w.kind, w.id), where, p)
	if !w.panicked.CompareAndSwap(nil, &msg) {
		return
	}
	w.send(&reply{Kind: replyFailed, Msg: msg, Code: workers.CodeInternal})
	w.ctx.cancel()
}

// recoverPanic is deferred at the top of a job's goroutine that runs
// outside the executor.
func (w *Task) recoverPanic(where string) {
	if p := recover(); p != nil {
		w.failPanic(where, p)
	}
}

// panicReply returns the failure a recovered panic recorded, if any.
func (w *Task) panicReply() (reply, bool) {
	if m := w.panicked.Load(); m != nil {
		return reply{Kind: replyFailed, Msg: *m, Code: workers.CodeInternal}, true
	}
	return reply{}, false
}

// runAfter runs a callback registered on the context, on its own
// goroutine, recovering a panic into the owning job's failure. A context
// that belongs to no job (only tests make one) lets the panic through.
func (c *jobCtx) runAfter(f func()) {
	if c.owner != nil {
		defer c.owner.recoverPanic("a callback registered on its context")
	}
	f()
}
