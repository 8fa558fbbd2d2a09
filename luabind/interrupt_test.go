package luabind

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// A task stuck in a loop that never waits freezes its frame until Interrupt,
// called from another goroutine as a terminal reader would, stops it with
// an "interrupted" error and a traceback; the other tasks and later frames
// go on.
func TestInterruptStopsARunawayTask(t *testing.T) {
	h := newHarness(t, false)
	fn, err := h.b.LoadString(`
		local function spin() local n = 0; while true do n = n + 1 end end
		spin()
	`, "runaway.lua")
	require.NoError(t, err)
	steady, err := h.b.LoadString(`return pmacs.workers.sum(10):await()`, "steady.lua")
	require.NoError(t, err)
	other := h.b.Spawn(steady)

	stop := make(chan struct{})
	go func() {
		select {
		case <-time.After(50 * time.Millisecond):
			h.b.Interrupt()
		case <-stop:
		}
	}()
	runaway := h.b.Spawn(fn) // runs until it is interrupted
	close(stop)
	require.True(t, runaway.Done())
	require.Error(t, runaway.Err())
	require.Contains(t, runaway.Err().Error(), "interrupted")
	require.NotContains(t, runaway.Err().Error(), "context canceled")
	require.ErrorIs(t, runaway.Err(), ErrInterrupted)
	var ae *lua.ApiError
	require.ErrorAs(t, runaway.Err(), &ae)
	require.Contains(t, h.stderr.String(), "runaway.lua")
	h.b.TakeFailed()

	h.drive(t, 5*time.Second)
	require.True(t, other.Done())
	require.NoError(t, other.Err())
	again := h.run(t, `return pmacs.workers.sum(3):await()`)
	require.NoError(t, again.Err(), "a fresh context serves later tasks")
}

// Protect makes the embedder's own calls into the main state (a key
// binding, say) interruptible too, and tasks a protected call starts still
// run normally.
func TestProtectMakesMainStateCallsInterruptible(t *testing.T) {
	h := newHarness(t, false)
	L := h.b.L()
	require.NoError(t, L.DoString(`
		function spin() while true do end end
		function start() return pmacs.async.run(function() return pmacs.workers.sum(4):await() end) end
	`))
	go func() {
		time.Sleep(50 * time.Millisecond)
		h.b.Interrupt()
	}()
	err := h.b.Protect(func() error { return L.DoString(`spin()`) })
	require.ErrorContains(t, err, "interrupted")
	require.ErrorIs(t, err, ErrInterrupted)
	require.Nil(t, L.Context(), "Protect leaves the main state as it found it")

	var task lua.LValue
	require.NoError(t, h.b.Protect(func() error {
		if err := L.CallByParam(lua.P{Fn: L.GetGlobal("start"), NRet: 1, Protect: true}); err != nil {
			return err
		}
		task = L.Get(-1)
		L.Pop(1)
		return nil
	}))
	h.drive(t, 5*time.Second)
	require.Equal(t, lua.LTUserData, task.Type())
}

// The context Interrupt cancels keeps the context contract: Err is
// context.Canceled, the reason is the cause.
func TestInterruptContextKeepsContextContract(t *testing.T) {
	h := newHarness(t, false)
	ctx := h.b.runContext()
	h.b.Interrupt()
	<-ctx.Done()
	require.Equal(t, context.Canceled, ctx.Err())
	require.Equal(t, ErrInterrupted, context.Cause(ctx))
	require.NoError(t, h.b.runContext().Err(), "a fresh context serves the next resume")
}

// A script's own error that happens to read "context canceled" is not an
// interrupt and is left alone.
func TestOwnContextCanceledErrorIsNotInterrupt(t *testing.T) {
	h := newHarness(t, false)
	err := h.b.Protect(func() error { return h.b.L().DoString(`error("context canceled")`) })
	require.ErrorContains(t, err, "context canceled")
	require.NotErrorIs(t, err, ErrInterrupted)
}
