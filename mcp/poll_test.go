//go:build linux

package mcp

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/mcp/mcptest"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/workers"
)

// A Poll whose budget is spent hands over one call at least and leaves
// the rest, which go first at the next Poll, before calls that finished
// meanwhile, and signals Ready for them.
func TestHostPollStopsAtItsBudgetInOrder(t *testing.T) {
	rt, err := runtime.New(runtime.Options{Executor: workers.Config{PoolSize: 1}})
	require.NoError(t, err)
	defer rt.Close()
	h := NewHost(rt)
	var ids []runtime.JobID
	for range 4 {
		id, _ := rt.RegisterExternal(RequestKind, "")
		ids = append(ids, id)
		h.settle(settlement{id: id, state: runtime.Complete})
	}
	<-h.Ready()
	require.Equal(t, 1, h.Poll(time.Nanosecond), "a spent budget still hands over one call")
	select {
	case <-h.Ready():
	default:
		t.Fatal("calls are left and Ready was not signalled")
	}
	require.Equal(t, ids[:1], rt.Tick().Settled)

	late, _ := rt.RegisterExternal(RequestKind, "")
	h.settle(settlement{id: late, state: runtime.Complete})
	require.Equal(t, 4, h.Poll(time.Minute))
	require.Equal(t, append(ids[1:], late), rt.Tick().Settled, "what was left goes first")
	require.Zero(t, h.Poll(0))
}

// A Host registered with the runtime is polled by Tick: the loop only
// ticks and waits on the runtime's Ready. Once removed, Tick no longer
// hands its finished calls over; a Poll of its own still does.
func TestHostRegisteredWithRuntimeIsPolledByTick(t *testing.T) {
	rt, err := runtime.New(runtime.Options{Executor: workers.Config{PoolSize: 2}})
	require.NoError(t, err)
	h := NewHost(rt)
	t.Cleanup(func() {
		require.NoError(t, h.Close())
		rt.Close()
		requireNoChildren(t)
	})
	remove := rt.AddPoller(h)
	c := connect(t, h, mcptest.ModeServe)
	o := await(t, rt, h, c.Call("echo", mcptest.EchoIn{Text: "polled"}, RequestOptions{}))
	require.Equal(t, runtime.Complete, o.State)

	remove()
	id := c.Call("echo", mcptest.EchoIn{Text: "unpolled"}, RequestOptions{})
	eventually(t, "the call to finish", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return len(h.out) == 1
	})
	for range 3 {
		rt.Tick()
	}
	require.False(t, rt.IsComplete(id), "a removed host is not polled")
	require.Equal(t, 1, h.Poll(0))
	rt.Tick()
	o, ok := rt.TakeResult(id)
	require.True(t, ok)
	require.Equal(t, runtime.Complete, o.State)
}
