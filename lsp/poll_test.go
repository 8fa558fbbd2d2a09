package lsp

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// A client registered with the runtime is polled by Tick: the loop only
// ticks and waits on the runtime's Ready. Once removed, Tick leaves its
// replies waiting; a Poll of its own still handles them.
func TestClientRegisteredWithRuntimeIsPolledByTick(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	remove := rt.AddPoller(c)
	job := c.Request(protocol.MethodTextDocumentHover, nil, RequestOptions{})
	deadline := time.Now().Add(20 * time.Second)
	for !rt.IsComplete(job) {
		require.True(t, time.Now().Before(deadline), "the request never settled")
		select {
		case <-rt.Ready():
		case <-time.After(time.Second):
			// Ready alone must wake the loop; this is only a backstop
			// so a lost token fails the deadline, not the test binary.
		}
		rt.Tick()
	}
	o, ok := rt.TakeResult(job)
	require.True(t, ok)
	require.True(t, o.OK(), "%v", o.Err)

	remove()
	job = c.Request(protocol.MethodTextDocumentHover, nil, RequestOptions{})
	queued := func() int {
		c.t.mu.Lock()
		defer c.t.mu.Unlock()
		return len(c.t.inbox)
	}
	for queued() == 0 {
		require.True(t, time.Now().Before(deadline), "the reply never arrived")
		time.Sleep(time.Millisecond)
	}
	for range 3 {
		rt.Tick()
	}
	require.Equal(t, 1, queued(), "a removed client is not polled")
	require.False(t, rt.IsComplete(job))
	require.Equal(t, 1, c.Poll(0))
	rt.Tick()
	require.True(t, rt.IsComplete(job))
}

// Poll spends the lesser of the frame's budget and Config.PollBudget: with
// a minute's PollBudget, a spent frame (Tick's poll gets a nanosecond)
// still handles one batch of events only, and leaves the rest for the
// next Poll.
func TestPollTakesTheFramesBudgetWhenShorter(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{PollBudget: time.Minute})
	pump(t, rt, c, 10*time.Second, c.Initialized)
	before := c.Stats().Received
	job := c.Request("fake/diagnostics", map[string]any{"uri": string(docURI("/src/main.go")), "n": 500}, RequestOptions{})
	deadline := time.Now().Add(10 * time.Second)
	for c.Stats().Received < before+501 {
		require.True(t, time.Now().Before(deadline), "the fake's publications never arrived")
		time.Sleep(time.Millisecond)
	}
	// Drain a stale token so that the one Poll signals is seen.
	select {
	case <-c.Ready():
	default:
	}
	first := c.Poll(time.Nanosecond)
	require.Equal(t, 64, first, "one batch, then the spent budget stops it")
	select {
	case <-c.Ready():
	default:
		t.Fatal("events are left and Ready was not signalled")
	}
	remove := rt.AddPoller(c)
	rt.TickWithin(runtime.TickLimit{Deadline: time.Now().Add(-time.Second)})
	remove()
	// The reader counts a message before it queues it: the last ones may
	// still be on their way.
	rest := 0
	for rest < 501-2*64 {
		require.True(t, time.Now().Before(deadline), "Tick's spent frame took more than one batch (%d handled after it)", rest)
		if n := c.Poll(0); n > 0 {
			rest += n
			continue
		}
		select {
		case <-c.Ready():
		case <-time.After(5 * time.Millisecond):
		}
	}
	require.Equal(t, 501-2*64, rest, "Tick's spent frame took one batch; PollBudget the rest")
	rt.Tick()
	require.True(t, rt.IsComplete(job))
}

// The changed documents wait for TakeChangedDiagnostics, each once; a host
// that never takes them keeps the newest 4,096, not all.
func TestChangedDiagnosticsKeepTheNewest(t *testing.T) {
	c := &Client{}
	for i := range maxChangedDiagnostics + 100 {
		c.markDiagnosticsChanged(uri.File(fmt.Sprintf("/src/f%d.go", i)))
		c.markDiagnosticsChanged(uri.File(fmt.Sprintf("/src/f%d.go", i)))
	}
	got := c.TakeChangedDiagnostics()
	require.Len(t, got, maxChangedDiagnostics)
	require.Equal(t, uri.File("/src/f100.go"), got[0], "the oldest are dropped")
	require.Equal(t, uri.File(fmt.Sprintf("/src/f%d.go", maxChangedDiagnostics+99)), got[len(got)-1])
	require.Empty(t, c.TakeChangedDiagnostics())
	c.markDiagnosticsChanged(uri.File("/src/f100.go"))
	require.Equal(t, []uri.URI{uri.File("/src/f100.go")}, c.TakeChangedDiagnostics(), "listed again once taken")
}
