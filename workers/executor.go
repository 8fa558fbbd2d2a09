package workers

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// ActorID names an actor: in the editor, a project root.
type ActorID string

// Actor is what a job sees of the actor it runs for. The Actor a job
// receives also lets it park (see Park).
type Actor struct {
	ID ActorID

	run *worker // the worker running the job; nil outside a job
	seq uint64  // which of run's jobs this is
}

// Job runs on a worker goroutine. ctx is the context the job was submitted
// with: a job that runs for long should watch it (poll Err, or select on
// Done) and return when it ends. Its return values become the Result.
type Job func(ctx context.Context, a Actor) (any, error)

// Task is one job to submit: where it runs, what it runs, and where its
// Result goes.
type Task struct {
	// Actor is the registered actor the job runs for.
	Actor ActorID
	// Lane decides how the job is admitted and which side of the actor's
	// gate it runs on. The zero Lane is LaneRead.
	Lane Lane
	// Name labels the job in the errors the executor settles it with. A
	// constant costs nothing per submit.
	Name string
	// Key, when not empty, makes the job shared: if a job of the same actor
	// and key is already queued or running, this submit joins it instead
	// of running Run, and Done gets that job's Result. A shared job runs in
	// LaneRead; any other Lane is refused with ErrInvalidArgument.
	Key string
	// Run is the job.
	Run Job
	// Done receives the Result, exactly once (see Submit for the goroutine
	// it runs on). A nil Done discards the Result.
	Done func(Result)
	// Handler, when set, is the job instead of Run and Done: its RunJob is
	// run and its JobDone receives the Result, under the same rules. A
	// caller that keeps a struct per job anyway submits it as the Handler
	// and so allocates no closures for the submit.
	Handler Handler
}

// Handler is a job given as a value: RunJob is Run, JobDone is Done.
type Handler interface {
	RunJob(ctx context.Context, a Actor) (any, error)
	JobDone(Result)
}

// Executor runs jobs for registered actors on a fixed pool of worker
// goroutines. See the package documentation for the scheduling rules and the
// concurrency contract. The zero Executor is not usable; call New.
type Executor struct {
	cfg Config

	mu     sync.Mutex
	sched  scheduler
	actors map[ActorID]*actorState
	order  []*actorState // registration order, for FatalActors
	// last is the actor the latest submit named: an editor submits run
	// after run for one actor, and a hit spares hashing its name.
	last   *actorState
	closed bool
	joined chan struct{} // closed once every goroutine has ended; made by Shutdown

	// idle holds the worker goroutines waiting for a job with nothing
	// handed to them, the one that went idle last on top: a job goes to
	// the worker whose stack and caches are warmest, written into its cur
	// under mu, and a token on its wake channel (capacity one) starts it.
	// A worker only goes idle while there are at most PoolSize worker
	// goroutines, so at most PoolSize are ever waiting. Guarded by mu.
	idle    []*worker
	workers sync.WaitGroup
	// goroutines counts the worker goroutines, PoolSize plus the
	// substitutes started while jobs were parked. Guarded by mu. Without
	// parked jobs len(idle) equals sched.idle.
	goroutines int

	flightMu sync.Mutex
	flights  map[flightKey]*flight
}

// New starts an executor with cfg.Effective() and its worker goroutines.
// Close it to stop them.
func New(cfg Config) *Executor {
	cfg = cfg.Effective()
	e := &Executor{
		cfg:     cfg,
		actors:  make(map[ActorID]*actorState),
		idle:    make([]*worker, 0, cfg.PoolSize),
		flights: make(map[flightKey]*flight),
	}
	e.sched = scheduler{
		cfg:        cfg,
		deficitCap: cfg.deficitCap(),
		idle:       cfg.PoolSize,
		heavyFree:  cfg.HeavyPermits,
	}
	e.goroutines = cfg.PoolSize
	e.workers.Add(cfg.PoolSize)
	for range cfg.PoolSize {
		w := e.newWorker()
		e.idle = append(e.idle, w)
		go e.work(w, false)
	}
	return e
}

// Config returns the effective configuration.
func (e *Executor) Config() Config { return e.cfg }

// RegisterActor adds an actor. It returns false, keeping the existing
// actor and its queue, if the actor is already registered.
func (e *Executor) RegisterActor(id ActorID) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.actors[id]; ok {
		return false
	}
	a := &actorState{id: id}
	e.actors[id] = a
	e.order = append(e.order, a)
	return true
}

// RemoveActor unregisters an actor. Its queued jobs settle at once with
// ErrActorNotRegistered (on the calling goroutine); jobs already running
// finish normally and are not waited for. Removing an unknown actor does
// nothing.
func (e *Executor) RemoveActor(id ActorID) {
	e.mu.Lock()
	a, ok := e.actors[id]
	if !ok {
		e.mu.Unlock()
		return
	}
	delete(e.actors, id)
	if e.last == a {
		e.last = nil
	}
	for i, o := range e.order {
		if o == a {
			e.order = append(e.order[:i], e.order[i+1:]...)
			break
		}
	}
	e.sched.deactivate(a)
	dropped := a.queue.drain()
	e.mu.Unlock()

	for _, t := range dropped {
		t.deliver(Result{Err: jobError(CodeActorNotRegistered, t.name,
			fmt.Sprintf("was not run: actor %q was removed", id))})
	}
}

// ActorIsFatal reports whether a mutating job of the actor has panicked. An
// unknown actor is not fatal.
func (e *Executor) ActorIsFatal(id ActorID) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	a, ok := e.actors[id]
	return ok && a.fatal
}

// FatalActor names a fatal actor and why it is fatal.
type FatalActor struct {
	ID ActorID
	// Reason is the internal_error the panicking mutating job settled
	// with; it names the job and the panic value.
	Reason string
}

// FatalActors returns the registered actors that are fatal, in registration
// order.
func (e *Executor) FatalActors() []FatalActor {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []FatalActor
	for _, a := range e.order {
		if a.fatal {
			out = append(out, FatalActor{ID: a.id, Reason: a.fatalReason})
		}
	}
	return out
}

// ResetActor makes a fatal actor accept jobs again, once every job of it
// that was running when it became fatal (parked ones included) has ended.
// It fails with an *Error matching ErrActorNotRegistered, ErrActorNotFatal
// or ErrActorBusy (try again later) and changes nothing then. Whatever the
// panicking job left half done stays so: resetting is the user's call.
func (e *Executor) ResetActor(id ActorID) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	a, ok := e.actors[id]
	switch {
	case !ok:
		return &Error{Code: CodeActorNotRegistered, Message: fmt.Sprintf("cannot reset actor %q: it is not registered", id)}
	case !a.fatal:
		return &Error{Code: CodeActorNotFatal, Message: fmt.Sprintf("cannot reset actor %q: it is not fatal", id)}
	case a.live > 0:
		return &Error{Code: CodeActorBusy, Message: fmt.Sprintf(
			"cannot reset actor %q yet: %d of its jobs are still running; reset it once they have ended", id, a.live)}
	}
	a.fatal, a.fatalReason = false, ""
	return nil
}

// Submit queues t.Run to run for t.Actor in t.Lane, with ctx as its
// context, and returns at once; t.Done receives the Result exactly once.
// Submit allocates nothing beyond the queued record, and that is amortised
// away once the actor's queue has grown (a shared job, with a Key, costs a
// few allocations per execution).
//
// The executor watches ctx at one point: when a worker would start the job.
// If ctx has ended by then the job is not run and settles with an *Error
// matching ErrCanceled that also matches ctx's error (context.Canceled or
// context.DeadlineExceeded) and wraps context.Cause(ctx). Once the job has
// started, ending ctx is the job's business: the executor cannot stop it.
// A job whose ctx ends while it waits in its actor's queue keeps its place
// until a worker reaches it and settles it, so the jobs behind it keep the
// order their lanes promise.
//
// A nil ctx is refused like a nil t.Run or an unknown t.Lane: the job
// settles at once with ErrInvalidArgument. A job without a context of its
// own passes context.Background().
//
// t.Done runs on the worker goroutine that ran the job (or would have, for
// a job whose ctx had ended), or, for a job refused or dropped without
// reaching a worker, on the goroutine whose call refused or dropped it: the
// submitting goroutine (unregistered or fatal actor, closed executor,
// invalid argument), RemoveActor's, Shutdown's, or the worker whose
// mutating job made the actor fatal. t.Done may submit more jobs; it must
// not block for long (it holds a worker) and must not call Close.
//
// With a Key, the job is shared as golang.org/x/sync/singleflight shares a
// call: a submit that finds a job of the same actor and key queued or
// running joins it (its Name, Run and ctx are unused; its Lane must still
// be LaneRead) and its Done gets the same Result; once that job settles the key is free again, so a
// later submit runs anew. The shared job runs under the ctx of the submit
// that started it, whatever the joiners' contexts do. Callers share
// Result.Value and must treat it as read-only.
func (e *Executor) Submit(ctx context.Context, t Task) {
	if t.Handler != nil {
		if t.Key != "" {
			// A shared job's waiters are functions: the rare keyed
			// submit pays for the two.
			t.Run, t.Done, t.Handler = t.Handler.RunJob, t.Handler.JobDone, nil
		} else {
			t.Run, t.Done = nil, nil
		}
	}
	if t.Key != "" {
		e.submitShared(ctx, t)
		return
	}
	e.submit(ctx, t.Actor, t.Lane, t.Name, t.Run, t.Done, t.Handler)
}

// SubmitHandler is Submit of Task{Actor: id, Lane: lane, Name: name,
// Handler: h}, a job without a Key given as a Handler, with the same
// rules. It spares a caller that submits for every dispatch building and
// copying a Task.
func (e *Executor) SubmitHandler(ctx context.Context, id ActorID, lane Lane, name string, h Handler) {
	e.submit(ctx, id, lane, name, nil, nil, h)
}

func (e *Executor) submit(ctx context.Context, id ActorID, lane Lane, name string, job Job, done func(Result), h Handler) {
	if h != nil {
		done = nil
	}
	// Built where a refusal needs it, not up front: the struct is large
	// and the common path copies enough.
	refused := func() task { return task{done: done, h: h} }
	if !lane.valid() {
		refused().deliver(Result{Err: jobError(CodeInvalidArgument, name,
			fmt.Sprintf("was not run: unknown lane %v", lane))})
		return
	}
	if job == nil && h == nil {
		refused().deliver(Result{Err: jobError(CodeInvalidArgument, name, "was not run: the job is nil")})
		return
	}
	if ctx == nil {
		refused().deliver(Result{Err: jobError(CodeInvalidArgument, name,
			"was not run: the context is nil (pass context.Background())")})
		return
	}

	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		refused().deliver(Result{Err: jobError(CodeShutdown, name, "was not run: the executor is closed")})
		return
	}
	a := e.last
	if a == nil || a.id != id {
		var ok bool
		if a, ok = e.actors[id]; !ok {
			e.mu.Unlock()
			refused().deliver(Result{Err: jobError(CodeActorNotRegistered, name,
				fmt.Sprintf("was not run: actor %q is not registered", id))})
			return
		}
		e.last = a
	}
	if a.fatal {
		e.mu.Unlock()
		refused().deliver(Result{Err: fatalError(name, id)})
		return
	}
	if e.sched.cursor == nil && e.sched.idle > 0 && len(e.idle) > 0 && e.sched.admissibleLane(a, lane) {
		// No actor has queued work and a worker waits: the job is the
		// whole queue, and the round robin would admit it at once and
		// leave every actor's credit as it was. Admitting it directly
		// skips its trip through the queue and the ring, and it is
		// written straight into the worker.
		e.sched.idle--
		e.sched.admitted(a, lane)
		w := e.popIdle()
		// Field by field (cur is zero while its worker is idle): a
		// dispatched value built aside and copied in stalled on its own
		// stores.
		d := &w.cur
		d.ctx, d.job, d.name, d.lane, d.done, d.h, d.actor = ctx, job, name, lane, done, h, a
		w.wake <- struct{}{}
		e.mu.Unlock()
		return
	}
	a.queue.push(task{ctx: ctx, job: job, name: name, lane: lane, done: done, h: h})
	if !a.active {
		e.sched.activate(a)
	}
	if e.sched.idle > 0 {
		e.dispatchLocked(false)
	}
	e.mu.Unlock()
}

func fatalError(name string, id ActorID) *Error {
	return jobError(CodeActorFatal, name,
		fmt.Sprintf("was not run: actor %q is fatal after a mutating job panicked", id))
}

// dispatchLocked hands admissible jobs to free worker slots. A finishing
// worker passes keep=true to take the first one itself, which saves it a
// wake-up.
func (e *Executor) dispatchLocked(keep bool) (mine dispatched, have bool) {
	for e.sched.idle > 0 {
		d, ok := e.sched.next()
		if !ok {
			break
		}
		e.sched.idle--
		if keep && !have {
			mine, have = d, true
			continue
		}
		e.handOff(d)
	}
	return mine, have
}

// handOff starts d, an admitted job, on the idle worker that went idle
// last. A slot with no idle goroutine to run it (its job is parked) gets a
// substitute goroutine. Called under mu.
func (e *Executor) handOff(d dispatched) {
	if len(e.idle) > 0 {
		w := e.popIdle()
		// The worker reads cur once it has the token: the send orders
		// this write before that read.
		w.cur = d
		w.wake <- struct{}{}
		return
	}
	e.goroutines++
	e.workers.Add(1)
	w := e.newWorker()
	w.cur = d
	go e.work(w, true)
}

// popIdle takes the worker that went idle last off the idle stack, which
// must not be empty. Called under mu.
func (e *Executor) popIdle() *worker {
	n := len(e.idle) - 1
	w := e.idle[n]
	e.idle[n] = nil
	e.idle = e.idle[:n]
	return w
}

// DefaultCloseWait is how long Close waits for running jobs before it
// returns anyway: long enough for jobs that poll their cancellation to
// finish, short enough that an editor quitting past a stuck handler still
// quits at once, as far as a user can tell.
const DefaultCloseWait = time.Second

// Close is Shutdown bounded by DefaultCloseWait: it returns within that
// time whatever the running jobs do. See Shutdown for what may be left
// running when it does.
func (e *Executor) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultCloseWait)
	defer cancel()
	_ = e.Shutdown(ctx)
}

// Shutdown stops admitting work, settles every queued job with ErrShutdown
// (on the calling goroutine), and waits for the running jobs to return and
// for every goroutine the executor started to end, or for ctx to end,
// whichever comes first. Later submits settle with ErrShutdown at once.
//
// The executor cannot stop a running job: whoever submitted it ends the
// context it was submitted with (the runtime cancels every job's context
// before it closes the executor), and the job returns when it sees that. If
// ctx ends first, Shutdown returns ctx.Err() and leaves running the jobs
// that did not return (a handler blocked in a system call, such as a read
// from a FIFO with no writer, cannot be interrupted), their worker
// goroutines and one goroutine that waits for them. Each of those ends when
// its job returns; its Result is still delivered to its Done, so the caller
// must tolerate a settle that arrives after Shutdown. A job that never returns
// leaks with its goroutine.
//
// Shutdown is idempotent and safe to call concurrently; it must not be
// called from a job or a Task's Done, which would wait for itself.
func (e *Executor) Shutdown(ctx context.Context) error {
	e.mu.Lock()
	var dropped []task
	if !e.closed {
		e.closed = true
		for _, a := range e.order {
			e.sched.deactivate(a)
			dropped = append(dropped, a.queue.drain()...)
		}
		// The idle workers end; a running one ends once its job has, as
		// nextLocked finds the executor closed. No job can be handed to
		// an idle worker any more: the queues are empty and every submit
		// checks closed under mu.
		for _, w := range e.idle {
			close(w.wake)
		}
		e.idle = nil
		e.joined = make(chan struct{})
		go e.join()
	}
	joined := e.joined
	e.mu.Unlock()

	for _, t := range dropped {
		t.deliver(Result{Err: jobError(CodeShutdown, t.name, "was not run: the executor was closed")})
	}
	select {
	case <-joined:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// join waits for the worker goroutines and closes joined.
func (e *Executor) join() {
	e.workers.Wait()
	close(e.joined)
}

// deliver settles one job.
func deliver(done func(Result), r Result) {
	if done != nil {
		done(r)
	}
}
