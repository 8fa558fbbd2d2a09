package luabind

import (
	"errors"
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// trampolineSource names the chunk every task starts in; tracebacks leave
// its frame out.
const trampolineSource = "pmacs.async"

type taskState uint8

const (
	taskRunning taskState = iota // running, parked, or waiting for its children
	taskDone
	taskFailed
	taskCancelled
)

var taskStateNames = [...]string{taskRunning: "running", taskDone: "done", taskFailed: "failed", taskCancelled: "cancelled"}

// Task is a coroutine driven by the frame loop: what pmacs.async.run
// returns to Lua, and Spawn to Go.
type Task struct {
	b       *Binding
	th      *lua.LState
	ud      *lua.LUserData
	state   taskState
	results []lua.LValue
	err     *TaskError
	trace   string  // traceback captured where the error was raised
	waiters []*Task // tasks parked in this task's await
	// parked is set by a wait just before it yields, so a yield that no
	// wait asked for (a bare coroutine.yield) is told apart: that task is
	// resumed next frame.
	parked bool
	// want is how many results the call site the task is parked in takes
	// (see callResults): the values it is resumed with are adjusted to it.
	want int
	// collected is set once another task has received this task's error
	// from task:await(); the error is then handled.
	collected bool
	// streams this task has iterated; when it ends, the runtime stops
	// holding them for it.
	streams []*job
	// waitOn is the task (*Task) or job (*job) this task is parked in an
	// await of, nil otherwise: the edges heldCycle follows.
	waitOn any
	// onDone, if set, is called once the task has finished or failed (Go
	// code waiting on a task, such as an LSP answer).
	onDone func()

	taskTree // parent, children, owned jobs, cancellation (tasktree.go)
}

// TaskError is why a task failed: the Lua error message and the traceback
// of where it was raised.
type TaskError struct {
	Message   string
	Traceback string
	cause     error
	// value is what the task raised, as Lua holds it: an error table or
	// object reaches the task that awaits this one unchanged.
	value lua.LValue
}

func (e *TaskError) Error() string { return e.Message }

// Unwrap returns what failed the task: the Lua error (a *lua.ApiError), or
// an error wrapping ErrLuaVM.
func (e *TaskError) Unwrap() error { return e.cause }

// Done reports whether the task has finished, normally or not.
func (t *Task) Done() bool { return t.state != taskRunning }

// Err returns the task's error once it has failed; nil while it runs and
// after it finished normally.
func (t *Task) Err() error {
	if t.err == nil {
		return nil
	}
	return t.err
}

// Results returns what the task's function returned, once it is done.
func (t *Task) Results() []lua.LValue { return t.results }

// Value returns the task's Lua handle (what pmacs.async.run returns).
func (t *Task) Value() lua.LValue { return t.ud }

// resumption is a parked task and the values its wait returns.
type resumption struct {
	t    *Task
	vals []lua.LValue
}

// Spawn runs fn as a new task now, until it first waits or ends, and
// returns it. It is what pmacs.async.run does; a task spawned from Go has
// no parent.
func (b *Binding) Spawn(fn *lua.LFunction, args ...lua.LValue) *Task {
	return b.spawn(b.ls, fn, args, "")
}

// SpawnMain runs fn as Spawn does, as the main chunk of an init file: what
// it leaves running when it returns (jobs, streams nobody iterates) keeps
// running, as the jobs of the embedder's key bindings do, instead of being
// cancelled with it. Its children are still its own, and a cancel or a
// failure still ends its jobs.
func (b *Binding) SpawnMain(fn *lua.LFunction, args ...lua.LValue) *Task {
	t := &Task{b: b, want: resultsUnknown}
	t.keepJobs = true
	return b.spawnTask(b.ls, t, fn, args)
}

// SpawnNamed is Spawn with a name the task list and tracebacks show.
func (b *Binding) SpawnNamed(name string, fn *lua.LFunction, args ...lua.LValue) *Task {
	return b.spawn(b.ls, fn, args, name)
}

// spawn starts a task from the thread from: the main state, or a task that
// calls pmacs.async.run, which then continues once the new task parks. A
// task started by a task is its child.
func (b *Binding) spawn(from *lua.LState, fn *lua.LFunction, args []lua.LValue, name string) *Task {
	t := &Task{b: b, want: resultsUnknown}
	t.name = name
	return b.spawnTask(from, t, fn, args)
}

// spawnTask starts t, made by the caller (which may have set its name or
// shield), as spawn does.
func (b *Binding) spawnTask(from *lua.LState, t *Task, fn *lua.LFunction, args []lua.LValue) *Task {
	t.ud = &lua.LUserData{Value: t, Metatable: b.taskMT}
	b.taskSeq++
	t.id, t.started = b.taskSeq, b.now()
	if b.closed {
		t.state = taskFailed
		t.bodyDone = true
		t.err = &TaskError{Message: ErrClosed.Error(), cause: ErrClosed, value: lua.LString(ErrClosed.Error())}
		return t
	}
	t.th = b.thread()
	if p := b.parentOf(from); p != nil {
		b.adopt(p, t)
	} else if b.recording {
		b.command = append(b.command, t)
	}
	b.threads[t.th] = t
	b.alive.add(t)
	b.live++
	b.pool.saw(b.live)
	vals := make([]lua.LValue, 0, len(args)+2)
	vals = append(vals, fn)
	vals = append(vals, args...)
	b.resume(from, t, b.trampoline, vals)
	return t
}

// thread returns a coroutine thread, reused when one is idle.
func (b *Binding) thread() *lua.LState {
	if th := b.pool.get(); th != nil {
		return th
	}
	// NewThread ties a thread to a child of the creating state's context
	// and hands back a cancel func nobody would call: under Protect that
	// child would stay registered with the interrupt context. Threads get
	// their context per resume instead, so create them without one.
	if ctx := b.ls.RemoveContext(); ctx != nil {
		defer b.ls.SetContext(ctx)
	}
	th, _ := b.ls.NewThread()
	return th
}

// resume runs t until it waits, yields or ends. fn is the function to start
// a fresh thread with, nil for a parked one.
func (b *Binding) resume(from *lua.LState, t *Task, fn *lua.LFunction, vals []lua.LValue) {
	if t.state != taskRunning {
		return
	}
	t.parked = false
	t.waitOn = nil
	t.consuming = nil
	if tm := t.timer; tm != nil {
		b.timers.remove(tm)
		t.timer = nil
	}
	want := t.want
	if fn != nil {
		want = resultsUnknown // a fresh thread: vals are the function's arguments
	}
	vals, built := adjustResults(vals, want, b.resumeBuf)
	if built && cap(vals) <= 64 {
		// Resume pushes the values before the task runs, so the buffer is
		// free again for the next resume, even a nested one.
		b.resumeBuf = vals[:0]
	}
	t.want = resultsUnknown
	// Set per resume, not once per thread: Interrupt replaces the context,
	// and a parked task must not wake into one that was already cancelled.
	// The VM then checks it between instructions, about a tenth of the
	// cost of a tight Lua loop, which buys an editor that can always stop
	// a runaway script.
	ctx := b.runContext()
	if t.raise {
		t.raise = false
		if fn == nil {
			ctx = &raiseOnce{Context: ctx, msg: t.cancelMsg}
		}
	}
	t.th.SetContext(ctx)
	st, err, rets, vmErr := resumeGuarded(from, t.th, fn, vals)
	if b.closed {
		return
	}
	if vmErr != nil {
		b.failVM(t, vmErr)
		return
	}
	switch st {
	case lua.ResumeYield:
		if !t.parked {
			b.next = append(b.next, resumption{t: t})
		}
	case lua.ResumeOK:
		b.finish(t, rets)
	default:
		b.fail(t, interrupted(ctx, err))
	}
}

// ErrLuaVM is wrapped by the error of a task whose coroutine the Lua VM
// itself could not run on: a Go panic inside gopher-lua that escaped its
// own recovery.
var ErrLuaVM = errors.New("luabind: the Lua VM failed")

// resumeGuarded is from.Resume, except that a Go panic escaping it is
// returned as vmErr instead of unwinding through the frame driver into the
// host. gopher-lua recovers errors raised inside a coroutine only while the
// coroutine still has a resumer; one whose frames it corrupted (a call
// stack overflow caught by pcall does that with growable stacks: the next
// instruction indexes past its code) panics out of Resume. from is left as
// Resume found it.
func resumeGuarded(from, th *lua.LState, fn *lua.LFunction, vals []lua.LValue) (st lua.ResumeState, err error, rets []lua.LValue, vmErr error) {
	top := from.GetTop()
	defer func() {
		if r := recover(); r != nil {
			from.G.CurrentThread = from
			from.SetTop(top)
			th.Parent = nil
			st, err, rets, vmErr = lua.ResumeError, nil, nil, fmt.Errorf("%w: %v", ErrLuaVM, r)
		}
	}()
	st, err, rets = from.Resume(th, fn, vals...)
	return st, err, rets, nil
}

// failVM fails t after the VM panicked on its thread. The thread's frames
// cannot be trusted, so there is no traceback of them and the thread is
// dropped.
func (b *Binding) failVM(t *Task, err error) {
	t.th.Dead = true
	t.trace = "stack traceback: unavailable (" + err.Error() + ")"
	b.fail(t, err)
}

func (b *Binding) finish(t *Task, rets []lua.LValue) {
	b.endBody(t, true)
	t.results = rets
	b.settleTask(t)
}

// ended calls the task's onDone once.
func (t *Task) ended() {
	if f := t.onDone; f != nil {
		t.onDone = nil
		f()
	}
}

// fail records why t's function raised. A cancelled task ends cancelled,
// whatever it raised on the way out; any other error fails it, and its
// children are cancelled. The outcome is final once they have ended.
func (b *Binding) fail(t *Task, err error) {
	var value lua.LValue = lua.LString(err.Error())
	var ae *lua.ApiError
	if errors.As(err, &ae) && ae.Object != nil {
		value = ae.Object
	}
	msg := value.String()
	trace := t.trace
	if trace == "" && t.th != nil {
		// The error did not pass through the panic hook (a Go panic in a
		// binding function): what is left of the stack still helps.
		trace = Traceback(t.th, 0)
	}
	b.endBody(t, false)
	if t.cancelled {
		b.settleTask(t)
		return
	}
	t.err = &TaskError{Message: msg, Traceback: trace, cause: err, value: value}
	for i := len(t.children) - 1; i >= 0; i-- {
		if i < len(t.children) {
			b.cancelTask(t.children[i], cancelMessage("the parent task failed"))
		}
	}
	b.settleTask(t)
}

// report prints a failure nobody will collect (a task without a parent
// whose error no task awaited) and keeps it for TakeFailed.
func (b *Binding) report(t *Task) {
	fmt.Fprintf(b.stderr, "pmacs: task failed: %s\n%s\n", t.err.Message, t.err.Traceback)
	b.failed = append(b.failed, t)
}

// armPanic is called by the trampoline at the start of every task: Resume
// resets a fresh thread's panic handler, so it is set from inside.
func (b *Binding) armPanic(L *lua.LState) int {
	L.Panic = b.panicHook
	return 0
}

// panicHook runs where an error escapes every pcall of a task, with the
// raising frames still on the stack: the only moment a full traceback can be
// taken. pcall swaps in its own handler, so caught errors never get here.
func (b *Binding) panicHook(L *lua.LState) {
	obj := L.Get(-1)
	if t := b.threads[L]; t != nil {
		t.trace = Traceback(L, 0)
	}
	panic(&lua.ApiError{Type: lua.ApiErrorRun, Object: obj})
}

// Traceback formats L's call stack from level up, the way Lua's
// debug.traceback does: "stack traceback:" and a line per frame. An
// embedder's error handler (a message handler for a protected call) passes
// level 1 to leave itself out.
func Traceback(L *lua.LState, level int) string {
	var sb strings.Builder
	sb.WriteString("stack traceback:")
	prev := ""
	for i := level; i < level+64; i++ {
		dbg, ok := L.GetStack(i)
		if !ok {
			break
		}
		if _, err := L.GetInfo("Sln", dbg, lua.LNil); err != nil {
			break
		}
		if dbg.Source == trampolineSource {
			continue
		}
		var line string
		if dbg.What == "G" {
			line = "[G]:"
		} else {
			line = fmt.Sprintf("%s:%d:", dbg.Source, dbg.CurrentLine)
		}
		switch {
		case dbg.What != "G" && dbg.LineDefined == 0:
			line += " in main chunk"
		case calledBy(L, i+1, trampolineSource):
			// The name gopher-lua finds is the trampoline's parameter.
			line += fmt.Sprintf(" in task function <%s:%d>", dbg.Source, dbg.LineDefined)
		case dbg.Name != "":
			line += " in function '" + dbg.Name + "'"
		case dbg.What == "G":
			line += " in a Go function"
		default:
			line += fmt.Sprintf(" in function <%s:%d>", dbg.Source, dbg.LineDefined)
		}
		if line == prev {
			continue // gopher-lua repeats the base frame past a tail call
		}
		prev = line
		sb.WriteString("\n\t")
		sb.WriteString(line)
	}
	return sb.String()
}

// calledBy reports whether the frame at level is a function of the chunk
// named source.
func calledBy(L *lua.LState, level int, source string) bool {
	dbg, ok := L.GetStack(level)
	if !ok {
		return false
	}
	if _, err := L.GetInfo("S", dbg, lua.LNil); err != nil {
		return false
	}
	return dbg.Source == source
}

// park parks t, the task running on L, until the frame driver resumes it,
// and records how many values its call site takes. Every wait ends in it.
func (b *Binding) park(L *lua.LState, t *Task) int {
	if t.cancelled && !t.bodyDone {
		// A cancelled task raises at every wait, so it ends; the wait
		// it was entering lets go of it first.
		t.parked = true
		b.unpark(t)
		t.parked, t.waitOn, t.consuming = false, nil, nil
		raise(L, "%s", t.cancelMsg)
	}
	t.parked = true
	t.since = b.now()
	t.want = callResults(L)
	return L.Yield()
}

// waitingTask returns the task running on L, or raises the error that says
// why fname cannot wait here.
func (b *Binding) waitingTask(L *lua.LState, fname string) *Task {
	t := b.threads[L]
	if t == nil {
		if L == b.ls {
			raise(L, "%s must be called inside a task; use pmacs.async.run(function() ... end)", fname)
		}
		raise(L, "%s must be called inside a task, not inside a coroutine made with coroutine.create or coroutine.wrap; use pmacs.async.run", fname)
	}
	if b.stack.vmLoops() != 1 {
		raise(L, "%s cannot wait inside %s: gopher-lua cannot yield across it; run that part as its own task and await the task instead (local t = pmacs.async.run(fn); local value, err = t:await())",
			fname, nestedIn(L))
	}
	return t
}

// nestedIn names the Go function a wait is nested in, for the error.
func nestedIn(L *lua.LState) string {
	for i := 1; i < 64; i++ {
		dbg, ok := L.GetStack(i)
		if !ok {
			break
		}
		if _, err := L.GetInfo("Sn", dbg, lua.LNil); err != nil {
			break
		}
		if dbg.What == "G" {
			if dbg.Name != "" {
				return "'" + dbg.Name + "'"
			}
			return "a function called from Go"
		}
	}
	return "a metamethod, or a for-in loop of a chunk not loaded through pmacs"
}

// raise raises a Lua error with the caller's position in front, like
// luaL_error.
func raise(L *lua.LState, format string, args ...any) {
	L.RaiseError(format, args...)
}
