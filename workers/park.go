package workers

// Park runs wait as a parking section: a stretch in which the job waits on
// something outside the executor (its consumer, a reply, a process) rather
// than computing. Call it from the job or from any goroutine the job
// started, for as long as the job runs; wait runs on the calling goroutine
// and Park returns when wait does (a panic in wait propagates, after the
// section has closed).
//
// While any goroutine of the job is inside Park the job holds no worker
// slot and no ActorCap slot, and it gives up what its lane allows:
//
//   - LaneStream has nothing more to give up (it never holds the gate);
//   - LaneRead gives up the actor's read gate and its ReadCap count, so a
//     mutating job may run meanwhile;
//   - LaneSerial gives up the read gate (a mutating job may run meanwhile)
//     but stays the actor's one serial job;
//   - LaneHeavy gives up its heavy permit;
//   - LaneMutating keeps the write gate and the barrier: mutations stay one
//     at a time in submission order, so a mutating job must never park on
//     anything that waits for its own actor.
//
// If admissible work is queued while no worker is idle, a substitute worker
// goroutine runs it, as Go's scheduler hands off a P during a system call;
// the pool shrinks back to PoolSize as workers go idle. Leaving the section
// takes the job's slots back at once, without waiting for them, so the pool
// size and the caps may be exceeded briefly; a LaneRead or LaneSerial job
// then waits for the read gate, that is for a mutating job already running.
//
// Several goroutines of one job may park at once: the job gives up its
// slots when the first enters and takes them back when the last leaves. Its
// other goroutines keep running meanwhile and must not count on the gate.
// Park on an Actor that did not come from a running job (a zero Actor),
// or after the job has returned, just calls wait.
func (a Actor) Park(wait func()) {
	w := a.run
	if w == nil || !w.park(a.seq) {
		wait()
		return
	}
	defer w.unpark(a.seq)
	wait()
}

// park opens a parking section of job seq; false if that job has ended.
func (w *worker) park(seq uint64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := w.state.Load()
	if st>>parkBits != seq {
		return false
	}
	// Under mu nobody else changes parked, and endJob's lock-free path
	// only moves a state with parked == 0; so if this Add wins, the job
	// has not ended, and if endJob's swap won, the check above failed.
	if !w.state.CompareAndSwap(st, st+1) {
		return false
	}
	if st&parkMask > 0 {
		return true
	}
	d := &w.cur
	if d.lane == LaneRead || d.lane == LaneSerial {
		d.actor.gate.RUnlock()
	}
	e := w.e
	e.mu.Lock()
	e.sched.release(d)
	if e.sched.idle > 0 {
		e.dispatchLocked(false)
	}
	e.mu.Unlock()
	return true
}

// unpark closes a parking section of job seq. If the job ended meanwhile,
// its end has already reclaimed what the section gave up.
func (w *worker) unpark(seq uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := w.state.Load()
	if st>>parkBits != seq {
		return
	}
	if st&parkMask > 1 {
		w.state.Store(st - 1)
		return
	}
	w.reclaim()
	if d := &w.cur; d.lane == LaneRead || d.lane == LaneSerial {
		// Never under e.mu: the gate may be held by a mutating job that
		// needs e.mu to finish. The count drops to zero only once the gate
		// is held again, so endJob's lock-free path cannot release it first.
		d.actor.gate.RLock()
	}
	w.state.Store(st - 1)
}

func (w *worker) reclaim() {
	e := w.e
	e.mu.Lock()
	e.sched.reclaim(&w.cur)
	e.mu.Unlock()
}

// endJob closes the job's books on the worker goroutine when the job
// returns, panics or exits: later Park calls from goroutines it left behind
// become plain calls. A job that returned with goroutines still parked gets
// its slots back here so that finish releases them exactly once; its read
// gate was given up by the first park. Otherwise endJob releases the read
// gate (shared) of a LaneRead or LaneSerial job.
func (w *worker) endJob(shared bool) {
	st := w.state.Load()
	next := (st>>parkBits + 1) << parkBits
	if st&parkMask == 0 && w.state.CompareAndSwap(st, next) {
		if shared {
			w.cur.actor.gate.RUnlock()
		}
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	st = w.state.Load()
	w.state.Store((st>>parkBits + 1) << parkBits)
	if st&parkMask > 0 {
		w.reclaim()
		return
	}
	if shared {
		w.cur.actor.gate.RUnlock()
	}
}
