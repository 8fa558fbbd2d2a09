package luabind

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// TestBurstOfTasksReusesItsThreads proves a burst of tasks larger than the
// pool's floor leaves its threads pooled, so the next burst of the same
// size makes no new thread (and none of the garbage a new thread makes).
func TestBurstOfTasksReusesItsThreads(t *testing.T) {
	const burst = 1000
	h := newHarness(t, false)
	fn, err := h.b.LoadString(`return pmacs.workers.sleep(1):await()`, "burst.lua")
	require.NoError(t, err)
	spawnAll := func() {
		for range burst {
			h.b.Spawn(fn)
		}
		require.Equal(t, burst, h.b.Stats().Tasks, "the whole burst is alive at once")
		h.drive(t, 20*time.Second)
	}
	spawnAll()
	require.Len(t, h.b.pool.idle, burst, "every thread of the burst is kept")
	first := make(map[*lua.LState]bool, burst)
	for _, th := range h.b.pool.idle {
		require.True(t, th.Dead, "an idle thread reads as a finished coroutine")
		first[th] = true
	}
	spawnAll()
	require.Len(t, h.b.pool.idle, burst)
	for _, th := range h.b.pool.idle {
		require.True(t, first[th], "the second burst ran on the first burst's threads")
	}
}

// TestThreadPoolLetsGoAfterQuietWindows proves the pool keeps a burst's
// threads through the window after it and gives back all but its floor
// once a whole window passes without such a burst.
func TestThreadPoolLetsGoAfterQuietWindows(t *testing.T) {
	const burst = 5000
	var p threadPool
	t0 := time.Unix(1000, 0)
	p.age(t0, 0)
	p.saw(burst)
	for range burst + 10 {
		p.put(new(lua.LState))
	}
	require.Len(t, p.idle, burst, "no more than the peak is kept")

	p.age(t0.Add(idleWindow/2), 0)
	require.Len(t, p.idle, burst, "the window has not passed")
	p.age(t0.Add(idleWindow), 3)
	require.Len(t, p.idle, burst, "the peak of the window before still counts")
	p.age(t0.Add(2*idleWindow), 3)
	require.Len(t, p.idle, minIdleThreads, "a quiet window: back to the floor")
	require.LessOrEqual(t, cap(p.idle), 2*minIdleThreads, "the burst's slots are given back too")
	require.NotNil(t, p.get())
	require.Len(t, p.idle, minIdleThreads-1)
}

// TestThreadPoolHasACeiling proves no burst makes the pool keep more than
// maxIdleThreads.
func TestThreadPoolHasACeiling(t *testing.T) {
	var p threadPool
	p.saw(10 * maxIdleThreads)
	require.Equal(t, maxIdleThreads, p.limit())
	p.saw(1)
	require.Equal(t, maxIdleThreads, p.limit(), "the peak stays for its window")
	var q threadPool
	require.Equal(t, minIdleThreads, q.limit())
	require.Nil(t, q.get(), "an empty pool has nothing to give")
}

// TestFinishedTaskCoroutineIsDead proves a script that kept a finished
// task's coroutine sees it dead, though its thread waits in the pool.
func TestFinishedTaskCoroutineIsDead(t *testing.T) {
	h := newHarness(t, false)
	task := h.run(t, `
		local done
		pmacs.async.run(function() done = coroutine.running() end)
		return coroutine.status(done)`)
	require.NoError(t, task.Err(), h.stderr.String())
	require.Equal(t, []lua.LValue{lua.LString("dead")}, task.Results())
}
