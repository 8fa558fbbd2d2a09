package runtime

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/pmacs-go/pmacs-go/bus"
	"github.com/pmacs-go/pmacs-go/workers"
)

// Job is what a kind asks the runtime to run: built by the kind on the main
// goroutine, from a request the caller owns (the kind copies what it keeps
// of it, so the caller's values are never written), and handed to Start.
type Job struct {
	// Kind is the registered kind the job belongs to.
	Kind Kind
	// Path, when not empty, runs the job on the actor of the registered
	// root that holds it (DefaultActor under none): jobs under one root
	// are ordered by its lanes. Otherwise Actor names the actor; an actor
	// that is not a root is registered on first use, and ResetRoot takes
	// its name.
	Path  string
	Actor workers.ActorID
	Lane  workers.Lane
	// Stream makes the job a stream: its items (Task.Send) are delivered by
	// TakeStreamBatches under the stream's credit.
	Stream bool
	// Credit, when set, sizes the stream's credit from its batch cap;
	// the runtime's stream credit still bounds it.
	Credit func(maxBatch int) int
	// Items, when set, decodes this stream's batches instead of its kind's
	// codec: another form of the same items (grep's match blocks).
	Items ItemsCodec
	// Resource is the filesystem mutation the job performs; Tick reports
	// it once the job completes.
	Resource *ResourceOp
	// Run is the job's work. Its value and error settle the job: a nil
	// error completes it with the value (nil for none; a uint64 crosses as
	// itself, anything else through the kind's Value codec); an error that
	// is the job's context ending cancels it; any other fails it, with the
	// Code of a *JobError in its chain.
	Run func(ctx context.Context, t *Task) (any, error)
	// Detached runs Run on a goroutine of its own instead of a worker: for
	// a job that waits on something outside for long (a program), holding
	// no worker slot and no actor gate. Close waits for it, after the
	// kinds' states have been told to Kill.
	Detached bool
	// Prepare, when set, is called on the main goroutine once the job is
	// published and before it can run: where a kind hooks the job's
	// context (context.AfterFunc on Task.Context) to give back what it
	// lent the job should the job end before it ran.
	Prepare func(t *Task)
	// Attach, instead of Run, hands the job to whoever will settle it
	// (Task.Finish, from any goroutine): a wait on something a kind
	// already follows. It is called on the main goroutine.
	Attach func(t *Task)
}

// Start publishes job and runs it, under o's supersede key and batch cap. It
// is the one way every kind starts its jobs. A job without Run or Attach
// fails at once.
func (rt *Runtime) Start(job Job, o DispatchOptions) JobID {
	j := rt.newJob(job.Kind, o.Key)
	if job.Resource != nil {
		r := *job.Resource
		j.resource = &r
	}
	if job.Stream {
		rt.newStream(j, o.MaxBatch)
		if job.Credit != nil {
			j.stream.credit = bus.NewCredit(min(rt.streamCredit, max(job.Credit(j.stream.maxBatch), 1)))
		}
		j.stream.codec = job.Items
	}
	actor := job.Actor
	if job.Path != "" {
		actor = rt.actorFor(job.Path)
	} else {
		rt.knowActor(actor)
	}
	t := &j.t
	if job.Prepare != nil && !rt.closed {
		job.Prepare(t)
	}
	switch {
	case job.Attach != nil:
		if rt.prepare(j) {
			job.Attach(t)
		}
		return j.t.id
	case job.Run == nil:
		err := errors.New(jobName(j.kind, j.t.id) + ": the job has nothing to run")
		return rt.start(j, actor, job.Lane, func(context.Context, *Task) reply {
			return reply{Kind: replyFailed, Msg: err.Error(), err: err}
		})
	case job.Detached:
		if !rt.prepare(j) {
			return j.t.id
		}
		run := job.Run
		rt.detached.Add(1)
		go func() {
			defer rt.detached.Done()
			defer t.Recover("the job's goroutine")
			v, err := run(&t.ctx, t)
			r := t.result(&t.ctx, v, err)
			if pr, ok := t.panicReply(); ok {
				r = pr
			}
			t.send(&r)
		}()
		return j.t.id
	}
	return rt.submit(j, actor, job.Lane, nil, job.Run)
}

// knowActor registers an actor a kind names on first use.
func (rt *Runtime) knowActor(id workers.ActorID) {
	if id == DefaultActor || id == BuiltinActor || slices.Contains(rt.kindActors, id) {
		return
	}
	rt.exec.RegisterActor(id)
	rt.kindActors = append(rt.kindActors, id)
}

// Confinement returns the registered roots when Options.ConfineFS confines
// filesystem jobs to them, a copy a worker may keep; false when it does not.
func (rt *Runtime) Confinement() ([]string, bool) {
	if !rt.confine {
		return nil, false
	}
	return slices.Clone(rt.roots.list), true
}

// ID returns the job's id.
func (w *Task) ID() JobID { return w.id }

// Kind returns the job's kind.
func (w *Task) Kind() Kind { return w.kind }

// Context returns the job's context, which ends when the job is cancelled.
func (w *Task) Context() context.Context { return &w.ctx }

// Send sends a batch of a stream's items once the stream has credit for its
// weight, waiting parked while it has not. It returns the context's error if
// the job is cancelled meanwhile. It may be called from any of the job's
// goroutines; batches sent from one goroutine arrive in order.
func (w *Task) Send(ctx context.Context, items Items) error {
	if err := w.Acquire(ctx, items.Weight()); err != nil {
		return err
	}
	w.SendAcquired(items)
	return nil
}

// SendAcquired sends a batch whose credit the caller took with Acquire.
func (w *Task) SendAcquired(items Items) {
	w.send(&reply{Kind: replyItems, N: uint64(items.Weight()), items: items})
}

// Acquire takes n units of the stream's credit, waiting parked (when the
// job runs on a worker) while the consumer is behind; it returns the
// context's error if the job is cancelled meanwhile.
func (w *Task) Acquire(ctx context.Context, n int) error {
	if w.credit == nil {
		return fmt.Errorf("%s: not a stream", jobName(w.kind, w.id))
	}
	if w.actor == nil {
		return w.credit.Acquire(ctx, n)
	}
	return w.acquire(ctx, n)
}

// Progress reports a stream's progress: a count (grep: files searched) and,
// for a kind with a Detail codec, what goes with it; detail may be nil.
func (w *Task) Progress(n uint64, detail any) {
	w.send(&reply{Kind: replyProgress, N: n, detail: detail})
}

// Park runs wait with the job parked: it gives up its worker and actor slot
// meanwhile, as a stream waiting for credit does. wait must return when the
// job's context ends. Outside a worker it just runs wait.
func (w *Task) Park(wait func()) {
	if w.actor == nil {
		wait()
		return
	}
	w.actor.Park(wait)
}

// Recover is deferred at the top of a goroutine the job runs outside the
// executor (and by callbacks other goroutines call): a panic there fails the
// job with internal_error and cancels it, instead of ending the process.
func (w *Task) Recover(where string) {
	if p := recover(); p != nil {
		w.failPanic(where, p)
	}
}

// FailPanic fails the job with a panic recovered in where, and cancels it.
func (w *Task) FailPanic(where string, p any) { w.failPanic(where, p) }

// Finish settles an attached job (Job.Attach) from any goroutine, as Run's
// return values would. Only the first settle counts.
func (w *Task) Finish(v any, err error) {
	r := w.result(&w.ctx, v, err)
	w.send(&r)
}

// result is the terminal reply for what a job's work returned.
func (w *Task) result(ctx context.Context, v any, err error) reply {
	var r reply
	w.resultTo(&r, ctx, v, err)
	return r
}

// resultTo sets the zero reply *r to result(ctx, v, err). The replies of
// jobs that succeed are stored field by field into the caller's reply: a
// reply returned and then copied stalled on its own stores.
func (w *Task) resultTo(r *reply, ctx context.Context, v any, err error) {
	if err != nil {
		*r = w.failedResult(ctx, err)
		return
	}
	switch v := v.(type) {
	case nil:
		r.Kind = replyUnit
	case uint64:
		r.Kind, r.N = replySum, v
	default:
		r.Kind, r.Value = replyResult, v
	}
}

// failedResult is result for a non-nil err.
func (w *Task) failedResult(ctx context.Context, err error) reply {
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return reply{Kind: replyCancelled}
	}
	r := reply{Kind: replyFailed, Msg: err.Error(), err: err}
	var je *JobError
	if errors.As(err, &je) {
		r.Code = je.Code
		if err == error(je) {
			r.err = je.Err
		}
	}
	return r
}
