package luabind

import (
	"errors"
	"fmt"
	"slices"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// ErrUnknownJob is returned (wrapped) by Adopt for a job that is not
// running in the runtime or is already handled by the binding.
var ErrUnknownJob = errors.New("luabind: job cannot be adopted")

// job is the Lua side of one dispatched job: who waits on it, and once it
// settles, what await returns. It outlives the runtime's pending entry, so a
// handle awaited twice returns the same result again.
type job struct {
	id      runtime.JobID
	kind    runtime.Kind
	stream  bool
	settled bool         // for a stream: its closing batch arrived
	results []lua.LValue // await's return values, once settled
	// resultsBuf holds results: a settle allocates no slice for them.
	resultsBuf [3]lua.LValue
	waiters    []*Task // tasks parked in h:await()

	// Streams. Batches wait in queue, as the runtime delivered them, until
	// the consumer's iterator takes them; they are converted to Lua only
	// then.
	queue    []runtime.StreamBatch
	consumer *Task // the task parked in the iterator, if any
	items    uint64
	progress uint64
	// held: batches are waiting here for iterTask, the task iterating the
	// stream, or a stream no task iterates has queued its bound (see
	// forgotten), so the runtime holds the rest, where they count against
	// the stream's credit and the producer waits.
	held     bool
	iterTask *Task
	// spawn is, for a write waiting for room in a program's stdin, that
	// program's job.
	spawn *job
	// owner is the task that dispatched the job (nil for the main
	// state): the job is cancelled with it. ownerIdx is its index in
	// owner.jobs.
	owner    *Task
	ownerIdx int
	// state is how the job ended, once settled.
	state runtime.State
	// timer settles a w.sleep (timers.go).
	timer *timer
	// iterated: h:batches() was called. discard: a task awaited the stream
	// without anyone iterating it, so its items are dropped as they come:
	// holding them would stall the producer and the await with it.
	iterated, discard bool
	// compactTokens: a semantic tokens request that awaits its tokens as
	// one userdata (client:semantic_tokens with compact = true).
	compactTokens bool
}

func (b *Binding) newHandle(L *lua.LState, id runtime.JobID, kind runtime.Kind, stream bool) *lua.LUserData {
	j := &job{id: id, kind: kind, stream: stream}
	b.jobs[id] = j
	if t := b.parentOf(L); t != nil {
		t.own(j)
	}
	return &lua.LUserData{Value: j, Metatable: b.handleMT}
}

func checkJob(L *lua.LState, fname string) *job {
	return checkSelf[*job](L, fname, "job handle (call it as h:method())")
}

func (b *Binding) handleAwait(L *lua.LState) int {
	j := checkJob(L, "h:await")
	ms, timed := awaitTimeout(L, "h:await", 2)
	if j.settled {
		return pushAll(L, j.results)
	}
	t := b.waitingTask(L, "h:await")
	if j.stream && !j.discard {
		if !j.iterated || j.iterTask == nil {
			// No task iterates the stream: holding its batches would
			// make the await wait for ever, so what is left is dropped
			// as it comes.
			b.dropRest(j)
		} else if e, ok := b.heldCycle(j.iterTask, t); ok {
			// The task the stream is held for is this one (it left its
			// loop to await the end), or waits on it through tasks it
			// awaits: it cannot take another batch before this await
			// returns, so the same applies.
			b.breakCycle(e, j)
		}
	}
	j.waiters = append(j.waiters, t)
	t.waitOn = j
	if timed {
		b.deadline(t, ms)
	}
	return b.park(L, t)
}

// dropRest stops holding a stream for its iterating task: what is left is
// dropped as it comes, and the stream runs to its end.
func (b *Binding) dropRest(j *job) {
	j.discard = true
	j.queue = nil
	b.hold(j, false)
}

// heldEdges are the holds on a chain of waits that heldCycle followed:
// streams held for a task on it, and tasks on it whose write waits for a
// program whose output is held for a task on it.
type heldEdges struct {
	streams []*job
	writers []*Task
}

// heldCycle follows the waits from task from (a task awaits a task; or a
// stream that is held for the task iterating it, which has to take a batch
// before the stream can end; or a write to a program that cannot read on
// while its output is held for the task iterating it) and reports whether
// they lead to target, with the holds along the way. A chain that reaches
// target is a cycle once target waits on its start: no task in it can move
// again unless one of those holds is let go.
func (b *Binding) heldCycle(from, target *Task) (e heldEdges, ok bool) {
	cur := from
	for range b.live + 1 {
		if cur == target {
			return e, true
		}
		if cur == nil || cur.state != taskRunning {
			return heldEdges{}, false
		}
		switch w := cur.waitOn.(type) {
		case *Task:
			cur = w
		case *job:
			s := w
			if w.spawn != nil {
				s = w.spawn
			}
			if w.settled || !s.stream || s.settled || s.discard || s.iterTask == nil {
				return heldEdges{}, false
			}
			if w.spawn != nil {
				e.writers = append(e.writers, cur)
			} else {
				e.streams = append(e.streams, s)
			}
			cur = s.iterTask
		default:
			return heldEdges{}, false
		}
	}
	return heldEdges{}, false
}

// breakCycle lets the tasks of a cycle heldCycle found move again. A write
// on it returns at once, its data staying queued for the program; without
// one, the streams held on it (and stream, the one being awaited, if any)
// drop what is left, as a stream awaited by nobody iterating it does.
func (b *Binding) breakCycle(e heldEdges, stream *job) {
	if len(e.writers) > 0 {
		for _, t := range e.writers {
			b.releaseWrite(t)
		}
		return
	}
	if stream != nil {
		b.dropRest(stream)
	}
	for _, j := range e.streams {
		b.dropRest(j)
	}
}

// releaseWrite resumes t, parked in a write, as if the write had not had
// to wait.
func (b *Binding) releaseWrite(t *Task) {
	wj, ok := t.waitOn.(*job)
	if !ok {
		return
	}
	wj.waiters = slices.DeleteFunc(wj.waiters, func(w *Task) bool { return w == t })
	t.waitOn = nil
	b.run = append(b.run, resumption{t: t, vals: []lua.LValue{lua.LTrue}})
}

func (b *Binding) handleBatches(L *lua.LState) int {
	j := checkJob(L, "h:batches")
	if !j.stream {
		if k := luaOf(j.kind); k.batches != nil {
			return k.batches(b, L, j)
		}
		raise(L, "h:batches: job %d (%s) is not a stream; use h:await()", j.id, j.kind)
	}
	j.iterated = true
	L.Push(b.iterFn)
	L.Push(L.Get(1))
	L.Push(lua.LNil)
	return 3
}

// batchIter is the iterator h:batches() returns: the next batch as a list,
// waiting for one if none is queued; nil once the stream has closed.
func (b *Binding) batchIter(L *lua.LState) int {
	j := checkJob(L, "h:batches iterator")
	if t := b.threads[L]; t != nil && j.iterTask != t {
		j.iterTask = t
		t.streams = append(t.streams, j)
	}
	if len(j.queue) > 0 {
		L.Push(b.popBatch(L, j))
		return 1
	}
	if j.settled {
		L.Push(lua.LNil)
		return 1
	}
	t := b.waitingTask(L, "h:batches")
	if j.consumer != nil && j.consumer != t {
		raise(L, "h:batches: job %d is already being iterated by another task", j.id)
	}
	j.consumer = t
	t.consuming = j
	return b.park(L, t)
}

// forLeave is what a rewritten for-in loop calls when it is left (its end,
// a break, a return from inside it; see chunk.go) with its iterator and
// state, and, for a return, the values returned, which it passes on. A
// stream whose batches the loop was taking and that has not ended is
// cancelled: the task has stopped taking its batches, and its producer (a
// program, a walk) would otherwise wait for a consumer that is gone.
func (b *Binding) forLeave(L *lua.LState) int {
	if L.Get(1) == b.iterFn {
		if ud, ok := L.Get(2).(*lua.LUserData); ok {
			if j, ok := ud.Value.(*job); ok && j.stream && !j.settled {
				if t := b.threads[L]; t == nil || j.iterTask == t {
					b.dropStream(j)
				}
			}
		}
	}
	return max(L.GetTop()-2, 0)
}

func (b *Binding) handleCancel(L *lua.LState) int {
	j := checkJob(L, "h:cancel")
	b.cancel(j.id)
	return 0
}

// cancel asks the runtime to stop a job. A cancelled stream's iterator
// still gets the items that were buffered when it stopped, in order, as
// the runtime delivers them (only a superseded stream drops them).
func (b *Binding) cancel(id runtime.JobID) {
	b.rt.Cancel(id)
	b.endSleep(id)
	if j := b.jobs[id]; j != nil && j.stream && !j.settled {
		b.hold(j, false)
	}
}

func (b *Binding) handleID(L *lua.LState) int {
	j := checkJob(L, "h:id")
	L.Push(lua.LNumber(j.id))
	return 1
}

// handleProgress returns a stream's progress so far (grep: files searched),
// live while it runs and final once it has closed; for a request/reply job
// whose kind reports progress, what its kind says (mcp_request: the latest
// progress notification while it is pending); nil for other ones.
func (b *Binding) handleProgress(L *lua.LState) int {
	j := checkJob(L, "h:progress")
	if !j.stream {
		if k := luaOf(j.kind); k.progress != nil {
			return k.progress(b, L, j)
		}
		L.Push(lua.LNil)
		return 1
	}
	p := j.progress
	if !j.settled {
		if live, ok := b.rt.StreamProgress(j.id); ok {
			p = live
		}
	}
	L.Push(lua.LNumber(p))
	return 1
}

func (b *Binding) handleDone(L *lua.LState) int {
	j := checkJob(L, "h:done")
	L.Push(lua.LBool(j.settled))
	return 1
}

func (b *Binding) handleString(L *lua.LState) int {
	j := checkJob(L, "tostring")
	state := "running"
	if j.settled {
		state = "settled"
	}
	L.Push(lua.LString("pmacs.handle(" + j.kind.String() + "#" + lua.LNumber(j.id).String() + ", " + state + ")"))
	return 1
}

func pushAll(L *lua.LState, vals []lua.LValue) int {
	for _, v := range vals {
		L.Push(v)
	}
	return len(vals)
}

// settle takes a request/reply job's outcome from the runtime, converts it
// and queues its waiters.
func (b *Binding) settle(j *job) {
	k := luaOf(j.kind)
	if k.settle != nil && k.settle(b, j) {
		return
	}
	var taken any
	if k.take != nil {
		taken = k.take(b, j.id)
	}
	out, ok := b.rt.TakeResult(j.id)
	if !ok {
		return
	}
	var value lua.LValue = lua.LTrue
	if out.State == runtime.Complete {
		value = b.toLua(j.kind, out, taken)
	}
	b.settled(j, out, value)
}

// settled records a job's final outcome and wakes everything waiting on it.
func (b *Binding) settled(j *job, out runtime.Outcome, value lua.LValue) {
	delete(b.jobs, j.id)
	disown(j)
	if tm := j.timer; tm != nil {
		b.timers.remove(tm)
		if tm.stop != nil {
			tm.stop()
		}
		j.timer = nil
	}
	j.settled = true
	j.state = out.State
	j.results = outcomeValues(j.resultsBuf[:0], j.kind, out, value)
	for _, t := range j.waiters {
		b.run = append(b.run, resumption{t: t, vals: j.results})
	}
	j.waiters = nil
}

// outcomeValues is what await returns: value, nil on success; nil,
// "cancelled"; nil, message[, code] on failure. A filesystem failure reads
// like luv's: "ENOENT: stat "x": no such file or directory", "ENOENT".
func outcomeValues(dst []lua.LValue, kind runtime.Kind, out runtime.Outcome, value lua.LValue) []lua.LValue {
	switch out.State {
	case runtime.Complete:
		return append(dst, value, lua.LNil)
	case runtime.Cancelled:
		return append(dst, lua.LNil, lua.LString("cancelled"))
	}
	msg, code := "failed", ""
	var je *runtime.JobError
	if errors.As(out.Err, &je) {
		msg, code = je.Message, je.Code
	} else if out.Err != nil {
		msg = out.Err.Error()
	}
	if code == "" {
		return append(dst, lua.LNil, lua.LString(msg))
	}
	if luaOf(kind).codeFirst {
		msg = code + ": " + msg
	}
	return append(dst, lua.LNil, lua.LString(msg), lua.LString(code))
}

// deliver hands a stream's batch to its job: queued for the iterator, and
// on the closing batch, the outcome for await.
func (b *Binding) deliver(j *job, sb *runtime.StreamBatch) {
	j.progress = sb.Progress
	if sb.Len() > 0 && !j.discard {
		j.queue = append(j.queue, *sb)
	}
	if sb.Closed {
		if sb.Superseded {
			// A superseded stream's results must not land late, not even
			// the ones already taken from the runtime.
			j.queue = nil
		}
		var value lua.LValue = lua.LTrue
		switch k := luaOf(j.kind); {
		case k.closing != nil:
			value = k.closing(b, sb)
		case k.value != nil && sb.Outcome.State == runtime.Complete:
			value = k.value(b, sb.Outcome, nil)
		}
		b.settled(j, sb.Outcome, value)
	}
	if c := j.consumer; c != nil && (len(j.queue) > 0 || j.settled) {
		j.consumer = nil
		var next lua.LValue = lua.LNil
		if len(j.queue) > 0 {
			next = b.popBatch(b.ls, j)
		}
		b.run = append(b.run, resumption{t: c, vals: []lua.LValue{next}})
	}
	if !j.settled && len(j.queue) > 0 && (j.iterTask != nil || b.forgotten(j)) {
		b.hold(j, true)
	}
}

// forgottenStreamItems is how much a stream that no task iterates may queue
// in the binding (in StreamBatch.Weight units: items, or 4 KiB of a
// program's line) before the runtime holds the rest: the runtime's default
// stream credit, so a forgotten stream costs at most about twice what a
// slow consumer's does.
const forgottenStreamItems = runtime.DefaultStreamCredit

// forgotten reports whether j is a stream no task iterates, nor drops,
// whose queue has reached forgottenStreamItems. Its producer then waits
// like one whose consumer is slow (parked: it holds no worker and no gate),
// until a task iterates it, awaits it (which drops the rest) or cancels it,
// or the binding closes. A program's output is not held while a task
// waits to write to its stdin: the program reads its stdin only while it
// can write its output, and the writer may be the task that reads the
// output once it has written.
func (b *Binding) forgotten(j *job) bool {
	if j.iterTask != nil || j.discard {
		return false
	}
	n := 0
	for i := range j.queue {
		n += j.queue[i].Weight()
	}
	if n < forgottenStreamItems {
		return false
	}
	for _, w := range b.jobs {
		if w.spawn == j && len(w.waiters) > 0 {
			return false
		}
	}
	return true
}

// hold asks the runtime to keep (or resume handing out) a stream's batches,
// so the binding never queues more than the batch its consumer has not
// taken yet.
func (b *Binding) hold(j *job, on bool) {
	if j.held != on {
		j.held = on
		b.rt.HoldStream(j.id, on)
	}
}

// popBatch converts the oldest queued batch into a Lua list.
func (b *Binding) popBatch(L *lua.LState, j *job) *lua.LTable {
	sb := j.queue[0]
	j.queue[0] = runtime.StreamBatch{}
	j.queue = j.queue[1:]
	if len(j.queue) == 0 {
		j.queue = nil
		b.hold(j, false)
	}
	j.items += uint64(sb.Len())
	return batchToLua(L, &sb)
}

// Adopt returns a Lua handle for a job the editor dispatched itself (an LSP
// request registered with runtime.RegisterExternal, say), so a script can
// await it or iterate its batches like one of its own. The binding then
// takes the job's result and batches; the job must be running and not
// adopted already.
func (b *Binding) Adopt(id runtime.JobID) (lua.LValue, error) {
	if b.closed {
		return nil, ErrClosed
	}
	kind, state, ok := b.rt.Lookup(id)
	switch {
	case !ok:
		return nil, fmt.Errorf("%w: job %d", ErrUnknownJob, id)
	case state != runtime.Running:
		return nil, fmt.Errorf("%w: job %d is already %s", ErrUnknownJob, id, state)
	case b.jobs[id] != nil:
		return nil, fmt.Errorf("%w: job %d is already adopted", ErrUnknownJob, id)
	}
	// Only a stream reports progress: the runtime knows which jobs are
	// streams, whatever their kind.
	_, stream := b.rt.StreamProgress(id)
	return b.newHandle(b.ls, id, kind, stream), nil
}
