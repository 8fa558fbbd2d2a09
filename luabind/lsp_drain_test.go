package luabind

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A client whose server is gone for good with a backlog of messages still
// in its inbox (here 2,000 log messages, then the exit, of a server
// stopped while it flooded) is drained within the frame's budget: each
// frame polls it once with what is left of the budget and keeps it until
// a poll finds nothing. With the budget spent (1 ns) a frame takes one
// chunk, so the backlog takes many frames, in order, and the client is let
// go once it is empty; polling it in a loop until empty did it all in the
// first frame, however long that took.
func TestDeadLSPClientBacklogTakesTheFrameBudget(t *testing.T) {
	h := lspHarness(t)
	task := h.run(t, `
		c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR})
		assert(c:request("test/echo", {}):await())
		return "ok"`)
	requireOK(t, h, task)
	require.Len(t, h.b.lsp.clients, 1)
	c := h.b.lsp.clients[0].c

	// No frame runs from here until the server is gone: what it sent
	// waits in the client's inbox.
	require.NoError(t, h.b.L().DoString(`c:notify("test/flood", {n = 2000}); c:stop()`))
	select {
	case <-c.Done():
	case <-time.After(time.Minute):
		t.Fatal("the stopped server never exited")
	}

	h.b.budget = time.Nanosecond
	frames := 0
	for len(h.b.lsp.clients) > 0 {
		require.Less(t, frames, 2000, "the dead client is never let go")
		h.b.Frame()
		frames++
	}
	require.Greater(t, frames, 10, "the whole backlog went in one frame, past its budget")
	// Nothing was dropped on the way: the last message is the server's last.
	require.NoError(t, h.b.L().DoString(`local m = c:messages(); last = m[#m].text`))
	require.Equal(t, "log 1999", h.b.L().GetGlobal("last").String())
}
