// Package luabind exposes the job runtime to Lua (gopher-lua) as
// pmacs.workers.* and pmacs.async.*: scripts dispatch jobs, get handles, and
// wait for them inside tasks, coroutines that a frame driver resumes when
// their job settles.
//
// # Topology
//
//	Lua task (coroutine) ── w.grep{...} ──► Binding ── Dispatch* ──► runtime.Runtime
//	     ▲   h:await() / for batch in h:batches(): park the task on the job
//	     │
//	     └── resume (settle order) ◄── Binding.Frame ◄── Tick + TakeStreamBatches
//
// One Frame call is one editor frame: it ticks the runtime, converts what
// settled into Lua values, and resumes the tasks parked on those jobs in
// settle order, then hands each stream its batch. A task that dispatches and
// waits again while it is being resumed parks until a later frame, so a
// frame's work is bounded by the tasks that were parked when it began.
//
// A host need not frame while nothing is to be done: WantsFrame says
// whether a Frame has work now (tasks queued, stream batches ready, a timer
// due), and what wakes a parked task (a stream's item, a job's reply)
// arrives on the bus, which fires the runtime's Ready. So an editor loop
// waits on its own events, Ready and NextTimer, and a task parked on a
// watch between changes costs nothing. Busy, in turn, says whether the run
// is over (no task alive, no job in flight), for a headless runner.
//
// # Kinds
//
// The core (tasks, handles, the frame driver, conversions) knows no job
// kind. Each kind package, and each protocol client, has a module of its
// own, kind_*.go, which registers at init (registerKind in kind.go): how
// its jobs' values and stream batches become Lua values, the handle
// methods that work differently for its jobs, and the functions it
// installs into pmacs.workers, pmacs.workers.fs, the handle methods or a
// table of its own (pmacs.lsp, pmacs.mcp). New installs them in the order
// of the modules' names.
//
// pmacs.lsp clients (kind_lsp.go) and the pmacs.mcp host (kind_mcp.go) are
// registered with the runtime (runtime.Runtime.AddPoller): the frame's
// Tick polls them before it drains the bus, so the requests a poll settles
// land in that frame, and their messages wake the runtime's Ready, the one
// channel a host waits on. A result's Lua tables (and a
// publication's diagnostic rows) are built on the client's reader goroutine
// (lsp_shape.go): gopher-lua tables touch no Lua state, so the main
// goroutine only hands them over. An array result iterated with h:batches()
// comes in batches of at most LSPBatchSize items, at once while the
// frame's first 3 ms last, else one a frame.
//
// # Concurrency contract
//
// A Binding, its lua.LState and the runtime.Runtime it drives belong to one
// goroutine: the editor's main loop. No method may be called from another
// goroutine, except [Binding.Interrupt], which exists for the goroutine that
// reads the terminal while the loop is stuck in a runaway script. Tasks are gopher-lua coroutines on that goroutine, not
// goroutines: waiting never blocks the loop, it returns to it.
//
// # Where a task can wait
//
// gopher-lua yields a coroutine by unwinding exactly one VM loop. A wait
// issued while the VM is nested inside a Go call (pcall, xpcall, a
// metamethod, a table.sort comparator, a string.gsub callback) cannot yield:
// gopher-lua would silently keep running the coroutine. The binding detects
// that case from the Go call stack and raises a Lua error naming the way out
// (run the risky part as its own task and await the task) instead of
// corrupting the coroutine or hanging.
//
// The generic for loop is nested the same way in gopher-lua (its iterator is
// called from inside the VM instruction), which would make
// "for batch in h:batches() do" impossible. Chunks loaded through the
// binding (RunFile, LoadString, LoadFile, Lua's load, loadstring,
// loadfile and dofile, and the modules require loads, which the binding
// all replaces: require.go) are therefore compiled
// with every generic for rewritten into the equivalent while loop of the Lua
// 5.1 manual (section 2.4.5), whose iterator call is an ordinary call that
// can yield. Chunks compiled elsewhere still run; only waiting inside their
// for-in iterators raises the error above.
//
// The coroutine library is guarded the same way: coroutine.yield nested in
// a Go call raises instead of detaching the coroutine; coroutine.resume and
// coroutine.wrap refuse a coroutine that is not suspended (one up the chain
// of resumers, which gopher-lua would re-enter until the Go stack
// overflows) and a task's own coroutine, which only the frame driver
// resumes; resumes nest at most 200 deep. A Go panic that still escapes
// gopher-lua's Resume fails the task it ran for (ErrLuaVM), never the host.
//
// # Values a wait returns
//
// gopher-lua hands a resumed coroutine the resume values as they are, not
// adjusted to the number its yield's call site takes, so a variable past
// them would hold a Go nil that every comparison dereferences. Every wait
// records that count when it parks and the driver pads or cuts the values
// to it (coroutine.yield in the script's own coroutines too): a value a
// wait did not return is Lua's nil, as after any Lua call.
//
// # --safe
//
// A Binding made with Options.Safe starts no program, writes nothing and
// reads files only beneath the runtime's registered roots; every API that
// would reach further raises a Lua error naming itself and --safe (safe.go
// lists them and says how reads are fenced twice).
//
// # Cost
//
// A task is a coroutine thread from a pool: threads of tasks that finished
// normally are reused, and the state is created with small, growable stacks
// so a new thread costs a few KB instead of the default 112 KB.
package luabind
