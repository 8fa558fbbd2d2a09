package lsp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// A reply over the default 64 MiB limit fails its request with
// ErrFrameTooLarge naming its size and the limit, without a restart: the
// id after the result (as gopls writes it) is found as the frame streams
// by. The next request is answered. (Issue 25 point 7: "the largest frame
// accepted (configurable, default 64 MiB; a bigger one fails that request
// with a clear error and the connection recovers").
func TestOversizedReplyFailsItsRequestAndTheClientGoesOn(t *testing.T) {
	rt := newRT(t)
	starts := filepath.Join(t.TempDir(), "starts")
	c := startFake(t, rt, Config{}, fakeStartsEnv+"="+starts)
	n := DefaultMaxFrame + 1<<20
	o, res := await(t, rt, c, c.Request("fake/big", map[string]any{"bytes": n}, RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	require.ErrorIs(t, res.Err, ErrFrameTooLarge)
	require.Contains(t, res.Err.Error(), "over the limit of "+strconv.Itoa(DefaultMaxFrame))
	require.Contains(t, o.Err.Error(), "message too large")
	require.EqualValues(t, 1, c.Stats().Oversized)

	o, res = await(t, rt, c, c.Request(protocol.MethodTextDocumentHover, map[string]any{}, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	require.NotNil(t, res.Value)
	require.Equal(t, 1, countLines(t, starts), "the server was restarted")
}

// Config.MaxFrame is the limit (clamped), and a reply whose id comes
// first is failed the same way.
func TestMaxFrameIsConfigurableAndClamped(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{MaxFrame: 1})
	require.Equal(t, MinMaxFrame, c.cfg.MaxFrame)
	o, res := await(t, rt, c, c.Request("fake/big", map[string]any{"bytes": 2 * MinMaxFrame, "idFirst": true}, RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	require.ErrorIs(t, res.Err, ErrFrameTooLarge)
	require.Contains(t, res.Err.Error(), fmt.Sprintf("over the limit of %d", MinMaxFrame))
	o, _ = await(t, rt, c, c.Request("fake/big", map[string]any{"bytes": MinMaxFrame / 2}, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)

	big := startFake(t, rt, Config{MaxFrame: 1 << 40})
	require.Equal(t, MaxMaxFrame, big.cfg.MaxFrame)
}

// An oversized notification is dropped (counted) and an oversized request
// of the server's is answered with an error naming the limit; neither
// restarts the server.
func TestOversizedNotificationDroppedAndServerRequestRefused(t *testing.T) {
	rt := newRT(t)
	starts := filepath.Join(t.TempDir(), "starts")
	c := startFake(t, rt, Config{MaxFrame: MinMaxFrame}, fakeStartsEnv+"="+starts)
	o, res := await(t, rt, c, c.Request("fake/bigNotify", map[string]any{"bytes": 4 * MinMaxFrame}, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	require.Equal(t, jsontext.Value(`"after"`), res.Value)
	require.Empty(t, c.TakeMessages())

	o, res = await(t, rt, c, c.Request("fake/bigRequest", map[string]any{"bytes": 4 * MinMaxFrame}, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	var replies []fakeMsg
	require.NoError(t, json.Unmarshal(res.Value.(jsontext.Value), &replies))
	require.Len(t, replies, 1)
	var rerr wireError
	require.NoError(t, json.Unmarshal(replies[0].Error, &rerr))
	require.EqualValues(t, CodeRequestFailed, rerr.Code)
	require.Contains(t, rerr.Message, "message too large")
	require.EqualValues(t, 2, c.Stats().Oversized)
	require.Equal(t, 1, countLines(t, starts))
}

// An oversized frame whose id cannot be found (it is not one JSON object)
// leaves the client unable to tell what it answered: the server is
// restarted, the pending request fails with ErrFrameTooLarge (and
// ErrServerExited), the open document is reopened and the new server
// answers. (Issue 25 point 7: "the connection ... restarts".)
func TestOversizedFrameWithoutAnIDRestartsTheServer(t *testing.T) {
	rt := newRT(t)
	starts := filepath.Join(t.TempDir(), "starts")
	c := startFake(t, rt, Config{MaxFrame: MinMaxFrame, RestartBackoff: 10 * time.Millisecond}, fakeStartsEnv+"="+starts)
	require.NoError(t, c.Open("/src/a.go", "go", []byte("package a\n")))
	pump(t, rt, c, 10*time.Second, c.Initialized)
	pending := c.Request("fake/never", nil, RequestOptions{})
	c.Request("fake/bigNoID", map[string]any{"bytes": 2 * MinMaxFrame}, RequestOptions{})
	o, res := await(t, rt, c, pending)
	require.Equal(t, runtime.Failed, o.State)
	require.ErrorIs(t, res.Err, ErrFrameTooLarge)
	require.ErrorIs(t, res.Err, ErrServerExited)
	require.Contains(t, res.Err.Error(), "cannot be told")

	o, res = await(t, rt, c, c.Request("fake/docs", nil, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	var docs map[string]fakeDoc
	require.NoError(t, json.Unmarshal(res.Value.(jsontext.Value), &docs))
	require.Equal(t, "package a\n", docs[string(uri.File("/src/a.go"))].Text)
	require.Equal(t, 2, countLines(t, starts))
}

// A Content-Length of 2 GiB is not skipped: the stream is taken for
// broken and the server restarted at once, the pending request failing
// with a message that names the length. (Issue 25, tests: "a 2 GiB
// Content-Length".)
func TestTwoGiBContentLengthRestartsTheServer(t *testing.T) {
	rt := newRT(t)
	starts := filepath.Join(t.TempDir(), "starts")
	c := startFake(t, rt, Config{RestartBackoff: 10 * time.Millisecond}, fakeStartsEnv+"="+starts)
	o, res := await(t, rt, c, c.Request("fake/brokenLength", nil, RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	require.ErrorIs(t, res.Err, ErrFrameTooLarge)
	require.Contains(t, res.Err.Error(), "Content-Length of 2147483648")
	o, _ = await(t, rt, c, c.Request(protocol.MethodTextDocumentHover, map[string]any{}, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	require.Equal(t, 2, countLines(t, starts))
}

// The reader stops reading once the messages waiting for Poll pass
// Config.InboxBytes, long before they pass the 4,096-message mark; Poll
// then takes them all and the flood's end arrives. (Issue 25 point 7: "the
// LSP inbox ... byte bounds".)
func TestInboxBoundedInBytes(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{InboxBytes: MinQueueBytes})
	pump(t, rt, c, 10*time.Second, c.Initialized)
	const size = 64 << 10
	job := c.Request("fake/floodBytes", map[string]any{"bytes": 200 * size, "size": size}, RequestOptions{})
	deadline := time.Now().Add(20 * time.Second)
	for c.t.readerWaits.Load() == 0 {
		require.True(t, time.Now().Before(deadline), "the reader never waited for room")
		time.Sleep(2 * time.Millisecond)
	}
	c.t.mu.Lock()
	n, bytes := len(c.t.inbox), c.t.inboxBytes
	c.t.mu.Unlock()
	require.LessOrEqual(t, bytes, MinQueueBytes)
	require.Less(t, n, 20)
	o, _ := await(t, rt, c, job)
	require.True(t, o.OK(), "%v", o.Err)
}

// A server that stops reading its input while the client keeps writing is
// taken for hung once Config.OutboxBytes wait for it: it is restarted,
// the requests pending on it fail with ErrNotReading, the main goroutine
// never blocks, and the new server answers. (Issue 25 point 7: "the LSP
// ... outbox".)
func TestServerThatStopsReadingIsRestarted(t *testing.T) {
	rt := newRT(t)
	starts := filepath.Join(t.TempDir(), "starts")
	c := startFake(t, rt, Config{RestartBackoff: 10 * time.Millisecond}, fakeStartsEnv+"="+starts)
	o, _ := await(t, rt, c, c.Request("fake/stopReading", nil, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	pending := c.Request(protocol.MethodTextDocumentHover, map[string]any{}, RequestOptions{})
	blob := strings.Repeat("z", 1<<20)
	start := time.Now()
	for range DefaultOutboxBytes>>20 + 2 {
		require.NoError(t, c.Notify("fake/blob", map[string]any{"blob": blob}))
	}
	// A blocked Notify would wait for ever; encoding the 66 MiB takes
	// seconds under the race detector on a loaded machine, so the bound
	// only tells the two apart.
	require.Less(t, time.Since(start), 30*time.Second, "Notify blocked")
	o, res := await(t, rt, c, pending)
	require.Equal(t, runtime.Failed, o.State)
	require.ErrorIs(t, res.Err, ErrNotReading)
	require.Contains(t, res.Err.Error(), "Config.OutboxBytes")
	o, _ = await(t, rt, c, c.Request(protocol.MethodTextDocumentHover, map[string]any{}, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	require.Equal(t, 2, countLines(t, starts))
}

// Closing a document forgets its diagnostics, and the next Poll lists it
// as changed so the host clears them. (Issue 25 point 7: "diagnostics per
// URI pruned on close".)
func TestCloseDocumentClearsItsDiagnostics(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{ShapeDiagnostics: func(p *protocol.PublishDiagnosticsParams) any { return len(p.Diagnostics) }})
	require.NoError(t, c.Open("/src/x.go", "go", []byte("package x\n")))
	o, _ := await(t, rt, c, c.Request("fake/diagnostics", map[string]any{"uri": string(uri.File("/src/x.go")), "n": 1}, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	require.Len(t, c.Diagnostics("/src/x.go"), 2)
	require.Equal(t, 2, c.ShapedDiagnostics("/src/x.go"))
	require.NoError(t, c.CloseDocument("/src/x.go"))
	require.Nil(t, c.Diagnostics("/src/x.go"))
	require.Nil(t, c.ShapedDiagnostics("/src/x.go"))
	require.Contains(t, c.TakeChangedDiagnostics(), uri.File("/src/x.go"))
	require.Empty(t, c.diags)
}

// A server's exit clears every diagnostic it published; the documents
// are listed as changed. (Issue 25 point 7: "diagnostics per URI pruned
// on ... restart".)
func TestRestartClearsTheDeadServersDiagnostics(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{RestartBackoff: 10 * time.Millisecond})
	require.NoError(t, c.Open("/src/x.go", "go", []byte("package x\n")))
	o, _ := await(t, rt, c, c.Request("fake/diagnostics", map[string]any{"uri": string(uri.File("/src/x.go")), "n": 1}, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	o, _ = await(t, rt, c, c.Request("fake/diagnosticsMany", map[string]any{"n": 3}, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	require.Len(t, c.diags, 4)
	c.Request("fake/crash", nil, RequestOptions{})
	var changed []uri.URI
	deadline := time.Now().Add(10 * time.Second)
	for len(c.diags) > 0 {
		require.True(t, time.Now().Before(deadline), "the diagnostics outlived the server")
		select {
		case <-c.Ready():
		case <-time.After(5 * time.Millisecond):
		}
		c.Poll(0)
		changed = append(changed, c.TakeChangedDiagnostics()...)
		rt.Tick()
	}
	require.Contains(t, changed, uri.File("/src/x.go"))
	require.Contains(t, changed, uri.URI("file:///many/f2.go"))
	require.Nil(t, c.Diagnostics("/src/x.go"))
}

// A server publishing for 100,000 files nobody opened cannot grow the
// client without limit: the open document's diagnostics stay, and of the
// others only the newest 1,000 are kept. (Issue 25 point 7: "diagnostics
// maps (never pruned)".)
func TestDiagnosticsOfFilesNotOpenAreBounded(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	require.NoError(t, c.Open("/src/x.go", "go", []byte("package x\n")))
	o, _ := await(t, rt, c, c.Request("fake/diagnostics", map[string]any{"uri": string(uri.File("/src/x.go")), "n": 1}, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	o, _ = await(t, rt, c, c.Request("fake/diagnosticsMany", map[string]any{"n": 100_000}, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	require.Len(t, c.diags, 1+maxOtherDiagnostics)
	require.Len(t, c.Diagnostics("/src/x.go"), 2)
	require.Len(t, c.DiagnosticsURI("file:///many/f99999.go"), 1)
	require.Len(t, c.DiagnosticsURI(uri.URI(fmt.Sprintf("file:///many/f%d.go", 100_000-maxOtherDiagnostics))), 1)
	require.Nil(t, c.DiagnosticsURI(uri.URI(fmt.Sprintf("file:///many/f%d.go", 100_000-maxOtherDiagnostics-1))))
	require.LessOrEqual(t, len(c.others.order), 2*maxOtherDiagnostics+64)
}

// Kept show/log messages are bounded in bytes as well as in count: each
// text is cut to 64 KiB, and at most 4 MiB of them wait for TakeMessages.
func TestKeptMessagesAreBoundedInBytes(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	const size = 100 << 10
	o, _ := await(t, rt, c, c.Request("fake/floodBytes", map[string]any{"bytes": 200 * size, "size": size}, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	msgs := c.TakeMessages()
	total := 0
	for _, m := range msgs {
		require.LessOrEqual(t, len(m.Text), maxTextKept+32)
		require.Contains(t, m.Text, "bytes cut]")
		total += len(m.Text)
	}
	require.LessOrEqual(t, total, maxMessageBytes)
	require.Greater(t, len(msgs), 1)
}

// A panic in Config.Shape fails that request with the panic's value; the
// process survives and the next request is shaped as usual. (Issue 25
// point 7: "Reader hooks recover and fail the request with the panic
// value".)
func TestShapePanicFailsOnlyThatRequest(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{Shape: func(method string, raw jsontext.Value, decoded any) (any, error) {
		if method == protocol.MethodTextDocumentHover {
			panic("shaper exploded")
		}
		return "shaped", nil
	}})
	o, res := await(t, rt, c, c.Request(protocol.MethodTextDocumentHover, map[string]any{}, RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	require.ErrorIs(t, res.Err, ErrHookPanicked)
	require.Contains(t, res.Err.Error(), "shaper exploded")
	require.EqualValues(t, 1, c.Stats().HookPanics)
	o, res = await(t, rt, c, c.Request(protocol.MethodTextDocumentReferences, map[string]any{}, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	require.Equal(t, "shaped", res.Value)
}

// A panic in Config.ShapeDiagnostics drops that publication, counted and
// told once in the client's messages; later publications still arrive.
func TestShapeDiagnosticsPanicDropsThePublication(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{ShapeDiagnostics: func(p *protocol.PublishDiagnosticsParams) any {
		if strings.Contains(string(p.URI), "bad") {
			panic("diagnostics shaper exploded")
		}
		return len(p.Diagnostics)
	}})
	for range 2 {
		o, _ := await(t, rt, c, c.Request("fake/diagnostics", map[string]any{"uri": "file:///src/bad.go", "n": 1}, RequestOptions{}))
		require.True(t, o.OK(), "%v", o.Err)
	}
	require.Nil(t, c.DiagnosticsURI("file:///src/bad.go"))
	require.EqualValues(t, 2, c.Stats().HookPanics)
	msgs := c.TakeMessages()
	require.Len(t, msgs, 1)
	require.Contains(t, msgs[0].Text, "diagnostics shaper exploded")
	o, _ := await(t, rt, c, c.Request("fake/diagnostics", map[string]any{"uri": "file:///src/good.go", "n": 1}, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	require.Equal(t, 2, c.ShapedDiagnostics("/src/good.go"))
}
