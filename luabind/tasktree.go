package luabind

import (
	"context"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// taskTree is a task's place among the others: the task that started it, the
// tasks it started, the jobs it dispatched, and its cancellation. A task's
// outcome is final only once its function has returned (or raised) and
// every child it did not detach has ended; until then it is "joining".
type taskTree struct {
	id   uint64
	name string
	// started and since (when the task last parked) are read from the
	// frame's clock (Binding.now), which the task list only needs to the
	// frame: a spawn and a wait cost no look at the system clock.
	started time.Time
	since   time.Time

	parent   *Task
	children []*Task // children not ended and not detached
	// prevAlive and nextAlive link the binding's live tasks (b.alive).
	prevAlive, nextAlive *Task
	childIdx             int // this task's index in parent.children
	// uncollected are children that failed while nobody awaited them:
	// the first fails this task when its function returns, unless this
	// task collects them with child:await() first.
	uncollected []*Task
	// shielded children are not reached by their parent's cancellation
	// (pmacs.async.shield).
	shielded bool
	// keepJobs: the jobs left when the task returns keep running
	// (SpawnMain).
	keepJobs bool

	// bodyDone: the task's function has returned or raised; the task now
	// waits only for its children.
	bodyDone bool

	// jobs are the jobs the task dispatched that have not settled: they
	// are cancelled with it, and when it ends (unless it returns their
	// handles, which then pass to its parent).
	jobs []*job

	cancelled bool
	cancelMsg string // "cancelled" or "cancelled: <reason>"
	// raise makes the task's next resume raise its cancellation at once,
	// where it is parked.
	raise bool

	// consuming is the stream (or LSP result) whose iterator the task is
	// parked in; timer is the timer of a sleep or of an await's deadline.
	consuming *job
	timer     *timer
}

// parentOf returns the task running on L, the parent of a task L starts.
// A coroutine a task resumes (coroutine.create, coroutine.wrap) runs on
// its behalf: the task is found through the coroutine's resumer.
func (b *Binding) parentOf(L *lua.LState) *Task {
	for l, depth := L, 0; l != nil && depth < 256; l, depth = l.Parent, depth+1 {
		if p := b.threads[l]; p != nil {
			if p.state == taskRunning {
				return p
			}
			return nil
		}
	}
	return nil
}

// adopt makes t a child of p.
func (b *Binding) adopt(p, t *Task) {
	t.parent = p
	t.childIdx = len(p.children)
	p.children = append(p.children, t)
	if p.cancelled && !t.shielded {
		// Started by a task that is already cancelled: born cancelled.
		t.cancelled, t.cancelMsg = true, p.cancelMsg
	}
}

// unlink removes t from its parent's children.
func unlink(t *Task) {
	p := t.parent
	if p == nil {
		return
	}
	last := len(p.children) - 1
	if t.childIdx <= last && p.children[t.childIdx] == t {
		moved := p.children[last]
		p.children[t.childIdx] = moved
		moved.childIdx = t.childIdx
		p.children[last] = nil
		p.children = p.children[:last]
	}
	t.parent = nil
}

// own records that t dispatched j.
func (t *Task) own(j *job) {
	j.owner = t
	j.ownerIdx = len(t.jobs)
	t.jobs = append(t.jobs, j)
}

// disown removes j from its owner's jobs (it settled, or passed on).
func disown(j *job) {
	t := j.owner
	if t == nil {
		return
	}
	last := len(t.jobs) - 1
	if j.ownerIdx <= last && t.jobs[j.ownerIdx] == j {
		moved := t.jobs[last]
		t.jobs[j.ownerIdx] = moved
		moved.ownerIdx = j.ownerIdx
		t.jobs[last] = nil
		t.jobs = t.jobs[:last]
	}
	j.owner = nil
}

// cancelMessage is the error a cancelled task raises and await reports.
func cancelMessage(reason string) string {
	if reason == "" {
		return "cancelled"
	}
	return "cancelled: " + reason
}

// cancelTask cancels t and, below it, every child it did not detach or
// shield and every job it owns: worker jobs stop, programs' process groups
// get their signal, language server requests send $/cancelRequest. A task
// parked in a wait raises the cancellation there at its next resume (this
// frame); one that is running raises it at its next wait. Cancelling an
// ended or already cancelled task does nothing.
func (b *Binding) cancelTask(t *Task, msg string) {
	if t.state != taskRunning || t.cancelled {
		return
	}
	t.cancelled, t.cancelMsg = true, msg
	// Children first: a child's end must not find its parent already
	// woken into a half-cancelled tree.
	for i := len(t.children) - 1; i >= 0; i-- {
		if i < len(t.children) && !t.children[i].shielded {
			b.cancelTask(t.children[i], msg)
		}
	}
	for len(t.jobs) > 0 {
		j := t.jobs[len(t.jobs)-1]
		disown(j)
		b.end(j)
	}
	if t.bodyDone {
		b.settleTask(t)
		return
	}
	if w, ok := t.waitOn.(*Task); ok && w.shielded && w.parent == t {
		// Cancellation waits for a shielded section.
		return
	}
	if b.unpark(t) {
		t.raise = true
		b.run = append(b.run, resumption{t: t})
	}
}

// unpark takes t, parked in a wait, off whatever it waits on, and reports
// whether it was parked there (a task already queued to resume, or running,
// is not).
func (b *Binding) unpark(t *Task) bool {
	if !t.parked {
		return false
	}
	found := false
	switch w := t.waitOn.(type) {
	case *Task:
		found = dropWaiter(&w.waiters, t)
	case *job:
		found = dropWaiter(&w.waiters, t)
	case waitable:
		found = w.drop(t)
	}
	if j := t.consuming; j != nil && j.consumer == t {
		j.consumer = nil
		for i, it := range b.lsp.iters {
			if it == j {
				b.lsp.iters = append(b.lsp.iters[:i], b.lsp.iters[i+1:]...)
				break
			}
		}
		found = true
	}
	if tm := t.timer; tm != nil {
		b.timers.remove(tm)
		t.timer = nil
		if tm.what == timerSleep {
			found = true
		}
	}
	return found
}

// waitable is a primitive a task can park on (future, event, queue,
// semaphore): drop takes t off its waiters.
type waitable interface {
	drop(t *Task) bool
	// describe says what a task parked on it waits for, for the task list.
	describe() string
}

func dropWaiter(ws *[]*Task, t *Task) bool {
	for i, w := range *ws {
		if w == t {
			*ws = append((*ws)[:i], (*ws)[i+1:]...)
			return true
		}
	}
	return false
}

// endBody records that t's function has returned or raised: its thread is
// released and the streams it was iterating stop being held for it.
// Streams it left unfinished are cancelled: nothing would take their
// batches.
func (b *Binding) endBody(t *Task, reuse bool) {
	t.bodyDone = true
	delete(b.threads, t.th)
	if reuse {
		b.pool.put(t.th)
	}
	t.th = nil // a failed thread keeps its frames; it is never reused
	for _, j := range t.streams {
		if j.iterTask == t {
			j.iterTask = nil
			b.dropStream(j)
		}
	}
	t.streams = nil
}

// settleTask ends t once its function is done and its children have
// ended: it takes its final state, cancels the jobs it still owns (those
// whose handles it returns pass to its parent), wakes the tasks awaiting
// it, and tells its parent.
func (b *Binding) settleTask(t *Task) {
	if t.state != taskRunning || !t.bodyDone {
		return
	}
	if t.err == nil && !t.cancelled && len(t.uncollected) > 0 {
		// A child failed and nobody collected it: once the function has
		// returned nothing can, so the task fails with that error at
		// once, and its other children are cancelled (fail fast).
		c := t.uncollected[0]
		c.collected = true
		t.uncollected = t.uncollected[1:]
		t.err = childError(t, c)
		for i := len(t.children) - 1; i >= 0; i-- {
			if i < len(t.children) {
				b.cancelTask(t.children[i], cancelMessage("a sibling failed"))
			}
		}
	}
	if t.state != taskRunning || len(t.children) > 0 {
		return
	}
	// The failures of other children that nobody collected (the task
	// already failed, or was cancelled) have nowhere else to go.
	for _, c := range t.uncollected {
		if !c.collected {
			b.report(c)
		}
	}
	var vals []lua.LValue
	switch {
	case t.cancelled && t.err == nil:
		t.state = taskCancelled
		t.results = nil
		vals = []lua.LValue{lua.LNil, lua.LString(t.cancelMsg)}
	case t.err != nil:
		t.state = taskFailed
		t.results = nil
		vals = []lua.LValue{lua.LNil, t.err.value}
	default:
		t.state = taskDone
		vals = t.results
	}
	t.uncollected = nil
	b.live--
	b.alive.remove(t)
	b.releaseJobs(t)
	if t.timer != nil {
		b.timers.remove(t.timer)
		t.timer = nil
	}
	if t.state == taskFailed {
		if len(t.waiters) > 0 {
			t.collected = true
		}
		if t.parent == nil && !t.collected {
			b.report(t)
		}
	}
	for _, w := range t.waiters {
		b.run = append(b.run, resumption{t: w, vals: vals})
	}
	t.waiters = nil
	t.ended()
	if p := t.parent; p != nil {
		unlink(t)
		t.parent = p // kept for the traceback and the task list
		if t.state == taskFailed && !t.collected {
			p.uncollected = append(p.uncollected, t)
		}
		b.settleTask(p)
	}
}

// releaseJobs cancels the jobs t still owns, except those whose handles t
// returns: they pass to its parent (or to nobody, for a task without one).
func (b *Binding) releaseJobs(t *Task) {
	for len(t.jobs) > 0 {
		j := t.jobs[len(t.jobs)-1]
		disown(j)
		if t.keepJobs && t.state == taskDone {
			continue
		}
		if returned(t.results, j) {
			if p := t.parent; p != nil && p.state == taskRunning {
				p.own(j)
			}
			continue
		}
		b.end(j)
	}
}

// end cancels a job of a task that is cancelled or has ended: a stream
// then drops what it has not delivered, since no task will take it.
func (b *Binding) end(j *job) {
	if j.stream {
		b.dropStream(j)
		return
	}
	b.cancel(j.id)
}

// dropStream ends a stream nobody will take batches from any more: it is
// cancelled and closes as soon as its producer stops, its undelivered
// items dropped (runtime.DropStream).
func (b *Binding) dropStream(j *job) {
	if j.settled {
		return
	}
	j.discard = true
	j.queue = nil
	b.hold(j, false)
	b.rt.DropStream(j.id)
}

func returned(vals []lua.LValue, j *job) bool {
	for _, v := range vals {
		if ud, ok := v.(*lua.LUserData); ok && ud.Value == j {
			return true
		}
	}
	return false
}

// childError is the error a parent fails with when child c failed and
// nobody collected it: the same value, with c's traceback under the
// parent's name.
func childError(p, c *Task) *TaskError {
	ce := c.err
	trace := ce.Traceback + "\n\t(in child task " + c.label() + " of task " + p.label() + ")"
	return &TaskError{Message: ce.Message, Traceback: trace, cause: ce, value: ce.value}
}

// label names a task for tracebacks and the task list: its name, else
// "#id".
func (t *Task) label() string {
	if t.name != "" {
		return t.name + " (#" + itoa(t.id) + ")"
	}
	return "#" + itoa(t.id)
}

func itoa(n uint64) string {
	var buf [20]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(buf[i:])
		}
	}
}

// raiseOnce is the context a cancelled task resumes under: the VM checks
// its Done between instructions, finds it closed at the first one, and
// raises Err's text there; from then on it is the interrupt context it
// wraps. So the cancellation is raised where the task waited, as any
// error at that line would be.
type raiseOnce struct {
	context.Context
	msg string // cleared once raised
}

var closedDone = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

func (c *raiseOnce) Done() <-chan struct{} {
	if c.msg != "" {
		return closedDone
	}
	return c.Context.Done()
}

func (c *raiseOnce) Err() error {
	if m := c.msg; m != "" {
		c.msg = ""
		// The VM passes the text to RaiseError as a format.
		return raisedText(strings.ReplaceAll(m, "%", "%%"))
	}
	return c.Context.Err()
}

type raisedText string

func (e raisedText) Error() string { return string(e) }

// taskList is the binding's live tasks, linked through the tasks
// themselves: adding and removing one costs no allocation and no hashing.
type taskList struct {
	head *Task
	n    int
}

func (l *taskList) add(t *Task) {
	t.prevAlive, t.nextAlive = nil, l.head
	if l.head != nil {
		l.head.prevAlive = t
	}
	l.head = t
	l.n++
}

func (l *taskList) remove(t *Task) {
	if t.prevAlive == nil && l.head != t {
		return // not in the list
	}
	if t.prevAlive != nil {
		t.prevAlive.nextAlive = t.nextAlive
	} else {
		l.head = t.nextAlive
	}
	if t.nextAlive != nil {
		t.nextAlive.prevAlive = t.prevAlive
	}
	t.prevAlive, t.nextAlive = nil, nil
	l.n--
}

// now is the frame's clock: when the current or last frame started, or
// the time now before the first frame.
func (b *Binding) now() time.Time {
	if b.clock.IsZero() {
		return time.Now()
	}
	return b.clock
}
