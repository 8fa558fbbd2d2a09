//go:build linux

package luabind

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/mcp/mcptest"
)

// BenchmarkLuaMCPCallRoundTrip is issue 17's benchmark: one trivial tool
// call (echo) awaited from a Lua task, the frame loop sleeping on the
// runtime's ready channel, which the MCP host's wakes (lua), beside the SDK's own
// client calling the same server program directly from Go (sdk). Goal: lua
// at most 1.2x sdk.
func BenchmarkLuaMCPCallRoundTrip(b *testing.B) {
	b.Run("lua", func(b *testing.B) {
		h := newHarness(b, false)
		connect := fmt.Sprintf(`s = pmacs.mcp.connect{cmd = {%q}, env = {PMACS_MCPTEST_MODE = "serve"}}
			assert(s:call("echo", {text = "warm"}):await())`, os.Args[0])
		runReady(b, h, connect)
		b.ReportAllocs()
		b.ResetTimer()
		runReady(b, h, fmt.Sprintf(`for i = 1, %d do assert(s:call("echo", {text = "ping"}):await()) end`, b.N))
	})
	b.Run("sdk", func(b *testing.B) {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), mcptest.Env(mcptest.ModeServe))
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).
			Connect(b.Context(), &sdk.CommandTransport{Command: cmd}, nil)
		require.NoError(b, err)
		defer cs.Close()
		args := mcptest.EchoIn{Text: "ping"}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			res, err := cs.CallTool(b.Context(), &sdk.CallToolParams{Name: "echo", Arguments: args})
			if err != nil || res.IsError {
				b.Fatalf("call failed: %v", err)
			}
		}
	})
}

// runReady runs src as a task with the editor's loop: frames wake on the
// runtime's ready channel, which the MCP host's wakes too.
func runReady(b *testing.B, h *harness, src string) {
	fn, err := h.b.LoadString(src, "bench.lua")
	require.NoError(b, err)
	task := h.b.Spawn(fn)
	safety := time.NewTicker(10 * time.Millisecond)
	defer safety.Stop()
	for h.b.Busy() {
		select {
		case <-h.rt.Ready():
		case <-safety.C:
		}
		h.b.Frame()
	}
	require.NoError(b, task.Err(), h.stderr.String())
}
