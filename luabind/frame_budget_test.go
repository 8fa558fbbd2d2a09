package luabind

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/lsp"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// With a frame budget the frame's tick is bounded too: a frame whose time is
// spent leaves the rest of the replies with the runtime, which reports them
// pending and re-arms Ready, and later frames settle them in arrival order,
// each once, with every task resumed once in that order.
func TestFrameBudgetBoundsTick(t *testing.T) {
	const tasks = 300
	h := newHarness(t, false)
	// A budget spent before the frame starts: each frame applies the
	// fewest replies a tick applies between two looks at the clock.
	h.b.budget = time.Nanosecond
	require.NoError(t, h.b.ls.DoString(`order = {}`))
	fn, err := h.b.LoadString(`local h, i = ...; local v = h:await(); order[#order+1] = i * 1000 + v`, "budget.lua")
	require.NoError(t, err)
	ids := make([]runtime.JobID, tasks)
	for i := range ids {
		id, _ := h.rt.RegisterExternal(lsp.RequestKind, "")
		handle, err := h.b.Adopt(id)
		require.NoError(t, err)
		h.b.Spawn(fn, handle, lua.LNumber(i))
		ids[i] = id
	}
	h.b.Frame() // every task runs to its await
	for i, id := range ids {
		require.NoError(t, h.rt.CompleteExternalOK(id, int64(i%7)))
	}

	fs := h.b.Frame()
	require.Len(t, fs.Tick.Settled, 64)
	require.True(t, h.rt.Pending(), "the frame's time was spent: replies are left")
	select {
	case <-h.rt.Ready():
	default:
		t.Fatal("replies are left but Ready holds no token: the loop would sleep")
	}
	settled := fs.Tick.Settled
	frames := 1
	for h.b.Busy() {
		require.Less(t, frames, tasks, "frames make no progress")
		settled = append(settled, h.b.Frame().Tick.Settled...)
		frames++
	}
	require.Equal(t, ids, settled)
	require.False(t, h.rt.Pending())
	require.Greater(t, frames, 4, "one frame did the work of several")

	order := h.b.ls.GetGlobal("order").(*lua.LTable)
	require.Equal(t, tasks, order.Len())
	for i := range tasks {
		require.Equal(t, lua.LNumber(i*1000+i%7), order.RawGetInt(i+1), "task %d", i)
	}
	require.Zero(t, h.b.Stats().Tasks)
}

// A frame whose budget is already spent when its resumptions start runs one
// of them, so tasks always progress, and then stops: the clock is read right
// after the first, where reading it every 64 let a tick that had spent the
// whole budget be followed by 63 more tasks.
func TestFrameBudgetSpentResumesOne(t *testing.T) {
	const tasks = 20
	h := newHarness(t, false)
	h.b.budget = time.Nanosecond
	fn, err := h.b.LoadString(`local h, out, i = ...; h:await(); out[#out + 1] = i`, "spent.lua")
	require.NoError(t, err)
	id, _ := h.rt.RegisterExternal(lsp.RequestKind, "")
	handle, err := h.b.Adopt(id)
	require.NoError(t, err)
	out := h.b.L().NewTable()
	for i := 1; i <= tasks; i++ {
		h.b.Spawn(fn, handle, out, lua.LNumber(i))
	}
	require.NoError(t, h.rt.CompleteExternalOK(id, true))
	var resumed []int
	for h.b.Busy() {
		require.Less(t, len(resumed), 2*tasks, "frames make no progress")
		resumed = append(resumed, h.b.Frame().Resumed)
	}
	for i, n := range resumed {
		require.LessOrEqual(t, n, 1, "frame %d resumed %d tasks with its budget spent", i, n)
	}
	require.Equal(t, tasks, out.Len())
	for i := 1; i <= tasks; i++ {
		require.Equal(t, lua.LNumber(i), out.RawGetInt(i), "resumed in settle order")
	}
}

// A budgeted frame that stops early leaves its queue where it is, and once
// the queue is empty it starts again at the front of its array: a burst of
// resumptions over many frames ends with the queue's whole room, so the
// next burst appends without copying. (Left resliced, the room shrank by
// what each partial frame resumed, and every burst grew a new array.)
func TestResumeQueueKeepsItsRoomAcrossBursts(t *testing.T) {
	const tasks = 300
	h := newHarness(t, false)
	fn, err := h.b.LoadString(`local h = ...; h:await()`, "burst.lua")
	require.NoError(t, err)
	burst := func() {
		ids := make([]runtime.JobID, tasks)
		for i := range ids {
			id, _ := h.rt.RegisterExternal(lsp.RequestKind, "")
			handle, err := h.b.Adopt(id)
			require.NoError(t, err)
			h.b.Spawn(fn, handle)
			ids[i] = id
		}
		h.b.budget = 0
		h.b.Frame() // every task runs to its await
		for _, id := range ids {
			require.NoError(t, h.rt.CompleteExternalOK(id, 1))
		}
		h.b.budget = time.Nanosecond // one resumption a frame
		frames := 0
		for h.b.Busy() {
			require.Less(t, frames, 10*tasks, "frames make no progress")
			h.b.Frame()
			frames++
		}
		require.Greater(t, frames, tasks/2, "the burst ran in a few frames: nothing was deferred")
	}
	burst()
	room := cap(h.b.run)
	require.GreaterOrEqual(t, room, tasks)
	burst()
	require.Equal(t, room, cap(h.b.run), "the emptied queue starts again at the front of its array")
}
