package luabind

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// A stream whose task takes its batches slowly never has more than one
// batch waiting in the binding: the rest stay in the runtime against the
// stream's credit, so the producer waits instead of memory growing
// (issue 2 flow control, carried through to Lua).
func TestSlowConsumerLeavesItemsInTheRuntime(t *testing.T) {
	h := newHarness(t, false)
	fn, err := h.b.LoadString(`
		local h = pmacs.workers.emit_n(200000, {max_batch = 100})
		local n, last = 0, 0
		for batch in h:batches() do
			n = n + #batch
			last = batch[#batch]
			pmacs.workers.sleep(1):await() -- a consumer slower than its producer
			if n >= 2000 then h:cancel() end
		end
		local v, err = h:await()
		assert(v == nil and err == "cancelled", tostring(err))
		assert(last == n, "items arrive in order")
	`, "slow.lua")
	require.NoError(t, err)
	task := h.b.Spawn(fn)
	deadline := time.Now().Add(20 * time.Second)
	for !task.Done() {
		require.True(t, time.Now().Before(deadline), "slow consumer did not finish; stderr: %s", h.stderr.String())
		select {
		case <-h.rt.Ready():
		case <-time.After(time.Millisecond):
		}
		h.b.Frame()
		for _, j := range h.b.jobs {
			require.LessOrEqual(t, len(j.queue), 1, "batches piling up in the binding")
		}
	}
	require.NoError(t, task.Err())
}

// Awaiting a stream that nobody iterates returns its outcome instead of
// stalling on a full credit: the items are dropped as they come.
func TestAwaitWithoutIteratingDoesNotStall(t *testing.T) {
	rt, err := runtime.New(runtime.Options{StreamCredit: 64})
	require.NoError(t, err)
	b, err := New(rt, Options{})
	require.NoError(t, err)
	t.Cleanup(func() { b.Close(); rt.Close() })
	h := &harness{rt: rt, b: b}
	task := h.run(t, `
		local v, err = pmacs.workers.emit_n(5000, {max_batch = 10}):await()
		assert(v == true, tostring(err))
	`)
	require.NoError(t, task.Err())
}

// A task that stops iterating a stream (it fails, or returns from inside
// the loop) no longer holds the stream in the runtime: the stream runs to
// its end and the binding becomes idle.
func TestIteratingTaskEndingReleasesTheStream(t *testing.T) {
	h := newHarness(t, false)
	task := h.run(t, `
		local h = pmacs.workers.emit_n(3000, {max_batch = 10})
		for batch in h:batches() do
			return #batch -- leaves after the first batch
		end
	`)
	require.NoError(t, task.Err())
	require.Zero(t, h.b.Stats().Jobs, "the stream ran to its end")

	failing := h.run(t, `
		local h = pmacs.workers.emit_n(3000, {max_batch = 10})
		for batch in h:batches() do error("stop here") end
	`)
	require.Error(t, failing.Err())
	h.b.TakeFailed()
	require.Zero(t, h.b.Stats().Jobs)
}
