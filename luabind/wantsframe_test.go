package luabind

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// frameUntil runs frames, waking on replies or every millisecond, until
// cond holds or the deadline passes.
func (h *harness) frameUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !cond() {
		require.True(t, time.Now().Before(deadline), "waiting for %s\nstderr:\n%s", what, h.stderr.String())
		select {
		case <-h.rt.Ready():
		case <-tick.C:
		}
		h.b.Frame()
	}
}

// TestTaskParkedOnAQuietStreamWantsNoFrame covers the idle loop: a task
// iterating a watch that has nothing to say keeps the run alive (Busy) but
// gives a frame no work (WantsFrame is false), so a host may sleep; a change
// on disk then fires the runtime's Ready by itself, and the frames it wakes
// hand the change to the task.
func TestTaskParkedOnAQuietStreamWantsNoFrame(t *testing.T) {
	h := newHarness(t, false)
	dir := t.TempDir()
	h.b.L().SetGlobal("R", lua.LString(dir))
	fn, err := h.b.LoadString(`
		local w = pmacs.workers
		local h = w.watch{root = R}
		while h:progress() == 0 do w.sleep(1):await() end
		WATCHING = true
		for batch in h:batches() do
			for _, c in ipairs(batch) do
				if c.path == R .. "/new.txt" then SEEN = c.op end
			end
		end`, "watch.lua")
	require.NoError(t, err)
	task := h.b.Spawn(fn)
	h.frameUntil(t, "the watch's first scan", func() bool { return h.b.L().GetGlobal("WATCHING") == lua.LTrue })
	h.frameUntil(t, "the task to park on the stream", func() bool { return !h.b.WantsFrame() })
	require.False(t, task.Done())
	require.True(t, h.b.Busy(), "the run is not over: a task iterates the watch")
	require.False(t, h.b.WantsFrame(), "a task parked on a quiet stream is no frame's work")
	require.False(t, h.rt.Pending())

	// Drain a token a frame may have left, so that only the change can
	// fire Ready below.
	select {
	case <-h.rt.Ready():
		h.b.Frame()
	default:
	}
	require.False(t, h.b.WantsFrame())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "new.txt"), []byte("x"), 0o644))
	select {
	case <-h.rt.Ready():
	case <-time.After(20 * time.Second):
		t.Fatal("a change on disk did not wake the loop")
	}
	h.frameUntil(t, "the change delivered", func() bool { return h.b.L().GetGlobal("SEEN") != lua.LNil })
	require.Contains(t, []string{"create", "write"}, h.b.L().GetGlobal("SEEN").String())
}

// TestSleepingTaskWantsAFrameWhenDue covers timers under WantsFrame: a task
// in pmacs.async.sleep gives no frame work until its time, and NextTimer
// says when that is, so an idle host knows how long it may sleep.
func TestSleepingTaskWantsAFrameWhenDue(t *testing.T) {
	h := newHarness(t, false)
	fn, err := h.b.LoadString(`pmacs.async.sleep(30) DONE = true`, "sleep.lua")
	require.NoError(t, err)
	h.b.Spawn(fn)
	at, ok := h.b.NextTimer()
	require.True(t, ok)
	if time.Now().Before(at) {
		require.False(t, h.b.WantsFrame(), "nothing to do before the sleep ends")
	}
	deadline := time.Now().Add(20 * time.Second)
	for !h.b.WantsFrame() {
		require.True(t, time.Now().Before(deadline), "the sleep never became due")
		time.Sleep(time.Millisecond) // the host's idle wait, on this goroutine: the binding's
	}
	require.False(t, time.Now().Before(at), "wanted a frame before the timer was due")
	h.b.Frame()
	require.Equal(t, lua.LTrue, h.b.L().GetGlobal("DONE"))
	require.False(t, h.b.WantsFrame())
	require.False(t, h.b.Busy())
}
