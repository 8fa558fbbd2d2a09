//go:build linux

package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/mcp/mcptest"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// A streamable HTTP server on loopback, served by the SDK's handler: calls
// answer, progress shows, cancel reaches the server's handler, Close ends
// the session. (Issue 17: "Streamable HTTP servers too".)
func TestStreamableHTTPServer(t *testing.T) {
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server {
		return mcptest.NewServer()
	}, nil))
	defer srv.Close()
	rt, h := newHost(t)
	c, err := h.Connect(t.Context(), Spec{URL: srv.URL, HTTPClient: srv.Client()})
	require.NoError(t, err)
	require.Zero(t, c.Pid())

	o := await(t, rt, h, c.Call("echo", mcptest.EchoIn{Text: "over http"}, RequestOptions{}))
	require.Equal(t, runtime.Complete, o.State, "%+v", o.Err)
	require.Equal(t, "over http", ext(o).(map[string]any)["text"])

	id := c.Call("progress", mcptest.ProgressIn{Steps: 2, Hold: true}, RequestOptions{})
	eventually(t, "two progress notifications", func() bool {
		p, ok := c.Progress(id)
		return ok && p.Count == 2 && p.Progress == 2
	})
	rt.Cancel(id)
	require.Equal(t, runtime.Cancelled, await(t, rt, h, id).State)

	marker := filepath.Join(t.TempDir(), "cancelled")
	id = c.Call("slow", mcptest.SlowIn{Marker: marker}, RequestOptions{Key: "slow"})
	// The SDK's server makes the session's DELETE wait for its handlers,
	// and this one learns of no cancellation once the session closes: it
	// ends on its own after five seconds, so the test server can stop
	// (long enough that the calls below, under the race detector on a
	// loaded machine, cannot outlast it: two seconds once did).
	pending := c.Call("slow", mcptest.SlowIn{Seconds: 5}, RequestOptions{})
	o = await(t, rt, h, c.Call("big", mcptest.BigIn{Bytes: 1 << 20}, RequestOptions{}))
	require.Len(t, ext(o).(map[string]any)["text"], 1<<20)
	rt.Cancel(id)
	require.Equal(t, runtime.Cancelled, await(t, rt, h, id).State)
	eventually(t, "the server to observe the cancellation", func() bool {
		_, err := os.Stat(marker)
		return err == nil
	})

	require.NoError(t, c.Close())
	<-c.Done()
	o = await(t, rt, h, pending)
	require.Equal(t, CodeClosed, jobErr(t, o.Err).Code)
}

// Close returns (after aborting the connection's requests) even when the
// HTTP server's session DELETE waits on a handler that does not end.
func TestStreamableHTTPCloseAbortsAStuckServer(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	s := sdk.NewServer(&sdk.Implementation{Name: "stuck", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "block"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		started <- struct{}{}
		<-release // deaf to cancellation, like a stuck handler
		return nil, nil, nil
	})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	defer srv.Close()
	defer close(release)
	rt, h := newHost(t)
	c, err := h.Connect(t.Context(), Spec{URL: srv.URL, HTTPClient: srv.Client()})
	require.NoError(t, err)
	id := c.Call("block", nil, RequestOptions{})
	<-started
	require.NoError(t, c.Close())
	require.Equal(t, CodeClosed, jobErr(t, await(t, rt, h, id).Err).Code)
}
