package luabind

import (
	lua "github.com/yuin/gopher-lua"
)

// ---- pmacs.async ----
//
// Tasks form a tree: a task started inside a task is its child, its result
// is final once its children have ended, a child's error nobody collected
// fails it, and cancelling it cancels everything below it, down to the
// worker jobs and the process groups (tasktree.go). The waits (await,
// sleep, the primitives of async_sync.go) park the task on the main
// goroutine; the combinators, written in Lua over them, are in asyncLua.

// installAsync builds the pmacs.async table and the task metatable.
func (b *Binding) installAsync(L *lua.LState) (*lua.LTable, error) {
	b.taskMT = metatable(L, map[string]lua.LGFunction{
		"await": b.taskAwait, "done": taskDoneFn, "cancel": b.taskCancel,
		"detach": b.taskDetach, "traceback": taskTraceback, "name": taskName,
		"id": taskID, "state": taskStateFn,
	}, taskString)
	async := L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{
		"run": b.asyncRun, "sleep": b.asyncSleep, "shield": b.asyncShield,
		"status": asyncStatus, "current": b.asyncCurrent, "tasks": b.asyncTasks,
		"cancel": b.asyncCancel,
	})
	b.installSync(L, async)
	fn, err := b.LoadString(asyncLua, trampolineSource)
	if err != nil {
		return nil, err
	}
	if err := L.CallByParam(lua.P{Fn: fn, NRet: 0, Protect: true}, async); err != nil {
		return nil, err
	}
	return async, nil
}

// asyncLua is the part of pmacs.async written over the Go waits. Its chunk
// carries the trampoline's name, so tracebacks leave its frames out; its
// errors name the caller's line (level 2).
const asyncLua = `
local async = ...
local run, future, queue, status = async.run, async.future, async.queue, async.status
local pack = function(...) return {n = select("#", ...), ...} end
local unpack = unpack

local function check_list(fname, list)
  if type(list) ~= "table" then
    error(fname .. ": expected a list of tasks and job handles, got " .. type(list), 3)
  end
  for i = 1, #list do
    local x = list[i]
    if status(x) == nil then
      error(fname .. ": item " .. i .. " is a " .. type(x) .. ", not a task, job handle or future", 3)
    end
  end
end

local function cancel_rest(list)
  for i = 1, #list do
    local x = list[i]
    if x.cancel and not x:done() then x:cancel() end
  end
end

-- watch starts a child task per item that awaits it and calls on(i, st, r)
-- with its status and packed results.
local function watch(list, on)
  local ws = {}
  for i = 1, #list do
    local x = list[i]
    ws[i] = run(function()
      local r = pack(x:await())
      on(i, status(x), r)
    end)
  end
  return ws
end

local function stop(ws)
  for i = 1, #ws do ws[i]:cancel() end
end

function async.timeout(ms, fn, ...)
  if type(ms) ~= "number" then error("pmacs.async.timeout: ms must be a number, got " .. type(ms), 2) end
  if type(fn) ~= "function" then error("pmacs.async.timeout: fn must be a function, got " .. type(fn), 2) end
  local t = run(fn, ...)
  local r = pack(t:await{timeout_ms = ms})
  if r[1] == nil and r[2] == "timeout" and not t:done() then
    t:cancel("timeout")
    t:await()
    return nil, "timeout"
  end
  return unpack(r, 1, r.n)
end

function async.all(list)
  check_list("pmacs.async.all", list)
  local n, left, out = #list, #list, {}
  if n == 0 then return out end
  local f = future()
  local ws = watch(list, function(i, st, r)
    if f:done() then return end
    if st == "ok" then
      out[i] = r[1]
      left = left - 1
      if left == 0 then f:set(true) end
    else
      f:set(false, r[2] or st, i)
    end
  end)
  local ok, err, i = f:await()
  cancel_rest(list)
  stop(ws)
  if ok then return out end
  return nil, err, i
end

local function first(fname, list, need_ok)
  check_list(fname, list)
  local n, failed = #list, 0
  if n == 0 then return nil, fname .. ": empty list" end
  local f = future()
  local ws = watch(list, function(i, st, r)
    if f:done() then return end
    if st == "ok" or not need_ok then
      f:set(i, unpack(r, 1, r.n))
    else
      failed = failed + 1
      if failed == n then f:set(nil, r[2] or st) end
    end
  end)
  local r = pack(f:await())
  cancel_rest(list)
  stop(ws)
  return unpack(r, 1, r.n)
end

function async.any(list) return first("pmacs.async.any", list, true) end
function async.race(list) return first("pmacs.async.race", list, false) end

function async.as_completed(list)
  check_list("pmacs.async.as_completed", list)
  local n = #list
  local q = queue(math.max(n, 1))
  watch(list, function(i, st, r)
    r.i = i
    q:put(r)
  end)
  local got = 0
  return function()
    if got == n then return nil end
    got = got + 1
    local r = q:get()
    return r.i, unpack(r, 1, r.n)
  end
end

function async.wrap(fn, argc)
  if type(fn) ~= "function" then error("pmacs.async.wrap: fn must be a function, got " .. type(fn), 2) end
  if type(argc) ~= "number" or argc < 1 or argc % 1 ~= 0 then
    error("pmacs.async.wrap: argc (the callback's position) must be a whole number >= 1", 2)
  end
  return function(...)
    local f = future()
    local args = pack(...)
    args[argc] = function(...) if not f:done() then f:set(...) end end
    fn(unpack(args, 1, argc))
    return f:await()
  end
end
`

// asyncRun is pmacs.async.run(fn, ...) or pmacs.async.run{fn, name = },
// the table form's further arguments going to fn.
func (b *Binding) asyncRun(L *lua.LState) int {
	const fname = "pmacs.async.run"
	name := ""
	var fn *lua.LFunction
	if opt, ok := L.Get(1).(*lua.LTable); ok {
		f, isFn := opt.RawGetInt(1).(*lua.LFunction)
		if !isFn {
			raise(L, "%s: the table form takes the function as its first item: pmacs.async.run{fn, name = \"...\"}", fname)
		}
		fn = f
		switch n := opt.RawGetString("name").(type) {
		case lua.LString:
			name = string(n)
		case *lua.LNilType:
		default:
			raise(L, "%s: name must be a string, got %s", fname, n.Type())
		}
	} else {
		fn = checkFunction(L, fname, 1, "fn")
	}
	if nesting(L) >= maxNesting {
		// The new task runs inside this call until it first waits, so a
		// task that starts a task that starts a task ... nests Go calls.
		raise(L, "%s: tasks started by tasks before they first wait nest too deeply (%d)", fname, maxNesting)
	}
	args := make([]lua.LValue, 0, L.GetTop()-1)
	for i := 2; i <= L.GetTop(); i++ {
		args = append(args, L.Get(i))
	}
	L.Push(b.spawn(L, fn, args, name).ud)
	return 1
}

func checkTask(L *lua.LState, fname string) *Task {
	return checkSelf[*Task](L, fname, "task (call it as task:method())")
}

// awaitTimeout reads an await's optional {timeout_ms = n} at argument n;
// a negative value is nil.
func awaitTimeout(L *lua.LState, fname string, n int) (float64, bool) {
	switch o := L.Get(n).(type) {
	case *lua.LNilType:
		return 0, false
	case *lua.LTable:
		var ms float64
		found := false
		var bad string
		o.ForEach(func(k, v lua.LValue) {
			if k.String() != "timeout_ms" {
				bad = k.String()
				return
			}
			if num, ok := v.(lua.LNumber); ok && num >= 0 {
				ms, found = float64(num), true
				return
			}
			bad = "timeout_ms"
		})
		if bad == "timeout_ms" {
			raise(L, "%s: timeout_ms must be a number >= 0", fname)
		}
		if bad != "" {
			raise(L, "%s: unknown option %q (known: timeout_ms)", fname, bad)
		}
		return ms, found
	default:
		raise(L, "%s: options must be a table such as {timeout_ms = 500}, got %s", fname, o.Type())
	}
	return 0, false
}

// deadline arms t's await deadline: when it passes first, the await
// returns nil, "timeout" (the awaited task or job goes on).
func (b *Binding) deadline(t *Task, ms float64) {
	tm := after(ms, timerDeadline)
	tm.task = t
	t.timer = tm
	b.timers.add(tm)
}

// taskAwait returns the task's results once it has ended: nil and its
// error value if it failed (which marks the error handled), nil and
// "cancelled[: reason]" if it was cancelled; with {timeout_ms = n}, nil and
// "timeout" if it has not ended by then.
func (b *Binding) taskAwait(L *lua.LState) int {
	t := checkTask(L, "task:await")
	ms, timed := awaitTimeout(L, "task:await", 2)
	if n, ended := b.pushOutcome(L, t); ended {
		return n
	}
	if b.threads[L] == t {
		raise(L, "task:await: a task cannot await itself")
	}
	cur := b.waitingTask(L, "task:await")
	for a := cur.parent; a != nil; a = a.parent {
		if a == t {
			raise(L, "task:await: a task cannot await its own ancestor (it would wait for itself)")
		}
	}
	if e, ok := b.heldCycle(t, cur); ok {
		// t waits, through streams held for cur, on cur itself: cur
		// cannot take those streams' batches before t ends.
		b.breakCycle(e, nil)
	}
	t.waiters = append(t.waiters, cur)
	cur.waitOn = t
	if timed {
		b.deadline(cur, ms)
	}
	return b.park(L, cur)
}

// pushOutcome pushes what awaiting t returns once it has ended: its
// results; nil and its error value (collecting it); or nil and
// "cancelled[: reason]". ended is false while t runs.
func (b *Binding) pushOutcome(L *lua.LState, t *Task) (n int, ended bool) {
	switch t.state {
	case taskDone:
		return pushAll(L, t.results), true
	case taskFailed:
		b.collect(t)
		L.Push(lua.LNil)
		L.Push(t.err.value)
		return 2, true
	case taskCancelled:
		L.Push(lua.LNil)
		L.Push(lua.LString(t.cancelMsg))
		return 2, true
	}
	return 0, false
}

// collect marks a failed task's error as received: it is then neither
// reported nor passed on to the parent.
func (b *Binding) collect(t *Task) {
	t.collected = true
	if p := t.parent; p != nil {
		dropWaiter(&p.uncollected, t)
	}
}

func taskDoneFn(L *lua.LState) int {
	L.Push(lua.LBool(checkTask(L, "task:done").Done()))
	return 1
}

// taskCancel is task:cancel([reason]).
func (b *Binding) taskCancel(L *lua.LState) int {
	t := checkTask(L, "task:cancel")
	reason := ""
	if v := L.Get(2); v != lua.LNil {
		reason = L.ToStringMeta(v).String()
	}
	b.cancelTask(t, cancelMessage(reason))
	return 0
}

// taskDetach is task:detach(): the task leaves its parent, which no longer
// waits for it, nor fails with its error, nor cancels it.
func (b *Binding) taskDetach(L *lua.LState) int {
	t := checkTask(L, "task:detach")
	if p := t.parent; p != nil && t.state == taskRunning {
		unlink(t)
		b.settleTask(p)
	}
	return 0
}

func taskTraceback(L *lua.LState) int {
	t := checkTask(L, "task:traceback")
	if t.err == nil {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(lua.LString(t.err.Traceback))
	return 1
}

func taskName(L *lua.LState) int {
	t := checkTask(L, "task:name")
	if t.name == "" {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(lua.LString(t.name))
	return 1
}

func taskID(L *lua.LState) int {
	L.Push(lua.LNumber(checkTask(L, "task:id").id))
	return 1
}

func taskStateFn(L *lua.LState) int {
	L.Push(lua.LString(taskStateNames[checkTask(L, "task:state").state]))
	return 1
}

func taskString(L *lua.LState) int {
	t := checkTask(L, "tostring")
	L.Push(lua.LString("pmacs.task(" + taskStateNames[t.state] + ")"))
	return 1
}

// asyncSleep is pmacs.async.sleep(ms): the task parks on a timer of the
// main loop's; no goroutine waits.
func (b *Binding) asyncSleep(L *lua.LState) int {
	const fname = "pmacs.async.sleep"
	ms := checkNumber(L, fname, 1, "ms")
	t := b.waitingTask(L, fname)
	tm := after(ms, timerSleep)
	tm.task = t
	t.timer = tm
	b.timers.add(tm)
	return b.park(L, t)
}

// asyncShield is pmacs.async.shield(fn, ...): fn runs as a child task that
// the caller's cancellation does not reach, and the caller waits for it
// even when cancelled; it returns what task:await() would. A cancelled
// caller raises its cancellation at its next wait after the shield.
func (b *Binding) asyncShield(L *lua.LState) int {
	const fname = "pmacs.async.shield"
	fn := checkFunction(L, fname, 1, "fn")
	cur := b.waitingTask(L, fname)
	args := make([]lua.LValue, 0, L.GetTop()-1)
	for i := 2; i <= L.GetTop(); i++ {
		args = append(args, L.Get(i))
	}
	t := &Task{b: b, want: resultsUnknown}
	t.shielded = true
	t = b.spawnTask(L, t, fn, args)
	if n, ended := b.pushOutcome(L, t); ended {
		return n
	}
	t.waiters = append(t.waiters, cur)
	cur.waitOn = t
	// park raises at once for a cancelled caller; the shielded wait is
	// the one wait that must not.
	cur.parked = true
	cur.since = b.now()
	cur.want = callResults(L)
	return L.Yield()
}

// asyncStatus is pmacs.async.status(x): "running", "ok", "failed" or
// "cancelled" for a task, job handle or future; nil for anything else.
func asyncStatus(L *lua.LState) int {
	ud, ok := L.Get(1).(*lua.LUserData)
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	s := ""
	switch x := ud.Value.(type) {
	case *Task:
		s = [...]string{taskRunning: "running", taskDone: "ok", taskFailed: "failed", taskCancelled: "cancelled"}[x.state]
	case *job:
		s = "running"
		if x.settled {
			s = [...]string{"running", "ok", "cancelled", "failed"}[x.state]
		}
	case *future:
		s = "running"
		if x.done {
			s = "ok"
			if x.failed {
				s = "failed"
			}
		}
	default:
		L.Push(lua.LNil)
		return 1
	}
	L.Push(lua.LString(s))
	return 1
}

// asyncCurrent is pmacs.async.current(): the running task, nil outside one.
func (b *Binding) asyncCurrent(L *lua.LState) int {
	if t := b.threads[L]; t != nil {
		L.Push(t.ud)
		return 1
	}
	L.Push(lua.LNil)
	return 1
}

// asyncCancel is pmacs.async.cancel(id[, reason]): cancels the live task
// with that id (what the task list shows); false when there is none.
func (b *Binding) asyncCancel(L *lua.LState) int {
	id := uint64(checkCount(L, "pmacs.async.cancel", 1, "id"))
	reason := L.OptString(2, "")
	for t := b.alive.head; t != nil; t = t.nextAlive {
		if t.id == id {
			b.cancelTask(t, cancelMessage(reason))
			L.Push(lua.LTrue)
			return 1
		}
	}
	L.Push(lua.LFalse)
	return 1
}
