//go:build linux

package mcp

import (
	"os"
	"os/exec"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/mcp/mcptest"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// BenchmarkCallRoundTrip is one trivial tool call (echo) from call to
// settled job, through this package, the runtime and a frame loop that
// sleeps on the ready channels (pmacs), beside the SDK's own client calling
// the same server program over its command transport (sdk). Issue 17's
// benchmark: pmacs at most 1.2x sdk.
func BenchmarkCallRoundTrip(b *testing.B) {
	args := mcptest.EchoIn{Text: "ping"}
	b.Run("pmacs", func(b *testing.B) {
		rt, h := newHost(b)
		c := connect(b, h, mcptest.ModeServe)
		b.ReportAllocs()
		for b.Loop() {
			id := c.Call("echo", args, RequestOptions{})
			o := awaitReady(rt, h, id)
			if o.State != runtime.Complete {
				b.Fatalf("call failed: %+v", o.Err)
			}
		}
	})
	b.Run("sdk", func(b *testing.B) {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), mcptest.Env(mcptest.ModeServe))
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).
			Connect(b.Context(), &sdk.CommandTransport{Command: cmd}, nil)
		require.NoError(b, err)
		defer cs.Close()
		b.ReportAllocs()
		for b.Loop() {
			res, err := cs.CallTool(b.Context(), &sdk.CallToolParams{Name: "echo", Arguments: args})
			if err != nil || res.IsError {
				b.Fatalf("call failed: %v", err)
			}
		}
	})
}

// awaitReady is the editor's frame loop reduced to what a call needs:
// sleep until the runtime (its pollers, the host, included) has
// something, tick.
func awaitReady(rt *runtime.Runtime, _ *Host, id runtime.JobID) runtime.Outcome {
	for {
		rt.Tick()
		if o, ok := rt.TakeResult(id); ok {
			return o
		}
		<-rt.Ready()
	}
}
