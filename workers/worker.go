package workers

import "fmt"

// work is one worker goroutine. It takes a job from runCh, then keeps taking
// the next admissible job directly from the scheduler while there is one, so
// a busy pool does not pay a channel hop per job.
func (e *Executor) work() {
	defer e.workers.Done()
	for d := range e.runCh {
		for ok := true; ok; {
			d, ok = e.runAndFinish(d)
		}
	}
}

// runAndFinish runs d, settles it and returns the worker's next job, if any.
func (e *Executor) runAndFinish(d dispatched) (dispatched, bool) {
	res, panicked := e.call(&d)
	if panicked && d.lane == LaneMutating {
		// The actor becomes fatal before the panic's Result is delivered, so a
		// caller that sees internal_error also sees ActorIsFatal and a refusal.
		next, ok, dropped := e.finishFatal(&d, true)
		e.deliver(d.done, res)
		e.deliverFatal(d.actor.id, dropped)
		return next, ok
	}
	// Deliver before taking the lock: the caller learns of the result one
	// critical section sooner, which is most of a no-op job's latency.
	e.deliver(d.done, res)
	e.mu.Lock()
	e.sched.finish(&d)
	next, ok := e.dispatchLocked(true)
	e.mu.Unlock()
	return next, ok
}

// finishFatal releases d's slot, marks its actor fatal and takes the actor's
// queued jobs for the caller to settle outside the lock. With keep it may hand
// the worker its next job (from another actor).
func (e *Executor) finishFatal(d *dispatched, keep bool) (dispatched, bool, []task) {
	e.mu.Lock()
	defer e.mu.Unlock()
	a := d.actor
	a.fatal = true
	e.sched.deactivate(a)
	dropped := a.queue.drain()
	e.sched.finish(d)
	next, ok := e.dispatchLocked(keep)
	return next, ok, dropped
}

func (e *Executor) deliverFatal(id ActorID, dropped []task) {
	for _, t := range dropped {
		e.deliver(t.done, Result{Err: fatalError(t.name, id)})
	}
}

// call runs the job under its lane's gate, turning a panic into an
// internal_error. A job that calls runtime.Goexit cannot be stopped from
// ending this goroutine; the deferred handler then settles the job and starts
// a replacement worker so the pool keeps its size.
func (e *Executor) call(d *dispatched) (res Result, panicked bool) {
	returned := false
	defer func() {
		if returned {
			return
		}
		if p := recover(); p != nil {
			panicked = true
			res = Result{Err: jobError(CodeInternal, d.name, fmt.Sprintf("panicked: %v", p))}
			return
		}
		e.goexited(d)
	}()
	res.Value, res.Err = e.gated(d)
	returned = true
	return res, false
}

// gated is aft's run_lane_job: the lane decides which side of the actor's
// epoch gate the job runs on.
func (e *Executor) gated(d *dispatched) (any, error) {
	a := d.actor
	who := Actor{ID: a.id, Context: a.ctx}
	switch d.lane {
	case LaneRead, LaneSerial:
		a.gate.RLock()
		defer a.gate.RUnlock()
		return d.job(who)
	case LaneMutating:
		a.gate.Lock()
		defer a.gate.Unlock()
		return d.job(who)
	default: // LaneHeavy: build outside the gate, then the install point
		v, err := d.job(who)
		a.gate.Lock()
		a.gate.Unlock() //nolint:staticcheck // an empty critical section is the install barrier
		return v, err
	}
}

// goexited settles a job whose goroutine is ending in runtime.Goexit and
// replaces the worker. It runs in that goroutine's deferred calls, before
// work's own deferred Done, so adding the replacement to the WaitGroup cannot
// race Close's Wait reaching zero.
func (e *Executor) goexited(d *dispatched) {
	res := Result{Err: jobError(CodeInternal, d.name, "called runtime.Goexit")}
	var dropped []task
	if d.lane == LaneMutating {
		_, _, dropped = e.finishFatal(d, false)
	} else {
		e.mu.Lock()
		e.sched.finish(d)
		e.dispatchLocked(false)
		e.mu.Unlock()
	}
	e.workers.Add(1)
	go e.work()
	e.deliver(d.done, res)
	e.deliverFatal(d.actor.id, dropped)
}
