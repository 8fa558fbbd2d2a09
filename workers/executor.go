package workers

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// ActorID names an actor: in the editor, a project root.
type ActorID string

// Actor is what a job sees: the actor it runs for and that actor's context
// (whatever RegisterActor was given). The Actor a job receives also lets it
// park (see Park).
type Actor struct {
	ID      ActorID
	Context any

	run *worker // the worker running the job; nil outside a job
	seq uint64  // which of run's jobs this is
}

// Job runs on a worker goroutine. Its return values become the Result.
type Job func(a Actor) (any, error)

// Executor runs jobs for registered actors on a fixed pool of worker
// goroutines. See the package documentation for the scheduling rules and the
// concurrency contract. The zero Executor is not usable; call New.
type Executor struct {
	cfg Config

	mu     sync.Mutex
	sched  scheduler
	actors map[ActorID]*actorState
	order  []*actorState // registration order, for ActorContexts
	closed bool
	joined chan struct{} // closed once every goroutine has ended; made by Shutdown

	// runCh hands admitted jobs to idle workers. Its capacity is PoolSize and
	// a job is only sent while a worker goroutine is free (waiting on runCh
	// with nothing sent to it yet), so a send never blocks, which lets it
	// happen under mu. A worker only becomes free while there are at most
	// PoolSize worker goroutines, so at most PoolSize are ever waiting.
	runCh   chan dispatched
	workers sync.WaitGroup
	// goroutines counts the worker goroutines, PoolSize plus the
	// substitutes started while jobs were parked; free counts those waiting
	// on runCh with nothing sent to them. Both are guarded by mu. Without
	// parked jobs free equals sched.idle.
	goroutines int
	free       int

	// Late deliveries to a caller's full channel (see SubmitChan).
	sendMu   sync.Mutex
	senders  sync.WaitGroup
	stopping chan struct{}
	stopped  bool

	flightMu sync.Mutex
	flights  map[flightKey]*flight
}

// New starts an executor with cfg.Effective() and its worker goroutines.
// Close it to stop them.
func New(cfg Config) *Executor {
	cfg = cfg.Effective()
	e := &Executor{
		cfg:      cfg,
		actors:   make(map[ActorID]*actorState),
		runCh:    make(chan dispatched, cfg.PoolSize),
		stopping: make(chan struct{}),
		flights:  make(map[flightKey]*flight),
	}
	e.sched = scheduler{
		cfg:        cfg,
		deficitCap: cfg.deficitCap(),
		idle:       cfg.PoolSize,
		heavyFree:  cfg.HeavyPermits,
	}
	e.goroutines, e.free = cfg.PoolSize, cfg.PoolSize
	e.workers.Add(cfg.PoolSize)
	for range cfg.PoolSize {
		go e.work(dispatched{}, false)
	}
	return e
}

// Config returns the effective configuration.
func (e *Executor) Config() Config { return e.cfg }

// RegisterActor adds an actor with its context. It returns false, keeping the
// existing context and queue, if the actor is already registered: callers
// reconfigure a live actor through a mutating job, not by replacing it.
func (e *Executor) RegisterActor(id ActorID, ctx any) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.actors[id]; ok {
		return false
	}
	a := &actorState{id: id, ctx: ctx}
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
		e.deliver(t.done, Result{Err: jobError(CodeActorNotRegistered, t.name,
			fmt.Sprintf("was not run: actor %q was removed", id))})
	}
}

// ActorContexts returns a snapshot of the registered actors in registration
// order. The contexts are returned as given, so teardown can run on them
// without holding any executor lock.
func (e *Executor) ActorContexts() []Actor {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]Actor, len(e.order))
	for i, a := range e.order {
		out[i] = Actor{ID: a.id, Context: a.ctx}
	}
	return out
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

// Submit queues job and returns a Handle to wait on.
func (e *Executor) Submit(id ActorID, lane Lane, name string, job Job) *Handle {
	h := newHandle()
	e.submit(id, lane, name, job, completion{h: h})
	return h
}

// SubmitChan queues job; its Result is sent on done. done should have a free
// buffer slot per outstanding job: the worker tries the send without blocking
// and, if done is full, hands it to a small executor-owned goroutine so that
// a slow reader costs a goroutine, never a worker. Close waits for such
// pending sends until the workers have stopped and then drops the ones still
// blocked. A nil done discards the Result.
func (e *Executor) SubmitChan(id ActorID, lane Lane, name string, job Job, done chan<- Result) {
	e.submit(id, lane, name, job, completion{ch: done})
}

// SubmitFunc queues job; done is called with its Result exactly once. It is
// the cheapest form: nothing is allocated beyond the queued record, and that
// is amortised away once the actor's queue has grown.
//
// done runs on the worker goroutine that ran the job, or, for a job refused
// or dropped without running, on the goroutine whose call refused or dropped
// it: the submitting goroutine (unregistered or fatal actor, closed executor,
// invalid argument), RemoveActor's, Close's, or the worker whose mutating job
// made the actor fatal. done may submit more jobs; it must not block for long
// (it holds a worker) and must not call Close. A nil done discards the Result.
func (e *Executor) SubmitFunc(id ActorID, lane Lane, name string, job Job, done func(Result)) {
	e.submit(id, lane, name, job, completion{fn: done})
}

func (e *Executor) submit(id ActorID, lane Lane, name string, job Job, done completion) {
	if !lane.valid() {
		e.deliver(done, Result{Err: jobError(CodeInvalidArgument, name,
			fmt.Sprintf("was not run: unknown lane %v", lane))})
		return
	}
	if job == nil {
		e.deliver(done, Result{Err: jobError(CodeInvalidArgument, name, "was not run: the job is nil")})
		return
	}

	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		e.deliver(done, Result{Err: jobError(CodeShutdown, name, "was not run: the executor is closed")})
		return
	}
	a, ok := e.actors[id]
	if !ok {
		e.mu.Unlock()
		e.deliver(done, Result{Err: jobError(CodeActorNotRegistered, name,
			fmt.Sprintf("was not run: actor %q is not registered", id))})
		return
	}
	if a.fatal {
		e.mu.Unlock()
		e.deliver(done, Result{Err: fatalError(name, id)})
		return
	}
	a.queue.push(task{job: job, name: name, lane: lane, done: done})
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
// trip through runCh. A slot with no free goroutine to run it (its job is
// parked) gets a substitute goroutine.
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
		if e.free > 0 {
			e.free--
			e.runCh <- d
			continue
		}
		e.goroutines++
		e.workers.Add(1)
		go e.work(d, true)
	}
	return mine, have
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
// The executor cannot stop a job: whoever submitted it cancels it (the
// runtime cancels every job's context before it closes the executor). If
// ctx ends first, Shutdown returns ctx.Err() and leaves running the jobs
// that did not return (a handler blocked in a system call, such as a read
// from a FIFO with no writer, cannot be interrupted), their worker
// goroutines and one goroutine that waits for them. Each of those ends when
// its job returns; its Result is still delivered (to a Handle or callback;
// a send to a full SubmitChan channel is dropped), so the caller must
// tolerate a settle that arrives after Shutdown. A job that never returns
// leaks with its goroutine.
//
// Shutdown is idempotent and safe to call concurrently; it must not be
// called from a job or a completion callback, which would wait for itself.
func (e *Executor) Shutdown(ctx context.Context) error {
	e.mu.Lock()
	var dropped []task
	if !e.closed {
		e.closed = true
		for _, a := range e.order {
			e.sched.deactivate(a)
			dropped = append(dropped, a.queue.drain()...)
		}
		// No send can follow: every send happens under mu after a closed check.
		close(e.runCh)
		e.joined = make(chan struct{})
		go e.join()
	}
	joined := e.joined
	e.mu.Unlock()

	for _, t := range dropped {
		e.deliver(t.done, Result{Err: jobError(CodeShutdown, t.name, "was not run: the executor was closed")})
	}
	select {
	case <-joined:
		return nil
	case <-ctx.Done():
		// Nobody waits for late sends any more: drop them rather than leave
		// their goroutines behind with the stuck jobs.
		e.stopSenders()
		return ctx.Err()
	}
}

// join waits for the worker goroutines, then for the late senders, which
// may keep trying until the workers have stopped, and closes joined.
func (e *Executor) join() {
	e.workers.Wait()
	e.stopSenders()
	e.senders.Wait()
	close(e.joined)
}

func (e *Executor) stopSenders() {
	e.sendMu.Lock()
	defer e.sendMu.Unlock()
	if !e.stopped {
		e.stopped = true
		close(e.stopping)
	}
}

// deliver settles one job. It never blocks on a caller's channel.
func (e *Executor) deliver(c completion, r Result) {
	switch {
	case c.fn != nil:
		c.fn(r)
	case c.h != nil:
		c.h.settle(r)
	case c.ch != nil:
		select {
		case c.ch <- r:
		default:
			e.deliverLater(c.ch, r)
		}
	}
}

func (e *Executor) deliverLater(ch chan<- Result, r Result) {
	e.sendMu.Lock()
	defer e.sendMu.Unlock()
	if e.stopped {
		return // closed and the caller's channel is full: documented drop
	}
	e.senders.Add(1)
	go func() {
		defer e.senders.Done()
		select {
		case ch <- r:
		case <-e.stopping:
		}
	}()
}
