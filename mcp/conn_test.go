//go:build linux

package mcp

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/mcp/mcptest"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// Tools that answer: text, structured content, and the listings of tools,
// resources and prompts, all as plain values through the runtime.
// (Issue 17: "tools that answer"; tools/resources/read/prompts.)
func TestCallsAnswerWithPlainValues(t *testing.T) {
	rt, h := newHost(t)
	c := connect(t, h, mcptest.ModeServe)
	name, version := c.ServerInfo()
	require.Equal(t, "mcptest", name)
	require.Equal(t, "1.0.0", version)

	o := await(t, rt, h, c.Call("echo", map[string]any{"text": "hello"}, RequestOptions{}))
	require.Equal(t, runtime.Complete, o.State, "%+v", o.Err)
	v := ext(o).(map[string]any)
	require.Equal(t, "hello", v["text"])
	require.Equal(t, []any{map[string]any{"type": "text", "text": "hello"}}, v["content"])
	require.NotContains(t, v, "structured")

	o = await(t, rt, h, c.Call("add", mcptest.AddIn{A: 2, B: 40}, RequestOptions{}))
	require.Equal(t, runtime.Complete, o.State, "%+v", o.Err)
	require.EqualValues(t, 42, ext(o).(map[string]any)["structured"].(map[string]any)["sum"])

	o = await(t, rt, h, c.Tools(RequestOptions{}))
	require.Equal(t, runtime.Complete, o.State, "%+v", o.Err)
	var names []string
	for _, tool := range ext(o).([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	require.ElementsMatch(t, []string{"echo", "add", "progress", "slow", "crash", "big", "fail", "roots"}, names)

	o = await(t, rt, h, c.Resources(RequestOptions{}))
	require.Equal(t, runtime.Complete, o.State, "%+v", o.Err)
	require.Equal(t, []any{map[string]any{"uri": "test://hello", "name": "hello", "mime_type": "text/plain"}}, ext(o))

	o = await(t, rt, h, c.ReadResource("test://hello", RequestOptions{}))
	require.Equal(t, runtime.Complete, o.State, "%+v", o.Err)
	require.Equal(t, "hello, resource", ext(o).(map[string]any)["text"])

	o = await(t, rt, h, c.ReadResource("test://absent", RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	require.Equal(t, "InvalidParams", jobErr(t, o.Err).Code, o.Err.Error()) // the SDK follows the spec's -32602 here
	require.Contains(t, o.Err.Error(), "Resource not found")

	o = await(t, rt, h, c.Prompts(RequestOptions{}))
	require.Equal(t, runtime.Complete, o.State, "%+v", o.Err)
	p := ext(o).([]any)[0].(map[string]any)
	require.Equal(t, "greet", p["name"])
	require.Equal(t, []any{map[string]any{"name": "name", "required": true}}, p["arguments"])

	o = await(t, rt, h, c.Call("no-such-tool", nil, RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	require.Contains(t, o.Err.Error(), "no-such-tool")
}

// A tool that reports an error settles Failed with its text and
// CodeToolError. (Issue 17: "errors as nil, message, code".)
func TestToolErrorFailsWithCode(t *testing.T) {
	rt, h := newHost(t)
	c := connect(t, h, mcptest.ModeServe)
	o := await(t, rt, h, c.Call("fail", nil, RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	require.Equal(t, CodeToolError, jobErr(t, o.Err).Code)
	require.Contains(t, o.Err.Error(), "the tool failed on purpose")
}

// 1 MiB of text comes back whole. (Issue 17: "a large result".)
func TestLargeResultArrivesWhole(t *testing.T) {
	rt, h := newHost(t)
	c := connect(t, h, mcptest.ModeServe)
	o := await(t, rt, h, c.Call("big", mcptest.BigIn{Bytes: 1 << 20}, RequestOptions{}))
	require.Equal(t, runtime.Complete, o.State, "%+v", o.Err)
	text := ext(o).(map[string]any)["text"].(string)
	require.Len(t, text, 1<<20)
	require.Equal(t, byte('x'), text[len(text)-1])
}

// Progress notifications show per call while it runs; the call is then
// cancelled. (Issue 17: "progress notifications show on h:progress()".)
func TestProgressIsVisiblePerCall(t *testing.T) {
	rt, h := newHost(t)
	c := connect(t, h, mcptest.ModeServe)
	id := c.Call("progress", mcptest.ProgressIn{Steps: 3, Hold: true}, RequestOptions{})
	other := c.Call("slow", nil, RequestOptions{})
	eventually(t, "three progress notifications", func() bool {
		p, ok := c.Progress(id)
		return ok && p.Count == 3
	})
	p, _ := c.Progress(id)
	require.Equal(t, Progress{Progress: 3, Total: 3, Message: "step 3", Count: 3}, p)
	_, ok := c.Progress(other)
	require.False(t, ok, "progress of one call must not show on another")
	rt.Cancel(id)
	rt.Cancel(other)
	require.Equal(t, runtime.Cancelled, await(t, rt, h, id).State)
	require.Equal(t, runtime.Cancelled, await(t, rt, h, other).State)
	_, ok = c.Progress(id)
	require.False(t, ok, "a finished call keeps no progress entry")
}

// Cancel and supersede send notifications/cancelled: the server's handler
// sees its context end. (Issue 17: "cancel and supersede send the protocol's
// cancellation"; go-sdk issue 224.)
func TestCancelAndSupersedeReachTheServer(t *testing.T) {
	rt, h := newHost(t)
	c := connect(t, h, mcptest.ModeServe)
	dir := t.TempDir()
	cancelled := filepath.Join(dir, "cancelled")
	superseded := filepath.Join(dir, "superseded")

	id := c.Call("slow", mcptest.SlowIn{Marker: cancelled}, RequestOptions{})
	first := c.Call("slow", mcptest.SlowIn{Marker: superseded}, RequestOptions{Key: "k"})
	// A request cancelled before it was sent never reaches the server, so
	// both must have started there first.
	eventually(t, "both slow calls to start", func() bool {
		return strings.Count(c.Stderr(), "slow: started") == 2
	})
	second := c.Call("echo", mcptest.EchoIn{Text: "after"}, RequestOptions{Key: "k"})
	rt.Cancel(id)
	require.Equal(t, runtime.Cancelled, await(t, rt, h, id).State)
	require.Equal(t, runtime.Cancelled, await(t, rt, h, first).State)
	require.Equal(t, "after", ext(await(t, rt, h, second)).(map[string]any)["text"])
	eventually(t, "the server to observe both cancellations", func() bool {
		_, e1 := os.Stat(cancelled)
		_, e2 := os.Stat(superseded)
		return e1 == nil && e2 == nil
	})
}

// A timeout fails the call with CodeTimeout and cancels it on the server.
func TestTimeoutFailsAndCancelsOnTheServer(t *testing.T) {
	rt, h := newHost(t)
	c := connect(t, h, mcptest.ModeServe)
	marker := filepath.Join(t.TempDir(), "cancelled")
	// The timeout is long enough for the request to reach the server
	// first, else the server has nothing to cancel.
	o := await(t, rt, h, c.Call("slow", mcptest.SlowIn{Marker: marker}, RequestOptions{Timeout: time.Second}))
	require.Equal(t, runtime.Failed, o.State)
	require.Equal(t, CodeTimeout, jobErr(t, o.Err).Code)
	require.Contains(t, o.Err.Error(), "timed out after 1s")
	eventually(t, "the server to observe the cancellation", func() bool {
		_, err := os.Stat(marker)
		return err == nil
	})
}

// A server that dies mid-call fails every pending call, with a message
// that says so, and so does any later call. (Issue 17: "a server that dies
// fails every pending call at once, with a message that says so".)
func TestServerCrashFailsEveryPendingCall(t *testing.T) {
	rt, h := newHost(t)
	c := connect(t, h, mcptest.ModeServe)
	pending := []runtime.JobID{
		c.Call("slow", nil, RequestOptions{}),
		c.Call("progress", mcptest.ProgressIn{Steps: 1, Hold: true}, RequestOptions{}),
		c.Call("slow", nil, RequestOptions{}),
	}
	pending = append(pending, c.Call("crash", nil, RequestOptions{}))
	for _, id := range pending {
		o := await(t, rt, h, id)
		require.Equal(t, runtime.Failed, o.State)
		require.Equal(t, CodeServerExited, jobErr(t, o.Err).Code, o.Err.Error())
		require.Contains(t, o.Err.Error(), "exited with code 3")
		require.Contains(t, o.Err.Error(), "crashing on purpose")
	}
	var xerr *ServerExitedError
	require.ErrorAs(t, c.Err(), &xerr)
	require.Equal(t, 3, xerr.Exit.Code)
	<-c.Done()

	o := await(t, rt, h, c.Call("echo", mcptest.EchoIn{Text: "late"}, RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	require.Equal(t, CodeServerExited, jobErr(t, o.Err).Code)
	require.NoError(t, c.Close())
}

// A program that prints garbage is not an MCP server: Connect fails saying
// so, without waiting for its timeout, and nothing is left running.
// (Issue 17: "a process that is not an MCP server (prints garbage)"; go-sdk
// issue 142.)
func TestConnectToGarbageFails(t *testing.T) {
	_, h := newHost(t)
	spec := serverSpec(mcptest.ModeGarbage)
	spec.ConnectTimeout = time.Minute
	_, err := h.Connect(context.Background(), spec)
	var cerr *ConnectError
	require.ErrorAs(t, err, &cerr)
	require.Contains(t, err.Error(), "not MCP JSON-RPC")
	require.NotErrorIs(t, err, context.DeadlineExceeded)
	requireNoChildren(t)
}

// A program that prints nothing fails Connect once ConnectTimeout passes.
// (Issue 17: "prints nothing".)
func TestConnectToSilentProgramTimesOut(t *testing.T) {
	_, h := newHost(t)
	spec := serverSpec(mcptest.ModeSilent)
	spec.ConnectTimeout = 300 * time.Millisecond
	_, err := h.Connect(context.Background(), spec)
	var cerr *ConnectError
	require.ErrorAs(t, err, &cerr)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Contains(t, err.Error(), "no answer to initialize")
	requireNoChildren(t)
}

// A program that cannot start is a ConnectError that keeps its cause.
func TestConnectToMissingProgramFails(t *testing.T) {
	_, h := newHost(t)
	_, err := h.Connect(context.Background(), Spec{Argv: []string{"/nonexistent/mcp-server"}})
	var cerr *ConnectError
	require.ErrorAs(t, err, &cerr)
	require.ErrorIs(t, err, fs.ErrNotExist)

	_, err = h.Connect(context.Background(), Spec{})
	require.ErrorContains(t, err, "exactly one of Argv and URL")
}

// A server that ignores the end of its input (and SIGTERM) is killed with
// its whole group by Close, which returns without error (so within
// CloseTimeout); the pending call fails with CodeClosed. (Issue 17:
// "s:close() returns within 3 s even when the server ignores the end of its
// input"; go-sdk issue 107.)
func TestCloseStubbornServerKillsItsGroup(t *testing.T) {
	rt, h := newHost(t)
	c := connect(t, h, mcptest.ModeStubborn)
	pgid := c.Pid()
	require.Positive(t, pgid)
	id := c.Call("slow", nil, RequestOptions{})
	eventually(t, "the server's child", func() bool { return len(children()) >= 1 })
	require.NoError(t, c.Close())
	require.ErrorIs(t, syscall.Kill(-pgid, 0), syscall.ESRCH, "the process group must be gone")
	o := await(t, rt, h, id)
	require.Equal(t, runtime.Failed, o.State)
	require.Equal(t, CodeClosed, jobErr(t, o.Err).Code)
	require.ErrorIs(t, c.Err(), ErrClosed)
	require.NoError(t, c.Close(), "a second Close is a no-op")

	o = await(t, rt, h, c.Call("echo", nil, RequestOptions{}))
	require.Equal(t, CodeClosed, jobErr(t, o.Err).Code)
}

// Host.Close closes every connection, and a server that exits on the end
// of its input is not killed.
func TestHostCloseClosesEveryConnection(t *testing.T) {
	rt, h := newHost(t)
	a := connect(t, h, mcptest.ModeServe)
	b := connect(t, h, mcptest.ModeServe)
	id := a.Call("slow", nil, RequestOptions{})
	require.NoError(t, h.Close())
	<-a.Done()
	<-b.Done()
	require.Equal(t, CodeClosed, jobErr(t, await(t, rt, h, id).Err).Code)
	_, err := h.Connect(context.Background(), serverSpec(mcptest.ModeServe))
	require.ErrorIs(t, err, ErrClosed)
	requireNoChildren(t)
}

// Dial returns at once; a call made before initialize has finished waits
// for it and then answers. (Issue 17: connecting must not freeze the loop.)
func TestDialCallsWaitForInitialize(t *testing.T) {
	rt, h := newHost(t)
	c, err := h.Dial(serverSpec(mcptest.ModeServe))
	require.NoError(t, err)
	id := c.Call("echo", mcptest.EchoIn{Text: "early"}, RequestOptions{})
	o := await(t, rt, h, id)
	require.Equal(t, runtime.Complete, o.State, "%+v", o.Err)
	require.Equal(t, "early", ext(o).(map[string]any)["text"])
	<-c.Ready()
	require.NoError(t, c.Err())
}

// A dialled program that is not an MCP server fails the calls waiting for
// it with the connect error, and is stopped without anyone calling Close.
func TestDialToGarbageFailsWaitingCalls(t *testing.T) {
	rt, h := newHost(t)
	c, err := h.Dial(serverSpec(mcptest.ModeGarbage))
	require.NoError(t, err)
	o := await(t, rt, h, c.Call("echo", nil, RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	require.Equal(t, CodeConnectFailed, jobErr(t, o.Err).Code, o.Err.Error())
	require.Contains(t, o.Err.Error(), "not MCP JSON-RPC")
	var cerr *ConnectError
	require.ErrorAs(t, c.Err(), &cerr)
	requireNoChildren(t)
}

// Close while initialize is still waiting on a silent program returns, fails
// the waiting call with CodeClosed and leaves nothing running.
func TestCloseWhileConnecting(t *testing.T) {
	rt, h := newHost(t)
	spec := serverSpec(mcptest.ModeSilent)
	spec.ConnectTimeout = time.Minute
	c, err := h.Dial(spec)
	require.NoError(t, err)
	id := c.Call("echo", nil, RequestOptions{})
	require.NoError(t, c.Close())
	o := await(t, rt, h, id)
	require.Equal(t, runtime.Failed, o.State)
	require.Equal(t, CodeClosed, jobErr(t, o.Err).Code)
	requireNoChildren(t)
}
