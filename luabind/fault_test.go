package luabind

import (
	"testing"
	"time"

	"github.com/pmacs-go/pmacs-go/runtime"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// Lua faults (issue 8). Proved elsewhere, not repeated here: a task error is
// reported with its traceback and stops only that task
// (TestTaskErrorShowsTracebackAndOthersKeepRunning), an error nobody
// collects reaches the runner (TestUncollectedTaskErrorIsReported), tasks
// that wait on each other are reported as stalled by the headless runner
// (cmd/demo-editor TestHeadlessStalledTasksExitOne).

// A task that raises, a task that yields forever, and a task that waits on
// a job that never ends (an hour's sleep) do not stop the frame loop: other
// tasks dispatch and complete meanwhile, the never-ending job is cancellable
// from another task (its waiter gets nil, "cancelled"), and Close drops the
// task that never finishes, cancelling its jobs, so nothing stays running.
func TestFaultyTasksLeaveTheFrameLoopRunning(t *testing.T) {
	h := newHarness(t, true)
	b := h.b
	load := func(src string) *lua.LFunction {
		fn, err := b.LoadString(src, "fault.lua")
		require.NoError(t, err)
		return fn
	}
	raiser := b.Spawn(load(`pmacs.workers.sleep(1):await(); error("task blew up")`))
	spinner := b.Spawn(load(`while true do coroutine.yield() end`))
	waiter := b.Spawn(load(`
		local h = pmacs.workers.sleep(3600 * 1000)
		waiting_id = h:id()
		local v, err = h:await()
		return v, err`))
	spinnerJob := b.Spawn(load(`
		local h = pmacs.workers.sleep(3600 * 1000)
		while true do coroutine.yield() end`))

	// Meanwhile ordinary work goes on, frame after frame.
	worker := b.Spawn(load(`
		local total = 0
		for i = 1, 20 do total = total + pmacs.workers.sum(i):await() end
		local n = 0
		for batch in pmacs.workers.emit_n(5000, {max_batch = 100}):batches() do n = n + #batch end
		return total, n`))
	deadline := time.Now().Add(10 * time.Second)
	for !worker.Done() {
		require.True(t, time.Now().Before(deadline), "ordinary work did not complete beside faulty tasks")
		select {
		case <-h.rt.Ready():
		case <-time.After(time.Millisecond):
		}
		b.Frame()
	}
	require.NoError(t, worker.Err())
	require.Equal(t, []lua.LValue{lua.LNumber(1540), lua.LNumber(5000)}, worker.Results())

	require.True(t, raiser.Done())
	require.ErrorContains(t, raiser.Err(), "task blew up")
	require.Len(t, b.TakeFailed(), 1, "the error is reported, once")
	require.False(t, spinner.Done())
	require.False(t, waiter.Done())

	// The never-ending job is cancellable from another task.
	canceller := b.Spawn(load(`pmacs.workers.cancel(waiting_id)`))
	require.True(t, canceller.Done())
	for !waiter.Done() {
		require.True(t, time.Now().Before(deadline), "cancelled wait did not return")
		select {
		case <-h.rt.Ready():
		case <-time.After(time.Millisecond):
		}
		b.Frame()
	}
	require.NoError(t, waiter.Err())
	require.Equal(t, []lua.LValue{lua.LNil, lua.LString("cancelled")}, waiter.Results())

	// What never finishes is dropped by Close, and its job cancelled.
	require.Equal(t, 2, b.Stats().Tasks)
	require.Equal(t, 1, b.Stats().Jobs)
	b.Close()
	require.False(t, spinnerJob.Done(), "Close drops a task, it does not finish it")
	deadline = time.Now().Add(5 * time.Second)
	for h.rt.Stats().Pending > 0 {
		require.True(t, time.Now().Before(deadline), "the dropped task's job was not cancelled")
		for _, id := range h.rt.Tick().Settled {
			o, _ := h.rt.TakeResult(id)
			require.Equal(t, runtime.Cancelled, o.State, "job %d", id)
		}
		select {
		case <-h.rt.Ready():
		case <-time.After(time.Millisecond):
		}
	}
}

// Tasks that wait on each other while one of them iterates a stream are
// reported as stalled. The stream is held for the iterating task, so it
// never ends: counting it as a pending job kept Stalled false for ever, and
// a headless run hung instead of reporting the cycle.
func TestTasksWaitingOnEachOtherBesideAHeldStreamAreStalled(t *testing.T) {
	h := newHarness(t, true)
	fn, err := h.b.LoadString(`
		local h = pmacs.workers.emit_n(300000, {max_batch = 512})
		local a
		local b = pmacs.async.run(function()
			pmacs.workers.sleep(1):await()
			return a:await()
		end)
		a = pmacs.async.run(function()
			for batch in h:batches() do b:await() end
		end)
	`, "cycle.lua")
	require.NoError(t, err)
	h.b.Spawn(fn)
	deadline := time.Now().Add(10 * time.Second)
	for !h.b.Stalled() {
		require.True(t, time.Now().Before(deadline), "never reported stalled: %d tasks, %d jobs", h.b.Stats().Tasks, h.b.Stats().Jobs)
		select {
		case <-h.rt.Ready():
		case <-time.After(time.Millisecond):
		}
		h.b.Frame()
	}
	// a and b, and the script's task, which waits for its children.
	require.Equal(t, 3, h.b.Stats().Tasks)
}
