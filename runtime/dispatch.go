package runtime

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"

	"github.com/pmacs-go/pmacs-go/bus"
	"github.com/pmacs-go/pmacs-go/workers"
)

// work is what a handler does on a worker goroutine. It returns the job's
// terminal reply (the job id is filled in by the caller); streams send their
// items through w before returning.
type work func(ctx context.Context, w *Task) reply

// task is the worker's view of one job: its context and its way back over
// the bus. It lives inside the job's pending entry to save an allocation,
// but the worker touches nothing else of the entry. Its fields are set
// before the job is submitted and never change, so the worker and the main
// goroutine share it without locks (the context synchronises itself).
type Task struct {
	ctx    jobCtx
	id     JobID
	kind   Kind
	bus    *replies
	credit *bus.Credit // nil for request/reply jobs
	// actor is set by the worker of a stream before the handler runs and
	// read only by the handler's goroutines: it is how a producer parks
	// (see acquire). A pointer, so a request/reply job's entry stays in
	// its allocation size class.
	actor *workers.Actor
	// panicked holds the failure of a panic recovered on one of the job's
	// goroutines outside the executor (see panics.go).
	panicked atomic.Pointer[string]
	// failed holds the handler's own error of a failed reply, so the
	// outcome can wrap it (see keepFailure).
	failed atomic.Pointer[failureBox]
}

// send puts r on the bus as this job's reply. The small fixed-shape replies
// every job ends with are appended by hand straight into their payload
// (one allocation, no encoder from a pool, no reflection); the rest go
// through the registry's encoder. send keeps nothing of r itself, so a
// caller's reply stays on its stack.
//
// Once the runtime is closed, and the bus with it, a send fails and there
// is nobody left to tell. A reply that cannot be encoded fails the job
// instead (with a fixed-shape reply, which always encodes) and cancels it:
// dropping it would leave the job Running forever.
func (w *Task) send(r *reply) {
	r.Job, r.kind = w.id, w.kind
	if r.Kind == replyFailed {
		w.keepFailure(r.err)
	}
	buf := fixedBufs.Get().(*[fixedReplyCap]byte)
	if p, ok := r.appendFixed(buf[:0]); ok {
		if cap(p) != fixedReplyCap {
			fixedBufs.Put(buf) // a long failure message outgrew it
		}
		_ = w.bus.route.Send(p)
		return
	}
	fixedBufs.Put(buf)
	heap := *r // only this branch moves a reply to the heap
	if err := w.bus.w.Send(replyTopic, &heap); err != nil && !errors.Is(err, bus.ErrClosed) {
		w.send(&reply{Kind: replyFailed, Code: CodeMalformedReply,
			Msg: jobName(w.kind, w.id) + ": its reply could not be encoded: " + err.Error()})
		w.ctx.cancel()
	}
}

// replies is the bus end a runtime's jobs reply through, shared by all of
// them.
type replies struct {
	w *bus.Workers
	// route sends the fixed-shape replies every job ends with, without
	// looking replyTopic up in the registry each time.
	route bus.Route
}

// acquire takes n items of the stream's credit. A wait for credit is a wait
// on the consumer, which may itself be waiting for later work of this job's
// actor (a script that renames inside its grep loop), so it happens inside
// a parking section: the job gives up its worker and ActorCap slots while it
// waits. It returns the context's error if the job was cancelled meanwhile.
func (w *Task) acquire(ctx context.Context, n int) error {
	if w.credit.TryAcquire(n) {
		return nil
	}
	var err error
	w.actor.Park(func() { err = w.credit.Acquire(ctx, n) })
	return err
}

// prepare readies a published job's worker side: a stream's task gets its
// credit. After Close it settles the job Failed (shutdown) instead and
// returns false: nothing may run it then.
func (rt *Runtime) prepare(j *job) bool {
	if j.stream != nil {
		j.t.credit = j.stream.credit
	}
	if rt.closed {
		_ = rt.main.Send(replyTopic, &reply{Job: j.t.id, Kind: replyFailed,
			Msg: jobName(j.kind, j.t.id) + ": runtime is closed", Code: workers.CodeShutdown})
		return false
	}
	return true
}

// jobName labels a job in messages: "grep#12".
func jobName(kind Kind, id JobID) string {
	return kind.String() + "#" + strconv.FormatUint(uint64(id), 10)
}

// start publishes j and submits its work on lane of actor, under the job's
// context. The worker closure always replies with whatever the handler
// returns. If the executor settles the job itself, that becomes the reply
// instead: Cancelled if the job's context ended before a worker reached it
// (the executor then does not run it), otherwise Failed carrying the
// executor's code (a panic, a fatal or unregistered actor, shutdown).
func (rt *Runtime) start(j *job, actor workers.ActorID, lane workers.Lane, fn work) JobID {
	return rt.submit(j, actor, lane, fn, nil)
}

// submit is start for a handler given either as a work (fn) or as a kind's
// Job.Run (run), whose result it turns into the reply itself: wrapping run
// in a work would cost every dispatch a closure.
func (rt *Runtime) submit(j *job, actor workers.ActorID, lane workers.Lane, fn work, run func(context.Context, *Task) (any, error)) JobID {
	if !rt.prepare(j) {
		return j.t.id
	}
	j.fn, j.run = fn, run
	// The job is its own handler: a dispatch allocates no closures.
	rt.exec.SubmitHandler(&j.t.ctx, actor, lane, j.kind.String(), j)
	return j.t.id
}

// RunJob runs the job's handler on a worker and replies with whatever it
// returns (workers.Handler).
func (j *job) RunJob(ctx context.Context, a workers.Actor) (any, error) {
	w := &j.t
	if w.credit != nil { // only streams park
		w.actor = new(workers.Actor)
		*w.actor = a
	}
	var r reply
	if j.fn != nil {
		r = j.fn(ctx, w)
	} else {
		v, err := j.run(ctx, w)
		w.resultTo(&r, ctx, v, err)
	}
	if pr, ok := w.panicReply(); ok {
		r = pr
	}
	w.send(&r)
	return nil, nil
}

// JobDone replies for a job the executor settled itself: Cancelled if its
// context ended before a worker reached it, otherwise Failed with the
// executor's code (workers.Handler).
func (j *job) JobDone(res workers.Result) {
	if res.Err == nil {
		return
	}
	w := &j.t
	if errors.Is(res.Err, context.Canceled) {
		w.send(&reply{Kind: replyCancelled})
		return
	}
	r := reply{Kind: replyFailed, Msg: jobName(j.kind, w.id) + ": " + res.Err.Error(), err: res.Err}
	var we *workers.Error
	if errors.As(res.Err, &we) {
		r.Code = we.Code
	}
	w.send(&r)
}

// newStream makes j a stream with its own credit and batch cap.
func (rt *Runtime) newStream(j *job, maxBatch int) {
	if maxBatch == 0 {
		maxBatch = rt.defaultMaxBatch
	}
	j.stream = &streamBuf{maxBatch: clampBatch(maxBatch), credit: bus.NewCredit(rt.streamCredit)}
}

// terminal maps a handler's error to its terminal reply: Cancelled when the
// job's context ended, Failed with code otherwise.
func terminal(ctx context.Context, err error, code string) reply {
	if err == nil {
		return reply{Kind: replyUnit}
	}
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return reply{Kind: replyCancelled}
	}
	return reply{Kind: replyFailed, Msg: err.Error(), Code: code, err: err}
}

// failureBox carries a failed job's own error from the goroutine that
// failed it to the Tick that settles it (an error is an interface: an
// atomic pointer needs something to point at).
type failureBox struct{ err error }

// keepFailure records err as the job's in-process failure, unless one is
// already recorded: the first failure sent is the one that settles the job.
func (w *Task) keepFailure(err error) {
	if err != nil {
		w.failed.CompareAndSwap(nil, &failureBox{err})
	}
}

// failure is the error keepFailure recorded, or nil. The bus hand-off of
// the failed reply orders the store before this load.
func (j *job) failure() error {
	if b := j.t.failed.Load(); b != nil {
		return b.err
	}
	return nil
}

// cancelCause is a cancelled job's Outcome.Err: why its context ended, or
// context.Canceled for a job settled Cancelled from outside with its context
// still live (an external job whose server went away).
func (j *job) cancelCause() error {
	if err := context.Cause(&j.t.ctx); err != nil {
		return err
	}
	return context.Canceled
}
