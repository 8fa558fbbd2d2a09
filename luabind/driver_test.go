package luabind

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/kinds/textsearch"
	"github.com/pmacs-go/pmacs-go/lsp"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// TestAwaitCyclesLeaveNothingParked proves the driver's bookkeeping: 10,000
// await cycles (100 tasks awaiting 100 jobs each) leave no parked coroutine,
// no queued resumption and no pending job, in the binding or the runtime.
func TestAwaitCyclesLeaveNothingParked(t *testing.T) {
	h := newHarness(t, false)
	task := h.run(t, `
		local w = pmacs.workers
		local ts = {}
		for i = 1, 100 do
			ts[i] = pmacs.async.run(function()
				local acc = 0
				for j = 1, 100 do acc = acc + w.sum(j):await() end
				return acc
			end)
		end
		for i = 1, 100 do assert(ts[i]:await() == 171700) end
		return "ok"
	`)
	require.NoError(t, task.Err(), h.stderr.String())
	require.Equal(t, lua.LString("ok"), task.Results()[0])
	require.Zero(t, h.b.Stats().Tasks)
	require.Empty(t, h.b.threads, "no parked coroutine")
	require.Empty(t, h.b.run)
	require.Empty(t, h.b.next)
	require.Zero(t, h.b.Stats().Jobs)
	require.Zero(t, h.rt.Stats().Pending)
	require.LessOrEqual(t, len(h.b.pool.idle), minIdleThreads, "101 tasks at most were alive: the pool keeps no more than its floor")
}

// TestTaskErrorShowsTracebackAndOthersKeepRunning proves that an error in a
// task stops only that task and reaches a task that awaits it as nil, err,
// with its traceback from task:traceback(); an error a task collects is
// never also reported as unhandled.
func TestTaskErrorShowsTracebackAndOthersKeepRunning(t *testing.T) {
	h := newHarness(t, false)
	task := h.run(t, `
		local w = pmacs.workers
		local function inner() w.sleep(1):await(); error("deep failure") end
		local function outer() inner() end
		local bad = pmacs.async.run(outer)
		local good = pmacs.async.run(function() w.sleep(10):await(); return "alive" end)
		local v, err = bad:await()
		assert(v == nil and err:find("deep failure"))
		return good:await(), bad:traceback()
	`)
	require.NoError(t, task.Err())
	require.Equal(t, lua.LString("alive"), task.Results()[0])
	trace := task.Results()[1].String()
	require.Contains(t, trace, "stack traceback:")
	require.Contains(t, trace, "test.lua:3: in function 'inner'")
	require.Contains(t, trace, "test.lua:4: in task function <test.lua:4>")
	require.Empty(t, h.stderr.String(), "the error was collected by await: nothing is reported")
	require.Empty(t, h.b.TakeFailed(), "the error was collected by await")
}

// TestUncollectedTaskErrorIsReported proves a task error that nobody awaits
// fails the parent (its traceback naming the child), and that the failure
// of a task without a parent (a root, or a detached child) stays visible to
// the runner through TakeFailed, once.
func TestUncollectedTaskErrorIsReported(t *testing.T) {
	h := newHarness(t, false)
	task := h.run(t, `pmacs.async.run{function() error("lost") end, name = "loser"}`)
	require.ErrorContains(t, task.Err(), "lost", "the child's error fails its parent")
	var te *TaskError
	require.ErrorAs(t, task.Err(), &te)
	require.Contains(t, te.Traceback, "in function 'error'")
	require.Contains(t, te.Traceback, "in child task loser")
	failed := h.b.TakeFailed()
	require.Equal(t, []*Task{task}, failed, "only the root's failure is reported")
	require.Equal(t, 1, strings.Count(h.stderr.String(), "pmacs: task failed"), h.stderr.String())

	detached := h.run(t, `pmacs.async.run(function() pmacs.async.sleep(1); error("on its own") end):detach()`)
	require.NoError(t, detached.Err(), "a detached child's error is not its parent's")
	failed = h.b.TakeFailed()
	require.Len(t, failed, 1)
	require.ErrorContains(t, failed[0].Err(), "on its own")
}

// TestWaitOutsideTaskRaises proves await and batches called on the main
// state, outside any task, raise the error that names pmacs.async.run.
func TestWaitOutsideTaskRaises(t *testing.T) {
	h := newHarness(t, false)
	L := h.b.L()
	for _, src := range []string{
		`pmacs.workers.sleep(1):await()`,
		`for b in pmacs.workers.emit_n(3):batches() do end`,
		`pmacs.async.run(function() pmacs.workers.sleep(5):await() end):await()`,
	} {
		err := L.DoString(src)
		require.Error(t, err, src)
		require.Contains(t, err.Error(), "must be called inside a task; use pmacs.async.run", src)
	}
	h.drive(t, 5*time.Second)
}

// TestWaitInUnrewrittenForLoopRaises proves the nesting check covers a
// for-in loop compiled without the binding's rewrite: gopher-lua calls its
// iterator from inside the VM, with no Go function on the Lua stack.
func TestWaitInUnrewrittenForLoopRaises(t *testing.T) {
	h := newHarness(t, false)
	fn, err := h.b.L().LoadString(`
		local h = pmacs.workers.emit_n(3)
		for b in h:batches() do end
	`)
	require.NoError(t, err)
	task := h.b.Spawn(fn)
	h.drive(t, 5*time.Second)
	require.Error(t, task.Err())
	require.Contains(t, task.Err().Error(), "h:batches cannot wait inside a metamethod, or a for-in loop of a chunk not loaded through pmacs")
}

// TestNestingDetectorKnowsGopherLua pins the gopher-lua internals the
// nesting check reads: a wait called straight from a task sees exactly one
// VM loop, and one under pcall sees two.
func TestNestingDetectorKnowsGopherLua(t *testing.T) {
	h := newHarness(t, false)
	var direct, nested int
	h.b.L().SetGlobal("probe", h.b.L().NewFunction(func(L *lua.LState) int {
		if L.ToBool(1) {
			nested = h.b.stack.vmLoops()
		} else {
			direct = h.b.stack.vmLoops()
		}
		return 0
	}))
	task := h.run(t, `probe(false); pcall(probe, true)`)
	require.NoError(t, task.Err())
	require.Equal(t, 1, direct)
	require.Equal(t, 2, nested)
}

// TestSafeModeLeavesOutIoAndOs proves --safe's library set.
func TestSafeModeLeavesOutIoAndOs(t *testing.T) {
	h := newHarness(t, true)
	task := h.run(t, `
		assert(io == nil and os == nil and debug == nil and package == nil and channel == nil)
		assert(string and table and math and coroutine and pmacs.workers and pmacs.async)
		return pmacs.workers.sum(3):await()
	`)
	require.NoError(t, task.Err(), h.stderr.String())
	require.Equal(t, lua.LNumber(6), task.Results()[0])

	full := newHarness(t, false)
	task = full.run(t, `assert(io and os and debug and package); assert(channel == nil)`)
	require.NoError(t, task.Err(), full.stderr.String())
}

// TestPrintWritesToStdout proves print goes to the configured writer.
func TestPrintWritesToStdout(t *testing.T) {
	h := newHarness(t, true)
	task := h.run(t, `print("a", 1, nil, true)`)
	require.NoError(t, task.Err())
	require.Equal(t, "a\t1\tnil\ttrue\n", h.stdout.String())
}

// TestFinishedTaskThreadsAreReused proves a task's thread returns to the
// pool when it ends normally, so spawning is not paying for new threads.
func TestFinishedTaskThreadsAreReused(t *testing.T) {
	h := newHarness(t, false)
	fn, err := h.b.LoadString(`return 1`, "empty.lua")
	require.NoError(t, err)
	first := h.b.Spawn(fn)
	require.True(t, first.Done())
	require.Len(t, h.b.pool.idle, 1)
	th := h.b.pool.idle[0]
	second := h.b.Spawn(fn)
	require.True(t, second.Done())
	require.Equal(t, lua.LNumber(1), second.Results()[0])
	require.Len(t, h.b.pool.idle, 1)
	require.Same(t, th, h.b.pool.idle[0], "the same thread served both tasks")
}

// TestAdoptedExternalJobIsAwaitable proves a job the editor registered
// itself can be handed to Lua and awaited, with its value converted.
func TestAdoptedExternalJobIsAwaitable(t *testing.T) {
	h := newHarness(t, false)
	id, _ := h.rt.RegisterExternal(lsp.RequestKind, "")
	handle, err := h.b.Adopt(id)
	require.NoError(t, err)
	_, err = h.b.Adopt(id)
	require.ErrorIs(t, err, ErrUnknownJob)
	fn, err := h.b.LoadString(`local h = ...; local v = h:await(); return v.name, v.items[2]`, "adopt.lua")
	require.NoError(t, err)
	task := h.b.Spawn(fn, handle)
	require.NoError(t, h.rt.CompleteExternalOK(id, map[string]any{"name": "x", "items": []any{1, 2}}))
	h.drive(t, 5*time.Second)
	require.NoError(t, task.Err())
	require.Equal(t, []lua.LValue{lua.LString("x"), lua.LNumber(2)}, task.Results())
}

// An adopted text search is a stream handle: its matches can be iterated.
// Adopt asked the runtime whether a job streams instead of listing the
// stream kinds, a list that had forgotten text search.
func TestAdoptedTextSearchIsAStream(t *testing.T) {
	h := newHarness(t, false)
	snap := textsearch.NewSnapshot([]string{"a foo", "foo foo"})
	id := textsearch.Dispatch(h.rt, textsearch.Spec{Text: snap, Pattern: "foo"}, runtime.DispatchOptions{})
	handle, err := h.b.Adopt(id)
	require.NoError(t, err)
	fn, err := h.b.LoadString(`local h = ...
		local n = 0
		for batch in h:batches() do n = n + #batch end
		return n`, "adopt_search.lua")
	require.NoError(t, err)
	task := h.b.Spawn(fn, handle)
	h.drive(t, 5*time.Second)
	require.NoError(t, task.Err())
	require.Equal(t, []lua.LValue{lua.LNumber(9)}, task.Results(), "three matches, three integers each")
}

// TestCloseCancelsJobsAndDropsTasks proves Close leaves nothing running:
// the binding's jobs are cancelled in the runtime.
func TestCloseCancelsJobsAndDropsTasks(t *testing.T) {
	h := newHarness(t, false)
	fn, err := h.b.LoadString(`pmacs.workers.sleep(60000):await()`, "close.lua")
	require.NoError(t, err)
	task := h.b.Spawn(fn)
	require.False(t, task.Done())
	h.b.Close()
	require.False(t, h.b.Busy())
	deadline := time.Now().Add(5 * time.Second)
	for len(h.rt.Snapshot().Completed) == 0 {
		require.True(t, time.Now().Before(deadline), "the sleep was not cancelled")
		h.rt.Tick()
		time.Sleep(time.Millisecond)
	}
	require.Equal(t, runtime.Cancelled, h.rt.Snapshot().Completed[0].State)
}

// TestFrameBudgetDefersResumptionsInOrder proves a frame budget bounds one
// frame's resumptions and the rest run next frame, none lost.
func TestFrameBudgetDefersResumptionsInOrder(t *testing.T) {
	h := newHarness(t, false)
	h.b.budget = time.Nanosecond
	fn, err := h.b.LoadString(`local h, out, i = ...; h:await(); out[#out + 1] = i`, "budget.lua")
	require.NoError(t, err)
	id, _ := h.rt.RegisterExternal(lsp.RequestKind, "")
	handle, err := h.b.Adopt(id)
	require.NoError(t, err)
	out := h.b.L().NewTable()
	for i := 1; i <= 200; i++ {
		h.b.Spawn(fn, handle, out, lua.LNumber(i))
	}
	require.NoError(t, h.rt.CompleteExternalOK(id, true))
	deadline := time.Now().Add(5 * time.Second)
	var frames int
	for out.Len() < 200 {
		require.True(t, time.Now().Before(deadline))
		fs := h.b.Frame()
		if fs.Resumed > 0 {
			frames++
			require.LessOrEqual(t, fs.Resumed, 64, "the budget bounds a frame's resumptions")
		}
	}
	require.Greater(t, frames, 1)
	for i := 1; i <= 200; i++ {
		require.Equal(t, lua.LNumber(i), out.RawGetInt(i), "resumed in settle order")
	}
	require.False(t, h.b.Busy())
}
