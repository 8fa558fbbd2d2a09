//go:build linux

package mcp

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/mcp/mcptest"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// A stdio server's line of JSON-RPC over Spec.MaxMessage ends the
// connection instead of being buffered: the call it answered and the one
// pending beside it fail with message_too_large (ErrMessageTooLarge, the
// limit named), later calls fail the same, Err says so, and the server's
// group is stopped (newHost checks no child is left). A message under the
// limit goes through. (Issue 25 point 7: "MCP results".)
func TestStdioMessageOverTheLimitEndsTheConnection(t *testing.T) {
	rt, h := newHost(t)
	spec := serverSpec(mcptest.ModeServe)
	spec.MaxMessage = MinMaxMessage
	c, err := h.Connect(t.Context(), spec)
	require.NoError(t, err)
	o := await(t, rt, h, c.Call("big", mcptest.BigIn{Bytes: MinMaxMessage / 2}, RequestOptions{}))
	require.Equal(t, runtime.Complete, o.State, "%+v", o.Err)

	pending := c.Call("slow", mcptest.SlowIn{Seconds: 30}, RequestOptions{})
	o = await(t, rt, h, c.Call("big", mcptest.BigIn{Bytes: 4 << 20}, RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	require.Equal(t, CodeMessageTooLarge, jobErr(t, o.Err).Code)
	require.Contains(t, o.Err.Error(), "more than 65536 bytes (Spec.MaxMessage)")
	require.Equal(t, CodeMessageTooLarge, jobErr(t, await(t, rt, h, pending).Err).Code)
	require.ErrorIs(t, c.Err(), ErrMessageTooLarge)
	require.Equal(t, CodeMessageTooLarge, jobErr(t, await(t, rt, h, c.Call("echo", mcptest.EchoIn{Text: "x"}, RequestOptions{})).Err).Code)
	<-c.Done()
}

// The default limit is 64 MiB: a 17 MiB result, past the SDK's own 16 MiB
// default, goes through.
func TestStdioDefaultLimitIs64MiB(t *testing.T) {
	rt, h := newHost(t)
	c := connect(t, h, mcptest.ModeServe)
	require.Equal(t, DefaultMaxMessage, c.maxMessage)
	o := await(t, rt, h, c.Call("big", mcptest.BigIn{Bytes: 17 << 20}, RequestOptions{}))
	require.Equal(t, runtime.Complete, o.State, "%+v", o.Err)
}

// An HTTP server's response over Spec.MaxMessage, as a JSON body or as a
// server-sent event, fails the call with message_too_large and ends the
// connection. (Issue 25 point 7: "For an HTTP server, bound the response
// body likewise".)
func TestHTTPResponseOverTheLimitEndsTheConnection(t *testing.T) {
	for name, jsonResponse := range map[string]bool{"json": true, "sse": false} {
		t.Run(name, func(t *testing.T) {
			server := mcptest.NewServer()
			srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server {
				return server
			}, &sdk.StreamableHTTPOptions{JSONResponse: jsonResponse}))
			defer srv.Close()
			// The client aborts its requests, the session's DELETE too, so
			// the server's end of the session is closed here.
			defer func() {
				for ss := range server.Sessions() {
					_ = ss.Close()
				}
			}()
			rt, h := newHost(t)
			c, err := h.Connect(t.Context(), Spec{URL: srv.URL, HTTPClient: srv.Client(), MaxMessage: 1})
			require.NoError(t, err)
			o := await(t, rt, h, c.Call("big", mcptest.BigIn{Bytes: MinMaxMessage / 2}, RequestOptions{}))
			require.Equal(t, runtime.Complete, o.State, "%+v", o.Err)
			o = await(t, rt, h, c.Call("big", mcptest.BigIn{Bytes: 1 << 20}, RequestOptions{}))
			require.Equal(t, runtime.Failed, o.State)
			require.Equal(t, CodeMessageTooLarge, jobErr(t, o.Err).Code, o.Err.Error())
			require.Contains(t, o.Err.Error(), "more than 65536 bytes (Spec.MaxMessage)")
			require.True(t, errors.Is(c.Err(), ErrMessageTooLarge), "%v", c.Err())
			require.NoError(t, c.Close())
		})
	}
}
