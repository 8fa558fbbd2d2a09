package workers

import (
	"context"
	"sync"
)

// jobCost is what one job spends of an actor's deficit. Every job costs the
// same: the executor cannot know in advance how long a job runs, so fairness
// is in job starts, as in aft.
const jobCost = 1

// task is a queued job. It is stored by value in the actor's ring buffer so a
// submit allocates nothing once the buffer has grown to its working size.
type task struct {
	ctx  context.Context
	job  Job
	name string
	lane Lane
	done func(Result)
	h    Handler // instead of job and done (Task.Handler)
}

// run runs the task's job.
func (t *task) run(a Actor) (any, error) {
	if t.h != nil {
		return t.h.RunJob(t.ctx, a)
	}
	return t.job(t.ctx, a)
}

// deliver settles the task with r.
func (t task) deliver(r Result) {
	if t.h != nil {
		t.h.JobDone(r)
		return
	}
	if t.done != nil {
		t.done(r)
	}
}

// dispatched is a task admitted to run, handed to a worker by value.
type dispatched struct {
	task
	actor *actorState
}

// actorState is one actor's scheduling state; every field but gate is guarded
// by Executor.mu.
type actorState struct {
	id ActorID

	// gate is the actor's epoch lock (aft's RwLock<()>): reads and serial jobs
	// hold it shared, mutating jobs exclusively, heavy jobs briefly to install.
	gate sync.RWMutex

	queue    taskQueue
	inflight int  // all lanes, parked jobs excepted
	live     int  // admitted and not finished, parked jobs included
	reads    int  // LaneRead in flight
	serial   bool // a LaneSerial job is in flight
	// serialParked: that serial job is parked and has given up the gate.
	serialParked bool
	writer       bool // a LaneMutating job is in flight (aft's writer_pending)
	fatal        bool
	// fatalReason is the settled error of the mutating job whose panic made
	// the actor fatal.
	fatalReason string

	// Deficit round robin. Only actors with queued jobs are on the ring.
	deficit    int
	active     bool
	next, prev *actorState
}

// scheduler is the executor's admission state, guarded by Executor.mu.
type scheduler struct {
	cfg        Config
	deficitCap int
	// idle is the worker slots free: PoolSize less the jobs running and not
	// parked, less the jobs handed to idle workers not yet started. A job
	// that unparks takes its slot back at once, so idle may dip below zero
	// for a moment.
	idle      int
	heavyFree int // process-wide heavy permits not in use

	cursor  *actorState // the actor being visited; nil when no actor has work
	granted bool        // cursor has received this visit's quantum
	activeN int

	// onAdmit, when set (by tests only), sees every admission in order,
	// under the lock: the scheduler's decisions, free of the Go scheduler's
	// timing of when a woken worker actually runs.
	onAdmit func(ActorID)
}

// admissible reports whether the head of a's queue may start now. Only the
// head is ever considered: admission within an actor is strictly FIFO.
func (s *scheduler) admissible(a *actorState) bool {
	return s.admissibleLane(a, a.queue.front().lane)
}

// admissibleLane reports whether a job of lane may start now on a, were it
// the head of a's queue.
func (s *scheduler) admissibleLane(a *actorState, lane Lane) bool {
	if a.inflight >= s.cfg.ActorCap {
		return false
	}
	switch lane {
	case LaneRead:
		return !a.writer && a.reads < s.cfg.ReadCap
	case LaneSerial:
		return !a.writer && !a.serial
	case LaneHeavy:
		return s.heavyFree > 0
	case LaneStream:
		// Like a read it waits for the mutations submitted before it; unlike
		// a read it is not counted against ReadCap or the writer barrier,
		// since it holds no gate.
		return !a.writer
	default: // LaneMutating
		// aft lets a writer start once reads drain and then parks it on the
		// gate behind any serial job or earlier writer. Holding it here
		// instead keeps writers in submission order (a parked writer could
		// otherwise overtake another on the RWMutex) and keeps the worker free.
		return !a.writer && (!a.serial || a.serialParked) && a.reads == 0
	}
}

// next admits one job, visiting actors in deficit round robin. It returns
// false when no actor's head can start.
func (s *scheduler) next() (dispatched, bool) {
	// Every refusal for admissibility advances the cursor, so one lap of
	// refusals proves nothing can start. A refusal for spent credit also
	// advances but is not counted: the actor gets a fresh quantum next time
	// round and happens at most once per call.
	for refused := 0; s.cursor != nil && refused < s.activeN; {
		a := s.cursor
		if !s.admissible(a) {
			// No credit is earned while blocked: credit is for sharing
			// workers, not compensation for a barrier or a cap.
			s.advance()
			refused++
			continue
		}
		if !s.granted {
			a.deficit = min(a.deficit+s.cfg.Quantum, s.deficitCap)
			s.granted = true
		}
		if a.deficit < jobCost {
			s.advance()
			continue
		}
		a.deficit -= jobCost
		return s.admit(a), true
	}
	return dispatched{}, false
}

func (s *scheduler) admit(a *actorState) dispatched {
	t := a.queue.pop()
	s.admitted(a, t.lane)
	if a.queue.n == 0 {
		s.deactivate(a)
	}
	return dispatched{task: t, actor: a}
}

// admitted takes what the start of a job of lane on a holds: the head of
// a's queue, just popped, or a job submitted while no actor had work
// queued.
func (s *scheduler) admitted(a *actorState, lane Lane) {
	a.inflight++
	a.live++
	switch lane {
	case LaneRead:
		a.reads++
	case LaneSerial:
		a.serial = true
	case LaneHeavy:
		s.heavyFree--
	case LaneMutating:
		a.writer = true
	}
	if s.onAdmit != nil {
		s.onAdmit(a.id)
	}
}

// finish releases what admit took. The actor may have been removed since;
// its counters are then simply orphaned, but the permit and the worker are
// process-wide and always come back.
func (s *scheduler) finish(d *dispatched) {
	a := d.actor
	a.inflight--
	a.live--
	switch d.lane {
	case LaneRead:
		a.reads--
	case LaneSerial:
		a.serial = false
	case LaneHeavy:
		s.heavyFree++
	case LaneMutating:
		a.writer = false
	}
	s.idle++
}

// release gives back, while d's job is parked, what a parked job does not
// hold: its worker slot, its ActorCap slot, and its read-cap count, its
// hold on the writer barrier (a serial job) or its heavy permit. A serial
// job stays the actor's one serial job and a mutating job keeps its
// barrier: releasing those would break the order their lanes promise.
func (s *scheduler) release(d *dispatched) {
	a := d.actor
	a.inflight--
	switch d.lane {
	case LaneRead:
		a.reads--
	case LaneSerial:
		a.serialParked = true
	case LaneHeavy:
		s.heavyFree++
	}
	s.idle++
}

// reclaim takes back what release gave, without waiting: a cap or the pool
// size may be exceeded until the job finishes or parks again.
func (s *scheduler) reclaim(d *dispatched) {
	a := d.actor
	a.inflight++
	switch d.lane {
	case LaneRead:
		a.reads++
	case LaneSerial:
		a.serialParked = false
	case LaneHeavy:
		s.heavyFree--
	}
	s.idle--
}

// activate puts a on the ring just behind the cursor, i.e. last in the
// current rotation, so a newly busy actor cannot jump the queue.
func (s *scheduler) activate(a *actorState) {
	a.active = true
	s.activeN++
	if s.cursor == nil {
		a.next, a.prev = a, a
		s.cursor, s.granted = a, false
		return
	}
	c := s.cursor
	a.prev, a.next = c.prev, c
	c.prev.next = a
	c.prev = a
}

// deactivate takes a off the ring; an actor without queued work keeps no
// credit, as in classic DRR.
func (s *scheduler) deactivate(a *actorState) {
	if !a.active {
		return
	}
	a.active = false
	a.deficit = 0
	s.activeN--
	if a.next == a {
		s.cursor = nil
	} else {
		a.prev.next = a.next
		a.next.prev = a.prev
		if s.cursor == a {
			s.cursor, s.granted = a.next, false
		}
	}
	a.next, a.prev = nil, nil
}

func (s *scheduler) advance() {
	s.cursor, s.granted = s.cursor.next, false
}

// taskQueue is a FIFO ring buffer of tasks with a power-of-two capacity.
type taskQueue struct {
	buf  []task
	head int
	n    int
}

// shrinkAbove is the capacity above which an emptied queue gives its buffer
// back, so one burst does not pin memory for the actor's lifetime.
const shrinkAbove = 64

func (q *taskQueue) push(t task) {
	if q.n == len(q.buf) {
		q.grow()
	}
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = t
	q.n++
}

func (q *taskQueue) grow() {
	size := max(2*len(q.buf), 8)
	buf := make([]task, size)
	for i := range q.n {
		buf[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
	}
	q.buf, q.head = buf, 0
}

func (q *taskQueue) front() *task { return &q.buf[q.head] }

func (q *taskQueue) pop() task {
	t := q.buf[q.head]
	q.buf[q.head] = task{} // drop references for the collector
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
	if q.n == 0 && len(q.buf) > shrinkAbove {
		q.buf, q.head = nil, 0
	}
	return t
}

// drain empties the queue, returning its tasks in order.
func (q *taskQueue) drain() []task {
	out := make([]task, 0, q.n)
	for q.n > 0 {
		out = append(out, q.pop())
	}
	return out
}
