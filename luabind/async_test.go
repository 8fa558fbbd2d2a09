package luabind

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// runOK runs src as a task and requires it to end without error; it
// returns the task's results.
func runTaskOK(t *testing.T, h *harness, src string) []lua.LValue {
	t.Helper()
	task := h.run(t, src)
	require.True(t, task.Done(), "the task ended")
	require.NoError(t, task.Err(), "stderr:\n%s", h.stderr.String())
	return task.Results()
}

// A parent's result is final only once its children are done: a task
// whose function returned waits ("joining") for the children it started.
func TestParentEndsAfterItsChildren(t *testing.T) {
	h := newHarness(t, false)
	res := runTaskOK(t, h, `
		local a = pmacs.async
		local order = {}
		local parent = a.run(function()
			a.run(function() a.sleep(20); order[#order + 1] = "child" end)
			order[#order + 1] = "parent returns"
			return "p"
		end)
		assert(not parent:done(), "the parent waits for its child")
		assert(parent:state() == "running")
		local v = parent:await()
		order[#order + 1] = "parent awaited"
		return v, table.concat(order, ",")`)
	require.Equal(t, []lua.LValue{lua.LString("p"), lua.LString("parent returns,child,parent awaited")}, res)
}

// A child's error that nobody collects fails the parent with the same
// value; one the parent collects with child:await() does not.
func TestChildErrorFailsTheParentUnlessCollected(t *testing.T) {
	h := newHarness(t, false)
	res := runTaskOK(t, h, `
		local a = pmacs.async
		local failing = a.run(function()
			a.run(function() a.sleep(1); error({code = 42}) end)
			a.sleep(50)
			return "never"
		end)
		local v, err = failing:await()
		assert(v == nil and type(err) == "table" and err.code == 42, "the child's error value, unchanged: " .. tostring(err))
		assert(failing:state() == "failed")
		assert(failing:traceback():find("in child task", 1, true), failing:traceback())

		local collecting = a.run(function()
			local c = a.run(function() a.sleep(1); error("handled") end)
			a.sleep(10) -- the child fails meanwhile; collected later
			local cv, cerr = c:await()
			return cerr
		end)
		return collecting:await()`)
	require.Contains(t, res[0].String(), "handled")
	require.Empty(t, h.b.TakeFailed(), "every error was collected")
	require.NotContains(t, h.stderr.String(), "task failed", "a collected error is never reported")
}

// task:cancel raises "cancelled" where the task waits, cancels its
// children and the jobs the tree owns, down to a program's process.
func TestCancelReachesChildrenJobsAndPrograms(t *testing.T) {
	h := newHarness(t, false)
	res := runTaskOK(t, h, `
		local a, w = pmacs.async, pmacs.workers
		local jobs = {}
		local root = a.run{name = "root", function()
			jobs.sleep = w.sleep(3600 * 1000)
			a.run{name = "child", function()
				jobs.proc = w.spawn{cmd = {"sleep", "3600"}}
				for _ in jobs.proc:batches() do end
			end}
			jobs.sleep:await()
			return "not reached"
		end}
		a.sleep(20)
		local tasks = a.tasks()
		assert(#tasks >= 3, "root, child and this task are listed")
		root:cancel("enough")
		local v, err = root:await()
		local sv, serr = jobs.sleep:await()
		local pv, perr = jobs.proc:await()
		return v == nil and err, serr, perr, root:state()`)
	require.Equal(t, []lua.LValue{lua.LString("cancelled: enough"), lua.LString("cancelled"), lua.LString("cancelled"), lua.LString("cancelled")}, res)
	require.Empty(t, h.b.TakeFailed(), "a cancelled task is not a failure")
	require.Equal(t, 0, h.b.Stats().Jobs)
}

// A stream a task leaves unfinished (kept in a global, or left by an
// error) is cancelled when the task ends: nothing else would take its
// batches, and its producer would stay parked. What it buffered is dropped,
// not handed out a batch per frame (with max_batch = 1, 65,536 frames).
func TestStreamLeftByItsTaskIsCancelled(t *testing.T) {
	h := newHarness(t, false)
	task := h.run(t, `
		kept = pmacs.workers.emit_n(1e9, {max_batch = 1})
		for batch in kept:batches() do break end`)
	require.NoError(t, task.Err())
	h.drive(t, 10*time.Second)
	require.False(t, h.b.Busy(), "the stream ended with its task")
	res := runTaskOK(t, h, `return kept:await()`)
	require.Equal(t, []lua.LValue{lua.LNil, lua.LString("cancelled")}, res)
}

// A handle a task returns passes to the task that awaits it: it is not
// cancelled with the task that dispatched it.
func TestReturnedHandleOutlivesItsTask(t *testing.T) {
	h := newHarness(t, false)
	res := runTaskOK(t, h, `
		local a, w = pmacs.async, pmacs.workers
		local h = a.run(function() return w.sleep(20) end):await()
		return h:await()`)
	require.Equal(t, lua.LTrue, res[0])
}

// timeout and await deadlines: past the deadline the await returns nil,
// "timeout"; timeout cancels what it ran.
func TestTimeoutsCancelWhatTheyRan(t *testing.T) {
	h := newHarness(t, false)
	res := runTaskOK(t, h, `
		local a, w = pmacs.async, pmacs.workers
		local job
		local v, err = a.timeout(20, function() job = w.sleep(3600 * 1000); return job:await() end)
		assert(v == nil and err == "timeout", tostring(err))
		local jv, jerr = job:await()
		assert(jerr == "cancelled", "the job timed out with its task: " .. tostring(jerr))
		local quick = a.timeout(1000, function() a.sleep(1); return "in time" end)
		local long = w.sleep(3600 * 1000)
		local lv, lerr = long:await{timeout_ms = 10}
		assert(lv == nil and lerr == "timeout")
		assert(not long:done(), "an await's deadline leaves the job running")
		long:cancel()
		local f = a.future()
		local fv, ferr = f:await{timeout_ms = 5}
		return quick, ferr`)
	require.Equal(t, []lua.LValue{lua.LString("in time"), lua.LString("timeout")}, res)
}

// all fails fast and cancels the rest; any takes the first success; race
// the first to end; as_completed yields in completion order.
func TestCombinators(t *testing.T) {
	h := newHarness(t, false)
	res := runTaskOK(t, h, `
		local a, w = pmacs.async, pmacs.workers
		local out = {}
		local r = a.all{w.sleep(5), a.run(function() a.sleep(1); return "t" end)}
		assert(r[1] == true and r[2] == "t", "all: results in order")

		local long = w.sleep(3600 * 1000)
		local v, err, i = a.all{long, a.run(function() a.sleep(1); error("boom") end)}
		assert(v == nil and err:find("boom") and i == 2, tostring(err))
		local _, lerr = long:await()
		assert(lerr == "cancelled", "all cancels the rest")

		local slow = w.sleep(3600 * 1000)
		local idx, val = a.any{a.run(function() error("no") end), slow, a.run(function() a.sleep(2); return "yes" end)}
		assert(idx == 3 and val == "yes", "any: first success")
		assert(select(2, slow:await()) == "cancelled", "any cancels the rest")

		local ridx, rv, rerr = a.race{a.run(function() a.sleep(1); error("first") end), w.sleep(3600 * 1000)}
		assert(ridx == 1 and rv == nil and rerr:find("first"), "race: the first to end, even a failure")

		local order = {}
		for i, value in a.as_completed{a.run(function() a.sleep(30); return "c" end), w.sleep(1), a.run(function() a.sleep(10); return "b" end)} do
			order[#order + 1] = i
		end
		return table.concat(order, ",")`)
	require.Equal(t, lua.LString("2,3,1"), res[0])
}

// future, wrap, event, queue and semaphore on the main loop.
func TestSyncPrimitives(t *testing.T) {
	h := newHarness(t, false)
	res := runTaskOK(t, h, `
		local a = pmacs.async
		-- A callback API becomes awaitable.
		local later = {}
		local function ask(prompt, cb) later[#later + 1] = function() cb("answer to " .. prompt) end end
		local ask_a = a.wrap(ask, 2)
		local asker = a.run(function() return ask_a("q") end)
		a.sleep(1)
		later[1]()
		local answer = asker:await()

		local ev = a.event()
		local woke = 0
		for i = 1, 3 do a.run(function() ev:wait(); woke = woke + 1 end) end
		a.sleep(1)
		assert(woke == 0)
		ev:set()
		a.sleep(1)

		local q = a.queue(2)
		local produced = 0
		local producer = a.run(function()
			for i = 1, 5 do q:put(i); produced = i end
		end)
		a.sleep(1)
		assert(produced == 2, "put waits while the queue is full: " .. produced)
		local got = {}
		for i = 1, 5 do got[#got + 1] = q:get() end
		producer:await()

		local s = a.semaphore(2)
		local inside, most = 0, 0
		local ws = {}
		for i = 1, 6 do ws[i] = a.run(function()
			s:acquire(); inside = inside + 1; most = math.max(most, inside)
			a.sleep(2)
			inside = inside - 1; s:release()
		end) end
		a.all(ws)
		local ok, err = pcall(s.release, s)
		return answer, woke, table.concat(got, ","), most, ok, err`)
	require.Equal(t, lua.LString("answer to q"), res[0])
	require.Equal(t, lua.LNumber(3), res[1])
	require.Equal(t, lua.LString("1,2,3,4,5"), res[2])
	require.Equal(t, lua.LNumber(2), res[3], "at most two inside")
	require.Equal(t, lua.LFalse, res[4])
	require.Contains(t, res[5].String(), "released more often than acquired")
}

// shield: a cancel waits for the shielded section, then raises at the
// next wait.
func TestShieldedSectionFinishesBeforeCancellation(t *testing.T) {
	h := newHarness(t, false)
	res := runTaskOK(t, h, `
		local a = pmacs.async
		local log = {}
		local t = a.run(function()
			local v = a.shield(function() a.sleep(20); log[#log + 1] = "shielded done"; return "kept" end)
			log[#log + 1] = "after shield: " .. tostring(v)
			a.sleep(1)
			log[#log + 1] = "not reached"
		end)
		a.sleep(1)
		t:cancel()
		local _, err = t:await()
		return err, table.concat(log, ";")`)
	require.Equal(t, []lua.LValue{lua.LString("cancelled"), lua.LString("shielded done;after shield: kept")}, res)
}

// Tasks waiting on a queue nobody fills can never wake: the binding says
// it is stalled and names them.
func TestTasksWaitingOnPrimitivesAreStalled(t *testing.T) {
	h := newHarness(t, false)
	fn, err := h.b.LoadString(`
		local a = pmacs.async
		local q = a.queue(1)
		a.run{name = "consumer", function() q:get() end}
		a.run{name = "locked", function() local s = a.semaphore(1); s:acquire(); s:acquire() end}
	`, "stall.lua")
	require.NoError(t, err)
	h.b.Spawn(fn)
	deadline := time.Now().Add(5 * time.Second)
	for !h.b.Stalled() {
		require.True(t, time.Now().Before(deadline), "never reported stalled")
		h.b.Frame()
		time.Sleep(time.Millisecond)
	}
	report := h.b.StallReport()
	require.Contains(t, report, `"consumer" waiting on a queue (0/1)`)
	require.Contains(t, report, `"locked" waiting on a semaphore (0/1 free)`)
	require.Contains(t, report, "joining", "the script's task waits for its children")
}

// pmacs.async.sleep holds no worker: 20,000 sleeping tasks leave the
// runtime without a pending job.
func TestSleepsHoldNoWorker(t *testing.T) {
	h := newHarness(t, false)
	fn, err := h.b.LoadString(`
		local a = pmacs.async
		for i = 1, 20000 do a.run(function() a.sleep(30) end) end
	`, "sleeps.lua")
	require.NoError(t, err)
	task := h.b.Spawn(fn)
	require.Equal(t, 0, h.rt.Stats().Pending, "no job for a sleep")
	require.Equal(t, 20001, h.b.Stats().Tasks)
	h.drive(t, 20*time.Second)
	require.NoError(t, task.Err())
}

// Cancelling a task from the task list (pmacs.async.cancel by id), and
// misuse raising clear errors.
func TestTaskListAndMisuse(t *testing.T) {
	h := newHarness(t, false)
	res := runTaskOK(t, h, `
		local a = pmacs.async
		local t = a.run{name = "listed", function() a.sleep(3600 * 1000) end}
		local found
		for _, info in ipairs(a.tasks()) do
			if info.name == "listed" then found = info end
		end
		assert(found and found.state == "waiting" and found.waiting == "sleep", "listed with what it waits on")
		assert(a.cancel(found.id) == true)
		local _, err = t:await()
		local errs = {}
		for _, f in ipairs({
			function() a.queue(0) end,
			function() a.run{name = 5, function() end} end,
			function() a.timeout("soon", print) end,
			function() a.all(7) end,
			function() local q = a.queue(1); q:put(nil) end,
			function() local f = a.future(); f:set(1); f:set(2) end,
			function() a.run(function() end):await{timeout = 1} end,
		}) do
			local ok, e = pcall(f)
			assert(not ok)
			errs[#errs + 1] = tostring(e)
		end
		return err, table.concat(errs, "\n")`)
	require.Equal(t, lua.LString("cancelled"), res[0])
	msgs := res[1].String()
	for _, want := range []string{
		"pmacs.async.queue: n (the most values it holds) must be at least 1",
		"pmacs.async.run: name must be a string",
		"pmacs.async.timeout: ms must be a number",
		"pmacs.async.all: expected a list",
		"q:put: a queue cannot hold nil",
		"f:set: the future is already completed",
		`task:await: unknown option "timeout"`,
	} {
		require.True(t, strings.Contains(msgs, want), "missing %q in:\n%s", want, msgs)
	}
}

// A stream left by break or by a return from inside its loop is cancelled
// at once, while the task goes on: a program's process group is stopped,
// nested loops' streams each end.
func TestStreamLeftByBreakOrReturnIsCancelled(t *testing.T) {
	h := newHarness(t, false)
	res := runTaskOK(t, h, `
		local w = pmacs.workers
		local function endless() return w.spawn{cmd = {"sh", "-c", "while :; do echo y; done"}} end
		local function first_batch(h)
			for batch in h:batches() do return #batch > 0 end
		end
		local p1 = endless()
		local got = first_batch(p1)
		local _, e1 = p1:await()

		local p2 = endless()
		for batch in p2:batches() do break end
		local _, e2 = p2:await()

		local outer, inner = w.emit_n(1e9, {max_batch = 1}), endless()
		local function nested()
			for a in outer:batches() do
				for b in inner:batches() do return "both" end
			end
		end
		local r = nested()
		local _, e3 = outer:await()
		local _, e4 = inner:await()
		return got, e1, e2, r, e3, e4`)
	require.Equal(t, []lua.LValue{lua.LTrue, lua.LString("cancelled"), lua.LString("cancelled"),
		lua.LString("both"), lua.LString("cancelled"), lua.LString("cancelled")}, res)
}

// SpawnMain (an init file): a job its task leaves running keeps running,
// where a task's own would be cancelled with it.
func TestSpawnMainLeavesItsJobsRunning(t *testing.T) {
	h := newHarness(t, false)
	fn, err := h.b.LoadString(`kept = pmacs.workers.sleep(30); owned = pmacs.async.run(function() return 1 end)`, "init.lua")
	require.NoError(t, err)
	main := h.b.SpawnMain(fn)
	h.drive(t, 10*time.Second)
	require.NoError(t, main.Err())
	res := runTaskOK(t, h, `return kept:await()`)
	require.Equal(t, lua.LTrue, res[0], "the sleep ran to its end")

	fn, err = h.b.LoadString(`cancelled = pmacs.workers.sleep(3600 * 1000)`, "task.lua")
	require.NoError(t, err)
	h.b.Spawn(fn)
	res = runTaskOK(t, h, `return cancelled:await()`)
	require.Equal(t, []lua.LValue{lua.LNil, lua.LString("cancelled")}, res, "a task's job ends with it")
}

// w.snapshot() lists the live tasks with the jobs each owns.
func TestSnapshotListsTasksAndTheirJobs(t *testing.T) {
	h := newHarness(t, false)
	res := runTaskOK(t, h, `
		local a, w = pmacs.async, pmacs.workers
		local job
		local t = a.run{name = "holder", function() job = w.sleep(3600 * 1000); job:await() end}
		local snap = w.snapshot()
		local row
		for _, info in ipairs(snap.tasks) do if info.name == "holder" then row = info end end
		t:cancel()
		return row.state, row.waiting, row.jobs[1] == job:id(), row.parent ~= nil`)
	require.Equal(t, lua.LString("waiting"), res[0])
	require.Contains(t, res[1].String(), "job ")
	require.Equal(t, lua.LTrue, res[2])
	require.Equal(t, lua.LTrue, res[3], "a child of the test's task")
}

// Cancelling a task tree reaches a language server request a child owns:
// the server receives $/cancelRequest for it.
func TestCancelledTaskSendsCancelRequest(t *testing.T) {
	h := lspHarness(t)
	res := runTaskOK(t, h, `
		local a = pmacs.async
		local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR})
		assert(c:request("test/echo", {}):await())
		local asked = a.future()
		local t = a.run(function()
			a.run(function()
				local h = c:request("textDocument/completion", {
					textDocument = {uri = "file:///x.go"}, position = {line = 1, character = 1}, delayMs = 60000,
				})
				asked:set(true)
				return h:await()
			end):await()
		end)
		asked:await()
		a.sleep(20)
		t:cancel("gone")
		local _, err = t:await()
		-- An empty list comes back as pmacs.array's empty array.
		local n = 0
		for i = 1, 200 do
			local ids = assert(c:request("test/cancels"):await())
			n = type(ids) == "table" and #ids or 0
			if n > 0 then break end
			a.sleep(5)
		end
		c:stop()
		return err, n`)
	require.Equal(t, lua.LString("cancelled: gone"), res[0])
	require.Equal(t, lua.LNumber(1), res[1], "one $/cancelRequest reached the server")
}

// Regressions found writing the Tasks chapter: a wait woken by e:set()
// returns true as one on a set event does; a child that fails before its
// parent's function returns fails the parent as soon as it returns,
// cancelling the other children (it used to wait for them all); and a
// task started inside a coroutine a task resumes is that task's child.
func TestEventWaitFailFastAndCoroutineChildren(t *testing.T) {
	h := newHarness(t, false)
	res := runTaskOK(t, h, `
		local a = pmacs.async
		local e = a.event()
		local waiter = a.run(function() return e:wait() end)
		e:set()
		local woke = waiter:await()

		local long
		local p = a.run(function()
			a.run(function() error("early") end)
			long = a.run(function() a.sleep(3600 * 1000) end)
			return "p"
		end)
		local v, err = p:await{timeout_ms = 2000}
		local long_state = long:state()

		local inner
		local t = a.run(function()
			coroutine.wrap(function() inner = a.run(function() a.sleep(3600 * 1000) end) end)()
			a.sleep(3600 * 1000)
		end)
		t:cancel()
		t:await()
		return woke, err, long_state, inner:state()`)
	require.Equal(t, lua.LTrue, res[0], "e:wait() woken by set")
	require.Contains(t, res[1].String(), "early", "the parent fails fast, not after an hour")
	require.Equal(t, lua.LString("cancelled"), res[2])
	require.Equal(t, lua.LString("cancelled"), res[3], "a task started in a coroutine of t is t's child")
}
