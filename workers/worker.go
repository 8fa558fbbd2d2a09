package workers

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// worker is one worker goroutine's state. It lives as long as the goroutine
// and is reused for every job the goroutine runs, so parking costs a job
// nothing unless it parks.
type worker struct {
	e *Executor
	// cur is the job being run. The worker goroutine writes it, except
	// that handOff writes it for a worker that is idle and starts it with
	// a token on wake.
	cur  dispatched
	wake chan struct{}

	// mu orders the park transitions of cur's job, whose goroutines may
	// park and unpark concurrently, and the end of a job that has parked.
	mu sync.Mutex
	// state is seq<<parkBits | parked. seq names the job being run; it
	// changes when the job ends, so a goroutine the job left behind cannot
	// park or unpark a later job. parked counts the job's goroutines inside
	// Park. Changes to parked happen under mu; a job that never parked ends
	// with one compare-and-swap and no lock.
	state atomic.Uint64
}

const (
	parkBits = 24
	parkMask = 1<<parkBits - 1
)

// seq returns the current job's sequence number, for the job's Actor.
func (w *worker) seq() uint64 { return w.state.Load() >> parkBits }

func (e *Executor) newWorker() *worker {
	return &worker{e: e, wake: make(chan struct{}, 1)}
}

// work is one worker goroutine. It runs w.cur first (if have), then the
// jobs handed to it while it is idle, and in between keeps taking the next
// admissible job directly from the scheduler while there is one, so a busy
// pool does not pay a wake-up per job. A worker above the pool size (a
// substitute started while jobs were parked) retires instead of going idle,
// and every worker ends once the executor is closed.
func (e *Executor) work(w *worker, have bool) {
	defer e.workers.Done()
	for {
		for have {
			var retire bool
			have, retire = e.runAndFinish(w)
			if retire {
				return
			}
		}
		if _, ok := <-w.wake; !ok {
			return
		}
		have = true
	}
}

// runAndFinish runs w.cur, settles it and loads the worker's next job, if
// any. Without one the worker either goes idle or, above the pool
// size, retires.
func (e *Executor) runAndFinish(w *worker) (have, retire bool) {
	d := &w.cur
	var res Result
	var panicked bool
	if d.ctx.Err() != nil {
		res = Result{Err: canceledError(d.ctx, d.name)}
	} else {
		res, panicked = e.call(w)
	}
	if panicked && d.lane == LaneMutating {
		// The actor becomes fatal before the panic's Result is delivered, so a
		// caller that sees internal_error also sees ActorIsFatal and a refusal.
		t, id := d.task, d.actor.id
		dropped := e.finishFatal(w, res.Err)
		t.deliver(res)
		e.deliverFatal(id, dropped)
		return e.afterJob(w)
	}
	// Deliver before taking the lock: the caller learns of the result one
	// critical section sooner, which is most of a no-op job's latency.
	d.task.deliver(res)
	e.mu.Lock()
	e.sched.finish(d)
	return e.nextLocked(w)
}

// afterJob loads the worker's next job after a path that settled outside
// the lock.
func (e *Executor) afterJob(w *worker) (have, retire bool) {
	e.mu.Lock()
	return e.nextLocked(w)
}

// nextLocked loads w's next job, keeping the first admissible one for w
// itself, and unlocks mu. Without a job w goes idle, or retires when the
// pool has grown past its size while jobs were parked or the executor is
// closed.
func (e *Executor) nextLocked(w *worker) (have, retire bool) {
	var next dispatched
	var ok bool
	if e.sched.cursor != nil { // some actor has work queued
		next, ok = e.dispatchLocked(true)
	}
	switch {
	case ok:
		w.cur = next
	case e.closed:
		retire = true
	case e.goroutines > e.cfg.PoolSize:
		e.goroutines--
		retire = true
	default:
		w.cur = dispatched{}
		e.idle = append(e.idle, w)
	}
	e.mu.Unlock()
	return ok, retire
}

// finishFatal releases w.cur's slot, marks its actor fatal with the job's
// panic as the reason, and takes the actor's queued jobs for the caller to
// settle outside the lock.
func (e *Executor) finishFatal(w *worker, reason error) []task {
	e.mu.Lock()
	defer e.mu.Unlock()
	a := w.cur.actor
	a.fatal = true
	a.fatalReason = reason.Error()
	e.sched.deactivate(a)
	dropped := a.queue.drain()
	e.sched.finish(&w.cur)
	return dropped
}

func (e *Executor) deliverFatal(id ActorID, dropped []task) {
	for _, t := range dropped {
		t.deliver(Result{Err: fatalError(t.name, id)})
	}
}

// call runs the job under its lane's gate, turning a panic into an
// internal_error. A job that calls runtime.Goexit cannot be stopped from
// ending this goroutine; the deferred handler then settles the job and starts
// a replacement worker so the pool keeps its size.
func (e *Executor) call(w *worker) (res Result, panicked bool) {
	returned := false
	defer func() {
		if returned {
			return
		}
		if p := recover(); p != nil {
			panicked = true
			res = Result{Err: jobError(CodeInternal, w.cur.name, fmt.Sprintf("panicked: %v", p))}
			return
		}
		e.goexited(w)
	}()
	res.Value, res.Err = e.gated(w)
	returned = true
	return res, false
}

// gated is aft's run_lane_job: the lane decides which side of the actor's
// epoch gate the job runs on. endJob runs deferred in every lane so that a
// panic or Goexit also closes the job's parking sections. Each lane has a
// function of its own so that its defers are open-coded: all of them in
// one function are too many for that, and the generic defer records cost
// a no-op job a noticeable share of its run.
func (e *Executor) gated(w *worker) (any, error) {
	who := Actor{ID: w.cur.actor.id, run: w, seq: w.seq()}
	switch w.cur.lane {
	case LaneRead, LaneSerial:
		return w.runShared(who)
	case LaneMutating:
		return w.runExclusive(who)
	case LaneStream:
		return w.runUngated(who)
	default:
		return w.runHeavy(who)
	}
}

// runShared runs a read or serial job under the actor's read gate.
func (w *worker) runShared(who Actor) (any, error) {
	w.cur.actor.gate.RLock()
	defer w.endJob(true)
	return w.cur.run(who)
}

// runExclusive runs a mutating job under the actor's write gate.
func (w *worker) runExclusive(who Actor) (any, error) {
	gate := &w.cur.actor.gate
	gate.Lock()
	defer gate.Unlock()
	defer w.endJob(false)
	return w.cur.run(who)
}

// runUngated runs a stream's producer, which holds no gate.
func (w *worker) runUngated(who Actor) (any, error) {
	defer w.endJob(false)
	return w.cur.run(who)
}

// runHeavy builds outside the gate, then passes the install point: an
// empty write section that waits for the reads in flight.
func (w *worker) runHeavy(who Actor) (any, error) {
	defer w.endJob(false)
	v, err := w.cur.run(who)
	gate := &w.cur.actor.gate
	gate.Lock()
	gate.Unlock() //nolint:staticcheck // an empty critical section is the install barrier
	return v, err
}

// goexited settles a job whose goroutine is ending in runtime.Goexit and
// replaces the worker unless the pool is above its size. It runs in that
// goroutine's deferred calls, before work's own deferred Done, so adding the
// replacement to the WaitGroup cannot race Close's Wait reaching zero.
func (e *Executor) goexited(w *worker) {
	d := &w.cur
	res := Result{Err: jobError(CodeInternal, d.name, "called runtime.Goexit")}
	t, id := d.task, d.actor.id
	var dropped []task
	if d.lane == LaneMutating {
		dropped = e.finishFatal(w, res.Err)
	}
	e.mu.Lock()
	if d.lane != LaneMutating {
		e.sched.finish(d)
	}
	switch {
	case e.closed:
	case e.goroutines > e.cfg.PoolSize:
		e.goroutines--
	default:
		nw := e.newWorker()
		e.idle = append(e.idle, nw)
		e.workers.Add(1)
		go e.work(nw, false)
	}
	e.dispatchLocked(false)
	e.mu.Unlock()
	t.deliver(res)
	e.deliverFatal(id, dropped)
}
