package luabind

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// ErrClosed is returned by methods of a closed Binding.
var ErrClosed = errors.New("luabind: binding is closed")

// Options configures a Binding.
type Options struct {
	// Safe is --safe: only the base, table, string, math and coroutine
	// libraries (plus pmacs; no io, os, package or debug), no program
	// starts, nothing is written, and files are read only beneath the
	// runtime's registered roots (see safe.go for every entry point). The
	// host registers the script's roots before it runs the script.
	Safe bool
	// Stdout receives what print writes; nil means os.Stdout.
	Stdout io.Writer
	// Stderr receives the report (error and traceback) of every task that
	// fails; nil means os.Stderr.
	Stderr io.Writer
	// FrameBudget caps the time of one Frame's work: the runtime's tick
	// (decoding replies, settling jobs) and resuming tasks. The replies
	// and the tasks still to resume when it runs out go first next frame,
	// in order. Zero means no cap. Resuming a parked gopher-lua coroutine costs about a
	// microsecond, so a flood of 10,000 settles in one frame would
	// otherwise stall the editor for ~20 ms.
	FrameBudget time.Duration
	// OnTick, when set, is called by every Frame whose tick settled a job
	// or completed a filesystem mutation, with the tick's outcome, before
	// any task resumes: a host that keeps state derived from it (buffers
	// that follow a completed rename) updates that state first, so a task
	// resuming on the rename already sees it. It runs inside Frame and must
	// not call Frame.
	OnTick func(runtime.TickOutcome)
	// ProgramPolicy, when set, is asked before every program the
	// binding starts (policy.go); nil lets every program run.
	ProgramPolicy ProgramPolicy
	// Modules are the host's own Lua modules, which require finds before
	// any file (and under Safe, alone): module a.b is a/b.lua or
	// a/b/init.lua in it. An embed.FS of the host's lua directory is the
	// usual value; nil means none.
	Modules fs.FS
	// ModuleDirs are directories require searches, as dir/?.lua and
	// dir/?/init.lua, after Modules and before package.path: the user's
	// own modules (require.go). Not searched under Safe.
	ModuleDirs []string
}

// State sizes for the Lua state and every coroutine made from it. gopher-lua
// gives a thread the state's sizes; the defaults (256 call frames allocated
// up front, 5120 registry slots) cost ~112 KB per coroutine. These start at
// about 2 KB and grow on demand up to the same depth limits as a default
// state, and further for the data stack.
var stateOptions = lua.Options{
	CallStackSize:       lua.CallStackSize,
	MinimizeStackMemory: true,
	RegistrySize:        128,
	RegistryGrowStep:    256,
	RegistryMaxSize:     1 << 20,
	SkipOpenLibs:        true,
}

// Binding is pmacs.workers.* and pmacs.async.* installed in one Lua state,
// plus the frame driver that resumes its tasks. It belongs to the goroutine
// that owns the runtime (see the package doc).
type Binding struct {
	rt     *runtime.Runtime
	ls     *lua.LState
	stdout io.Writer
	stderr io.Writer
	budget time.Duration
	onTick func(runtime.TickOutcome)

	jobs    map[runtime.JobID]*job // dispatched through this binding, not yet settled
	threads map[*lua.LState]*Task  // running or parked tasks by their thread
	alive   taskList               // tasks not ended, joining ones too
	// command holds the root tasks started while recording (BeginCommand).
	command   []*Task
	recording bool
	pool      threadPool // threads of finished tasks, for reuse
	live      int        // tasks started and not finished
	taskSeq   uint64     // the last task's id
	timers    timerHeap  // sleeps and deadlines (timers.go)
	clock     time.Time  // when the current (or last) frame started
	// cancelledSleeps are w.sleep jobs cancelled outside the binding,
	// settled by the next frame.
	cmu             sync.Mutex
	cancelledSleeps []runtime.JobID
	failed          []*Task // tasks whose error nobody has collected yet

	// run is the frame's resume queue; next holds tasks that yielded by
	// themselves and resume next frame. A frame that stops early leaves run
	// resliced past what it resumed; runBase is the start of run's array,
	// where an emptied queue begins again (see Frame).
	run, next []resumption
	runBase   []resumption
	inFrame   bool

	trampoline *lua.LFunction
	handleMT   *lua.LTable
	taskMT     *lua.LTable
	futureMT   *lua.LTable
	eventMT    *lua.LTable
	queueMT    *lua.LTable
	semMT      *lua.LTable
	treeMT     *lua.LTable
	iterFn     *lua.LFunction
	stack      stackClassifier
	// gopher-lua's coroutine.resume and coroutine.wrap, which the guarded
	// versions call (see coroutine.go).
	coResumeG, coWrapG lua.LGFunction
	coWant             coWants
	resumeBuf          []lua.LValue // adjustResults' scratch, see resume
	closed             bool
	safe               bool // --safe (safe.go)
	policy             ProgramPolicy

	mcp  mcpState // pmacs.mcp connections (kind_mcp.go)
	lsp  lspState // pmacs.lsp clients (kind_lsp.go)
	mods modules  // require (require.go)

	// Every task resumes under the current interrupt context; Interrupt
	// cancels it from any goroutine and installs a fresh one.
	imu     sync.Mutex
	ictx    context.Context
	icancel context.CancelCauseFunc
}

// New creates a Lua state with the standard libraries (or the safe subset)
// and pmacs.workers.* and pmacs.async.* installed, bound to rt. The caller
// keeps ownership of rt and closes it after the Binding.
func New(rt *runtime.Runtime, opts Options) (*Binding, error) {
	if rt == nil {
		return nil, errors.New("luabind: nil runtime")
	}
	b := &Binding{
		rt:      rt,
		ls:      lua.NewState(stateOptions),
		stdout:  opts.Stdout,
		stderr:  opts.Stderr,
		budget:  opts.FrameBudget,
		onTick:  opts.OnTick,
		jobs:    make(map[runtime.JobID]*job),
		threads: make(map[*lua.LState]*Task),
		safe:    opts.Safe,
		policy:  opts.ProgramPolicy,
	}
	b.ictx, b.icancel = newInterruptContext()
	if b.stdout == nil {
		b.stdout = os.Stdout
	}
	if b.stderr == nil {
		b.stderr = os.Stderr
	}
	if err := b.openLibs(opts.Safe); err != nil {
		b.ls.Close()
		return nil, err
	}
	b.installRequire(opts)
	if err := b.install(); err != nil {
		b.ls.Close()
		return nil, err
	}
	return b, nil
}

func (b *Binding) openLibs(safe bool) error {
	libs := []struct {
		name string
		open lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.CoroutineLibName, lua.OpenCoroutine},
	}
	if !safe {
		// The channel library is left out on purpose: a channel receive
		// would block the editor's main loop.
		libs = append(libs, []struct {
			name string
			open lua.LGFunction
		}{
			{lua.LoadLibName, lua.OpenPackage},
			{lua.IoLibName, lua.OpenIo},
			{lua.OsLibName, lua.OpenOs},
			{lua.DebugLibName, lua.OpenDebug},
		}...)
	}
	for _, lib := range libs {
		if err := b.ls.CallByParam(lua.P{Fn: b.ls.NewFunction(lib.open), NRet: 0}, lua.LString(lib.name)); err != nil {
			return fmt.Errorf("luabind: open %q library: %w", lib.name, err)
		}
	}
	g := b.ls.G.Global
	if co, ok := g.RawGetString(lua.CoroutineLibName).(*lua.LTable); ok {
		b.guardCoroutines(co)
	}
	g.RawSetString("print", b.ls.NewFunction(b.luaPrint))
	// Chunks loaded at run time get the same for-loop rewrite as the
	// script, so their loops may wait too.
	g.RawSetString("loadstring", b.ls.NewFunction(b.luaLoadString))
	g.RawSetString("load", b.ls.NewFunction(b.luaLoad))
	g.RawSetString("loadfile", b.ls.NewFunction(b.luaLoadFile))
	g.RawSetString("dofile", b.ls.NewFunction(b.luaDoFile))
	return nil
}

// L returns the Lua state. Call it only from the owning goroutine.
func (b *Binding) L() *lua.LState { return b.ls }

// Runtime returns the runtime the binding dispatches to.
func (b *Binding) Runtime() *runtime.Runtime { return b.rt }

// Busy reports whether a task is alive or a job dispatched through the
// binding has not settled yet: whether a run is over (the headless runner
// drives frames while it is true). A stream held for want of a consumer
// once no task is alive (one a script started and never iterated) does not
// count: nothing left could take its batches, so only Close ends it.
//
// A host that frames only when there is work asks WantsFrame instead: a
// task parked on a watch keeps the run alive for ever while having nothing
// to do.
func (b *Binding) Busy() bool {
	if b.live > 0 || len(b.next) > 0 || len(b.run) > 0 || len(b.lsp.iters) > 0 {
		return true
	}
	for _, j := range b.jobs {
		if !j.held {
			return true
		}
	}
	return false
}

// WantsFrame reports whether a Frame now has work: a task to resume (woken,
// yielded, or a due timer's), an LSP result's next batch, stream batches
// the runtime holds ready, or a cancelled w.sleep to settle. A task parked
// on a stream, a job's reply, an event, a future or another task with
// nothing ready is not work: what wakes it arrives as a worker or client
// reply, which fires the runtime's Ready channel, or is done by code on the
// main goroutine that queues the task, after which this reports true. So a
// host may sleep on Ready, its own events and NextTimer while this is false
// (the replies Tick has not applied are the runtime's Pending), and an
// editor whose project is watched is idle between changes.
func (b *Binding) WantsFrame() bool {
	if b.closed {
		return false
	}
	if len(b.run) > 0 || len(b.next) > 0 || len(b.lsp.iters) > 0 || b.rt.StreamsReady() {
		return true
	}
	if len(b.timers) > 0 && !b.timers[0].when.After(time.Now()) {
		return true
	}
	b.cmu.Lock()
	n := len(b.cancelledSleeps)
	b.cmu.Unlock()
	return n > 0
}

// Stats counts what a Binding holds, like runtime.Stats: the editor's
// status line shows it, and a test checks that it returns to zero.
type Stats struct {
	// Tasks counts tasks started and not finished (running or parked).
	Tasks int
	// Jobs counts jobs dispatched through the binding that have not settled
	// (for streams: whose closing batch has not arrived).
	Jobs int
	// LSPClients counts the language clients started from Lua that are
	// still running.
	LSPClients int
}

// Stats returns the binding's current counts. Main goroutine only.
func (b *Binding) Stats() Stats {
	s := Stats{Tasks: b.live, Jobs: len(b.jobs)}
	for _, c := range b.lsp.clients {
		if !c.stopped {
			s.LSPClients++
		}
	}
	return s
}

// Stalled reports tasks that can never resume: tasks are alive, no task is
// queued, and no job is pending except streams held for a task that has a
// batch to take (such a stream moves only once that task does), so they
// can only be waiting on each other. A headless runner stops on it instead
// of waiting forever.
func (b *Binding) Stalled() bool {
	if b.live == 0 || len(b.next) > 0 || len(b.run) > 0 || len(b.lsp.iters) > 0 || len(b.timers) > 0 {
		return false
	}
	for _, j := range b.jobs {
		if !j.held {
			return false
		}
	}
	return true
}

// TakeFailed returns the tasks that failed and whose error no other task
// collected with task:await(), and forgets them.
func (b *Binding) TakeFailed() []*Task {
	var out []*Task
	for _, t := range b.failed {
		if !t.collected {
			out = append(out, t)
		}
	}
	b.failed = nil
	return out
}

// RunFile loads the file at path and runs it as the first task, with args
// in the global arg (arg[0] is the path, arg[1..n] the arguments, as the
// standalone lua interpreter sets it) and as the chunk's varargs.
func (b *Binding) RunFile(path string, args []string) (*Task, error) {
	if b.closed {
		return nil, ErrClosed
	}
	fn, err := b.LoadFile(path)
	if err != nil {
		return nil, err
	}
	argt := b.ls.CreateTable(len(args), 1)
	argt.RawSetInt(0, lua.LString(path))
	vals := make([]lua.LValue, len(args))
	for i, a := range args {
		argt.RawSetInt(i+1, lua.LString(a))
		vals[i] = lua.LString(a)
	}
	b.ls.SetGlobal("arg", argt)
	return b.Spawn(fn, vals...), nil
}

// Close stops the language servers and closes the MCP connections the
// binding started (each within 3 s, side by side: their whole trees end,
// see lsp and mcp), cancels the jobs it dispatched, drops every parked
// task and closes the Lua state. It does not close the runtime, which ends
// the programs still running. Idempotent.
func (b *Binding) Close() {
	if b.closed {
		return
	}
	b.closed = true
	// The jobs are cancelled first, so that their programs' trees get
	// their SIGTERM while the servers close. The MCP connections close on
	// a goroutine of their own (Host.Close is safe there) while the
	// language clients close here: each is bounded by 3 s, and side by
	// side so are both.
	for id := range b.jobs {
		b.rt.Cancel(id)
		b.endSleep(id)
	}
	mcpClosed := make(chan struct{})
	go func() {
		defer close(mcpClosed)
		b.closeMCP()
		b.mcp.closing.Wait()
	}()
	b.closeLSP()
	<-mcpClosed
	if b.mcp.detach != nil {
		b.mcp.detach()
	}
	clear(b.jobs)
	clear(b.threads)
	b.alive = taskList{}
	b.timers = nil
	b.pool = threadPool{}
	b.run, b.runBase, b.next, b.failed = nil, nil, nil, nil
	b.live = 0
	b.ls.Close()
	b.imu.Lock()
	b.icancel(nil)
	b.imu.Unlock()
}

func (b *Binding) luaPrint(L *lua.LState) int {
	var sb strings.Builder
	top := L.GetTop()
	for i := 1; i <= top; i++ {
		if i > 1 {
			sb.WriteByte('\t')
		}
		sb.WriteString(L.ToStringMeta(L.Get(i)).String())
	}
	sb.WriteByte('\n')
	// A failing writer (a closed pipe) must not kill the script.
	_, _ = io.WriteString(b.stdout, sb.String())
	return 0
}

// loaded pushes the result of a load the way Lua's loaders return it: the
// function, or nil and the message.
func loaded(L *lua.LState, proto *lua.FunctionProto, err error) int {
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	L.Push(L.NewFunctionFromProto(proto))
	return 1
}

func (b *Binding) luaLoadString(L *lua.LState) int {
	src := L.CheckString(1)
	proto, err := compile(strings.NewReader(src), L.OptString(2, "<string>"))
	return loaded(L, proto, err)
}

// luaLoad accepts a reader function (Lua 5.1) or a string (Lua 5.2).
func (b *Binding) luaLoad(L *lua.LState) int {
	if s, ok := L.Get(1).(lua.LString); ok {
		proto, err := compile(strings.NewReader(string(s)), L.OptString(2, "<string>"))
		return loaded(L, proto, err)
	}
	fn := L.CheckFunction(1)
	name := L.OptString(2, "?")
	var sb strings.Builder
	for {
		L.Push(fn)
		L.Call(0, 1)
		piece := L.Get(-1)
		L.Pop(1)
		if piece == lua.LNil {
			break
		}
		s, ok := piece.(lua.LString)
		if !ok {
			if n, isNum := piece.(lua.LNumber); isNum {
				s = lua.LString(n.String())
			} else {
				L.Push(lua.LNil)
				L.Push(lua.LString("reader function must return a string"))
				return 2
			}
		}
		if s == "" {
			break
		}
		sb.WriteString(string(s))
	}
	proto, err := compile(strings.NewReader(sb.String()), name)
	return loaded(L, proto, err)
}

func (b *Binding) luaLoadFile(L *lua.LState) int {
	path := L.CheckString(1)
	b.safeRead(L, "loadfile", path, true)
	f, err := b.openFile(path)
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	defer f.Close()
	proto, err := compile(f, path)
	return loaded(L, proto, err)
}

func (b *Binding) luaDoFile(L *lua.LState) int {
	path := L.CheckString(1)
	b.safeRead(L, "dofile", path, true)
	f, err := b.openFile(path)
	if err != nil {
		L.RaiseError("dofile: %v", err)
	}
	proto, err := compile(f, path)
	f.Close()
	if err != nil {
		L.RaiseError("dofile: %v", err)
	}
	top := L.GetTop()
	L.Push(L.NewFunctionFromProto(proto))
	L.Call(0, lua.MultRet)
	return L.GetTop() - top
}

// Interrupt stops the Lua code a task is running right now, if any: the
// task raises "interrupted" at its next instruction and fails with its
// traceback like any other error, and the frame returns. Parked tasks are
// not affected. Interrupt is safe to call from any goroutine: it is meant
// for the one that reads the terminal while the main goroutine is stuck in
// a script's runaway loop.
//
// It covers tasks only (everything pmacs.async.run and RunFile start), not
// calls the embedder makes into the main state itself.
func (b *Binding) Interrupt() {
	b.imu.Lock()
	b.icancel(ErrInterrupted)
	b.ictx, b.icancel = newInterruptContext()
	b.imu.Unlock()
}

// Protect runs f, code of the embedder's that calls into the main Lua state
// (a key binding, a hook), so that Interrupt stops a runaway loop there too,
// and returns f's error. An error raised by Interrupt reads "interrupted"
// where the Lua VM would say "context canceled", and matches ErrInterrupted
// with errors.Is. Calls made through Frame, Spawn and RunFile need no
// Protect: tasks always run interruptible.
func (b *Binding) Protect(f func() error) error {
	prev := b.ls.Context()
	ctx := b.runContext()
	b.ls.SetContext(ctx)
	defer func() {
		if prev != nil {
			b.ls.SetContext(prev)
		} else {
			b.ls.RemoveContext()
		}
	}()
	return interrupted(ctx, f())
}

// runContext is the interrupt context for the next resume.
func (b *Binding) runContext() context.Context {
	b.imu.Lock()
	defer b.imu.Unlock()
	return b.ictx
}

// ErrInterrupted is the cause of an Interrupt: the error of Lua code it
// stopped matches it.
var ErrInterrupted = errors.New("luabind: interrupted")

// newInterruptContext is the context the Lua VM checks between
// instructions. It is an ordinary cancel context: Interrupt cancels it with
// ErrInterrupted as the cause.
func newInterruptContext() (context.Context, context.CancelCauseFunc) {
	return context.WithCancelCause(context.Background())
}

// vmCancelText is what the Lua VM raises when its context ends: the text of
// the context's Err.
var vmCancelText = context.Canceled.Error()

// interrupted rewrites the error the Lua VM raised because Interrupt
// cancelled ctx so that it reads "interrupted" (the VM can only say
// "context canceled") and wraps ErrInterrupted. Any other error, and every
// error when ctx was not interrupted, is returned as it is.
func interrupted(ctx context.Context, err error) error {
	var ae *lua.ApiError
	if err == nil || context.Cause(ctx) != ErrInterrupted || !errors.As(err, &ae) {
		return err
	}
	s, ok := ae.Object.(lua.LString)
	if !ok {
		return err
	}
	msg := string(s)
	head, rest, _ := strings.Cut(msg, "\n")
	if !strings.HasSuffix(head, vmCancelText) {
		return err
	}
	head = strings.TrimSuffix(head, vmCancelText) + "interrupted"
	if rest != "" {
		head += "\n" + rest
	}
	return &interruptError{&lua.ApiError{Type: ae.Type, Object: lua.LString(head), StackTrace: ae.StackTrace}}
}

// interruptError is the Lua error of interrupted code: errors.As finds the
// *lua.ApiError (a *lua.ApiError has no Unwrap to reach a cause through),
// errors.Is ErrInterrupted.
type interruptError struct{ ae *lua.ApiError }

func (e *interruptError) Error() string   { return e.ae.Error() }
func (e *interruptError) Unwrap() []error { return []error{e.ae, ErrInterrupted} }
