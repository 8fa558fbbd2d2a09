package lsp

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pmacs-go/pmacs-go/runtime"
)

func fakeLogOf(t *testing.T, rt *runtime.Runtime, c *Client) fakeLog {
	t.Helper()
	o, res := await(t, rt, c, c.Request("fake/log", nil, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	var l fakeLog
	require.NoError(t, json.Unmarshal(res.Value.(jsontext.Value), &l))
	return l
}

// 2,000 references arrive decoded as []protocol.Location; the job carries
// only a summary (big results).
func TestReferences2000Decoded(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	o, res := await(t, rt, c, c.Request(protocol.MethodTextDocumentReferences, map[string]any{}, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	require.EqualValues(t, 2000, ext(o).(map[string]any)["len"])
	locs := res.Value.([]protocol.Location)
	require.Len(t, locs, 2000)
	require.Equal(t, uri.URI("file:///src/f39.go"), locs[1999].URI)
	require.EqualValues(t, 1999, locs[1999].Range.Start.Line)
	require.EqualValues(t, 9, locs[1999].Range.End.Character)
}

// A 6,000-item completion list (about 4.8 MB) is decoded on the reader;
// the main goroutine's Poll only stores it. Figures are logged.
func TestCompletion6000ItemsDecodedOffMain(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	job := c.Request(protocol.MethodTextDocumentCompletion, map[string]any{}, RequestOptions{})
	var maxPoll time.Duration
	deadline := time.Now().Add(20 * time.Second)
	for !rt.IsComplete(job) {
		start := time.Now()
		c.Poll(0)
		maxPoll = max(maxPoll, time.Since(start))
		rt.Tick()
		require.True(t, time.Now().Before(deadline), "completion never settled")
		select {
		case <-c.Ready():
		case <-rt.Ready():
		case <-time.After(5 * time.Millisecond):
		}
	}
	o, _ := rt.TakeResult(job)
	require.True(t, o.OK(), "%v", o.Err)
	res, ok := c.TakeResult(job)
	require.True(t, ok)
	list := res.Value.(*protocol.CompletionList)
	require.Len(t, list.Items, 6000)
	require.Equal(t, "Symbol05999", list.Items[5999].Label)
	te, ok := list.Items[5999].TextEdit.(*protocol.TextEdit)
	require.True(t, ok)
	require.Equal(t, "Symbol05999(ctx, a, b)", te.NewText)
	_, again := c.TakeResult(job)
	require.False(t, again, "a result is taken once")
	st := c.Stats()
	t.Logf("decode off main: %v; longest Poll: %v", st.MaxDecode, maxPoll)
}

// Requests made before initialize is answered wait for it: the server
// sees initialized before them (lifecycle).
func TestRequestsBeforeInitializeWait(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{}, fakeInitDelayEnv+"=150")
	require.False(t, c.Initialized())
	job := c.Request(protocol.MethodTextDocumentHover, map[string]any{}, RequestOptions{})
	require.NoError(t, c.Notify("custom/early", map[string]any{"x": 1}))
	o, res := await(t, rt, c, job)
	require.True(t, o.OK(), "%v", o.Err)
	require.Equal(t, "fake hover", res.Value.(*protocol.Hover).Contents.(*protocol.MarkupContent).Value)
	require.True(t, c.Initialized())
	require.Equal(t, "fake", c.Capabilities().ServerInfo.Name)
	l := fakeLogOf(t, rt, c)
	require.Equal(t, []string{"initialize", "initialized", "textDocument/hover", "custom/early"}, l.Methods[:4])
}

// A request never answered times out: Failed with ErrTimeout, and the
// fake observes $/cancelRequest for it; its late RequestCancelled reply
// is dropped as late, not unknown.
func TestTimeoutSendsCancelRequest(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	// Sent, not held for initialize: a held request that times out is
	// simply never sent.
	pump(t, rt, c, 10*time.Second, c.Initialized)
	o, res := await(t, rt, c, c.Request("fake/never", nil, RequestOptions{Timeout: 100 * time.Millisecond}))
	require.Equal(t, runtime.Failed, o.State)
	require.Contains(t, o.Err.Error(), "timed out")
	require.ErrorIs(t, res.Err, ErrTimeout)
	l := fakeLogOf(t, rt, c)
	require.Equal(t, []string{"fake/never"}, l.Cancelled)
	require.EqualValues(t, 1, c.Stats().LateReplies)
	require.Zero(t, c.Stats().UnknownReplies)
}

// Cancelling the job and superseding it by key both send $/cancelRequest
// and settle Cancelled.
func TestCancelAndSupersedeSendCancelRequest(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	a := c.Request("fake/never", nil, RequestOptions{})
	b := c.Request("fake/never", nil, RequestOptions{Key: "complete"})
	pump(t, rt, c, 10*time.Second, c.Initialized)
	rt.Cancel(a)
	oa, _ := await(t, rt, c, a)
	require.Equal(t, runtime.Cancelled, oa.State)
	next := c.Request(protocol.MethodTextDocumentHover, nil, RequestOptions{Key: "complete"})
	ob, _ := await(t, rt, c, b)
	require.Equal(t, runtime.Cancelled, ob.State)
	on, _ := await(t, rt, c, next)
	require.True(t, on.OK())
	l := fakeLogOf(t, rt, c)
	require.Equal(t, []string{"fake/never", "fake/never"}, l.Cancelled)
}

// A request cancelled while it waits for initialize is never sent.
func TestCancelBeforeInitializeNeverSends(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{}, fakeInitDelayEnv+"=100")
	a := c.Request("fake/never", nil, RequestOptions{})
	rt.Cancel(a)
	oa, _ := await(t, rt, c, a)
	require.Equal(t, runtime.Cancelled, oa.State)
	l := fakeLogOf(t, rt, c)
	require.NotContains(t, l.Methods, "fake/never")
	require.Empty(t, l.Cancelled)
}

// A server error settles Failed with a message naming the LSP code, and
// the ResponseError keeps the code for errors.As.
func TestServerErrorNamesTheCode(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	for code, name := range map[int64]string{
		CodeContentModified: "ContentModified", CodeRequestCancelled: "RequestCancelled",
		CodeServerCancelled: "ServerCancelled", -1234: "Error-1234",
	} {
		o, res := await(t, rt, c, c.Request("fake/error", map[string]any{"code": code}, RequestOptions{}))
		require.Equal(t, runtime.Failed, o.State)
		require.Contains(t, o.Err.Error(), name)
		var re *ResponseError
		require.ErrorAs(t, res.Err, &re)
		require.Equal(t, code, re.Code)
	}
	o, _ := await(t, rt, c, c.Request("no/such", nil, RequestOptions{}))
	require.Contains(t, o.Err.Error(), "MethodNotFound")
}

// A server that crashes mid-request fails every pending request at once
// with a message that says it exited; later requests fail immediately.
func TestCrashFailsEveryPendingRequest(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{MaxRestarts: -1})
	pump(t, rt, c, 10*time.Second, c.Initialized)
	waiting := []runtime.JobID{
		c.Request("fake/never", nil, RequestOptions{}),
		c.Request("fake/never", nil, RequestOptions{}),
	}
	start := time.Now()
	waiting = append(waiting, c.Request("fake/crash", nil, RequestOptions{}))
	for _, j := range waiting {
		o, res := await(t, rt, c, j)
		require.Equal(t, runtime.Failed, o.State)
		require.Contains(t, o.Err.Error(), "language server exited")
		require.Contains(t, o.Err.Error(), "exit code 3")
		require.ErrorIs(t, res.Err, ErrServerExited)
	}
	t.Logf("crash noticed and %d requests failed %v after the crash request", len(waiting), time.Since(start))
	require.ErrorIs(t, c.Err(), ErrServerExited)
	o, _ := await(t, rt, c, c.Request(protocol.MethodTextDocumentHover, nil, RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	require.Contains(t, o.Err.Error(), "exited")
}

// Malformed frames (bad Content-Length, invalid JSON, a reply for an
// unknown id) are counted and dropped; the reply after them arrives.
func TestMalformedFramesCountedAndDropped(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	o, res := await(t, rt, c, c.Request("fake/malformed", nil, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	require.JSONEq(t, `"ok"`, string(res.Value.(jsontext.Value)))
	st := c.Stats()
	require.EqualValues(t, 2, st.Malformed)
	require.EqualValues(t, 1, st.UnknownReplies)
	o, _ = await(t, rt, c, c.Request(protocol.MethodTextDocumentHover, nil, RequestOptions{}))
	require.True(t, o.OK())
}

// publishDiagnostics is kept latest-per-URI, and a changed document is
// listed once however many publications a Poll handled.
func TestDiagnosticsLatestPerURICoalesced(t *testing.T) {
	rt := newRT(t)
	// A budget no loaded machine exhausts, so one Poll takes everything.
	c := startFake(t, rt, Config{PollBudget: time.Minute})
	pump(t, rt, c, 10*time.Second, c.Initialized)
	const path = "/src/main.go"
	before := c.Stats().Received
	job := c.Request("fake/diagnostics", map[string]any{"uri": string(docURI(path)), "n": 500}, RequestOptions{})
	// Let the reader take all 500 publications and the reply before Poll.
	deadline := time.Now().Add(10 * time.Second)
	for c.Stats().Received < before+501 {
		require.True(t, time.Now().Before(deadline), "the fake's publications never arrived")
		time.Sleep(time.Millisecond)
	}
	c.Poll(0)
	require.Equal(t, []uri.URI{docURI(path)}, c.TakeChangedDiagnostics(), "500 publications, one report")
	c.Poll(0)
	require.Empty(t, c.TakeChangedDiagnostics())
	o, _ := await(t, rt, c, job)
	require.True(t, o.OK())
	d := c.Diagnostics(path)
	require.Len(t, d, 2)
	require.Equal(t, protocol.String("final a"), d[0].Message)
	require.Equal(t, protocol.String("final b"), d[1].Message)
	require.Nil(t, c.Diagnostics("/src/other.go"))
}

// The server's requests are answered: configuration from Settings,
// registerCapability and workDoneProgress/create with null, applyEdit
// through the hook, an unknown method with MethodNotFound.
func TestServerRequestsAnswered(t *testing.T) {
	rt := newRT(t)
	var applied []*protocol.WorkspaceEdit
	c := startFake(t, rt, Config{
		Settings: map[string]any{"gopls": map[string]any{"staticcheck": true}},
		ApplyEdit: func(e *protocol.WorkspaceEdit, answer func(bool, string)) {
			applied = append(applied, e)
			answer(true, "")
		},
	})
	o, res := await(t, rt, c, c.Request("fake/serverRequests", nil, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	var replies []struct {
		Result json.RawMessage
		Error  *struct{ Code int }
	}
	require.NoError(t, json.Unmarshal(res.Value.(jsontext.Value), &replies))
	require.Len(t, replies, 5)
	require.JSONEq(t, `[{"staticcheck":true},{"gopls":{"staticcheck":true}}]`, string(replies[0].Result))
	require.JSONEq(t, `null`, string(replies[1].Result))
	require.JSONEq(t, `null`, string(replies[2].Result))
	require.JSONEq(t, `{"applied":true}`, string(replies[3].Result))
	require.NotNil(t, replies[4].Error)
	require.Equal(t, CodeMethodNotFound, replies[4].Error.Code)
	require.Len(t, applied, 1)
	require.Len(t, applied[0].Changes["file:///x.go"], 1)
	require.Equal(t, "new", applied[0].Changes["file:///x.go"][0].NewText)
}

// An applyEdit hook may answer in a later frame (after it has read a file
// not yet open): the server gets no reply until then, gets the first answer
// only, and an answer after the client stopped goes nowhere.
func TestApplyEditAnsweredLater(t *testing.T) {
	rt := newRT(t)
	var answer func(bool, string)
	c := startFake(t, rt, Config{
		ApplyEdit: func(_ *protocol.WorkspaceEdit, a func(bool, string)) { answer = a },
	})
	job := c.Request("fake/serverRequests", nil, RequestOptions{})
	pump(t, rt, c, 20*time.Second, func() bool { return answer != nil })
	// The fake answers the request once the client has replied to all five
	// of its own; the applyEdit reply has not gone yet.
	for end := time.Now().Add(100 * time.Millisecond); time.Now().Before(end); {
		c.Poll(0)
		rt.Tick()
		require.False(t, rt.IsComplete(job), "the server heard an answer the hook has not given")
		time.Sleep(5 * time.Millisecond)
	}
	answer(false, "other.go is still loading")
	answer(true, "") // the first answer stands
	o, res := await(t, rt, c, job)
	require.True(t, o.OK(), "%v", o.Err)
	var replies []struct{ Result json.RawMessage }
	require.NoError(t, json.Unmarshal(res.Value.(jsontext.Value), &replies))
	require.Len(t, replies, 5)
	require.JSONEq(t, `{"applied":false,"failureReason":"other.go is still loading"}`, string(replies[3].Result))

	// A second request's hook answers only after Stop: nothing is sent to
	// a server that is shutting down or gone, and nothing panics.
	answer = nil
	job = c.Request("fake/serverRequests", nil, RequestOptions{})
	pump(t, rt, c, 20*time.Second, func() bool { return answer != nil })
	c.Stop()
	pump(t, rt, c, 20*time.Second, func() bool { return rt.IsComplete(job) })
	o, _ = rt.TakeResult(job)
	require.ErrorIs(t, o.Err, ErrStopped)
	answer(true, "")
	pump(t, rt, c, 20*time.Second, gone(c))
	answer(true, "")
}

// Without a hook, applyEdit is refused with a reason.
func TestApplyEditWithoutHookRefused(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	_, res := await(t, rt, c, c.Request("fake/serverRequests", nil, RequestOptions{}))
	var replies []struct{ Result json.RawMessage }
	require.NoError(t, json.Unmarshal(res.Value.(jsontext.Value), &replies))
	require.JSONEq(t, `{"applied":false,"failureReason":"the client has no applyEdit hook"}`, string(replies[3].Result))
	require.JSONEq(t, `[null,null]`, string(replies[0].Result))
}

// Document sync: open, incremental edits coalesced into one didChange per
// Poll, save, close; the server's copy matches.
func TestDocumentSyncIncremental(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	const path = "/src/a.txt"
	require.NoError(t, c.Open(path, "plaintext", []byte("hello\nworld\n")))
	rng := func(l1, c1, l2, c2 uint32) protocol.Range {
		return protocol.Range{Start: protocol.Position{Line: l1, Character: c1}, End: protocol.Position{Line: l2, Character: c2}}
	}
	require.NoError(t, c.Change(path, Edit{Range: rng(1, 0, 1, 0), Text: "b"}))
	require.NoError(t, c.Change(path, Edit{Range: rng(1, 1, 1, 1), Text: "rave "}))
	require.NoError(t, c.Change(path, Edit{Range: rng(0, 0, 0, 5), Text: "HELLO"}))
	require.EqualValues(t, 2, c.Version(path), "edits waiting to be sent count as the version they go out under")
	c.Poll(0)
	require.EqualValues(t, 2, c.Version(path))
	require.NoError(t, c.Save(path))
	o, res := await(t, rt, c, c.Request("fake/docs", nil, RequestOptions{}))
	require.True(t, o.OK())
	var docs map[string]fakeDoc
	require.NoError(t, json.Unmarshal(res.Value.(jsontext.Value), &docs))
	require.Equal(t, fakeDoc{Text: "HELLO\nbrave world\n", Version: 2}, docs[string(docURI(path))])
	require.NoError(t, c.CloseDocument(path))
	require.ErrorIs(t, c.Change(path, Edit{Text: "x"}), ErrNotOpen)
	require.ErrorIs(t, c.Save(path), ErrNotOpen)
	l := fakeLogOf(t, rt, c)
	require.Equal(t, 1, l.Changes, "three edits, one didChange")
	require.Contains(t, l.Methods, "textDocument/didSave")
	require.Contains(t, l.Methods, "textDocument/didClose")
	require.ErrorIs(t, c.Open("/no/such/file", "go", nil), fs.ErrNotExist)
	// Invalid UTF-8 reaches the server replaced, never as a broken frame.
	require.NoError(t, c.Open("/src/bad.txt", "plaintext", []byte("a\xffb")))
	_, res = await(t, rt, c, c.Request("fake/docs", nil, RequestOptions{}))
	require.NoError(t, json.Unmarshal(res.Value.(jsontext.Value), &docs))
	require.Equal(t, "a\uFFFDb", docs[string(docURI("/src/bad.txt"))].Text)
	require.NoError(t, c.Open(path, "plaintext", []byte("x")))
	require.ErrorIs(t, c.Open(path, "plaintext", []byte("x")), ErrAlreadyOpen)
}

// Edits made before a request reach the server before it.
func TestChangesFlushedBeforeRequest(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	const path = "/src/b.txt"
	require.NoError(t, c.Open(path, "plaintext", []byte("abc")))
	require.NoError(t, c.Change(path, Edit{Range: protocol.Range{End: protocol.Position{Character: 1}}, Text: "X"}))
	_, res := await(t, rt, c, c.Request("fake/docs", nil, RequestOptions{}))
	var docs map[string]fakeDoc
	require.NoError(t, json.Unmarshal(res.Value.(jsontext.Value), &docs))
	require.Equal(t, "Xbc", docs[string(docURI(path))].Text)
}

// $/progress is visible until it ends; show and log messages are kept for
// the host.
func TestProgressAndMessagesKept(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	o, _ := await(t, rt, c, c.Request("fake/progress", nil, RequestOptions{}))
	require.True(t, o.OK())
	require.Equal(t, []Progress{{Token: `"tok-1"`, Title: "Indexing", Message: "3/4", Percentage: 75}}, c.Progress())
	require.Equal(t, []Message{{Show: true, Type: 2, Text: "shown"}, {Show: false, Type: 3, Text: "logged"}}, c.TakeMessages())
	require.Empty(t, c.TakeMessages())
}

// 10,000 notifications in a burst: the loop keeps running, every Poll
// stays within its event budget, and the kept messages are bounded.
func TestNotificationFloodBounded(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	o, _ := await(t, rt, c, c.Request("fake/flood", map[string]any{"n": 10000}, RequestOptions{}))
	require.True(t, o.OK())
	msgs := c.TakeMessages()
	require.Len(t, msgs, maxMessagesKept)
	require.Equal(t, "log 9999", msgs[len(msgs)-1].Text)
}

// Stop sends shutdown then exit; the server exits on its own with 0.
func TestStopShutsDownCleanly(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	pump(t, rt, c, 10*time.Second, c.Initialized)
	pending := c.Request("fake/never", nil, RequestOptions{})
	c.Stop()
	o, res := await(t, rt, c, pending)
	require.Equal(t, runtime.Failed, o.State)
	require.ErrorIs(t, res.Err, ErrStopped)
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("server did not exit after shutdown and exit")
	}
	c.Poll(0)
	require.ErrorIs(t, c.Err(), ErrServerExited)
	require.Contains(t, c.Err().Error(), "exit code 0")
	l := c.Request("fake/log", nil, RequestOptions{})
	ol, _ := await(t, rt, c, l)
	require.Equal(t, runtime.Failed, ol.State)
}

// A server that ignores shutdown gets SIGTERM after the stop grace, and
// one that ignores SIGTERM too gets SIGKILL a second later (issue 25: the
// teardown budget).
func TestStopKillsServerThatIgnoresShutdown(t *testing.T) {
	for _, tc := range []struct {
		env, signal string
	}{{"", "SIGTERM"}, {fakeIgnoreTermEnv + "=1", "SIGKILL"}} {
		rt := newRT(t)
		c := startFake(t, rt, Config{StopGrace: 200 * time.Millisecond}, fakeNoShutdown+"=1", tc.env)
		pump(t, rt, c, 10*time.Second, c.Initialized)
		c.Stop()
		select {
		case <-c.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("server not killed after the stop grace")
		}
		c.Poll(0)
		require.Contains(t, c.Err().Error(), tc.signal)
	}
}

// A missing program is an error at Start that keeps its cause.
func TestStartMissingProgram(t *testing.T) {
	rt := newRT(t)
	_, err := Start(rt, Config{Argv: []string{"/no/such/language-server"}})
	require.ErrorIs(t, err, fs.ErrNotExist)
	_, err = Start(rt, Config{})
	require.Error(t, err)
	_, err = Start(nil, Config{Argv: []string{"x"}})
	require.Error(t, err)
}

// Params that cannot be encoded fail the job at once.
func TestUnencodableParamsFailTheJob(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	o, res := await(t, rt, c, c.Request("x/y", map[string]any{"c": make(chan int)}, RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	require.Contains(t, o.Err.Error(), "encode params")
	require.Error(t, res.Err)
	require.Error(t, c.Notify("x/z", make(chan int)))
	require.False(t, errors.Is(res.Err, ErrTimeout))
}

// Close returns even when the host stopped polling while the server
// flooded it: the reader, blocked on the full inbox, is drained so the
// shutdown reply can be read (regression: Close waited on Done while the
// reader waited on Poll).
func TestCloseAfterUnpolledFlood(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{StopGrace: 30 * time.Second})
	pump(t, rt, c, 10*time.Second, c.Initialized)
	c.Request("fake/flood", map[string]any{"n": 3 * inboxHighWater}, RequestOptions{})
	deadline := time.Now().Add(20 * time.Second)
	for c.t.received.Load() < inboxHighWater {
		require.True(t, time.Now().Before(deadline), "the fake never filled the inbox")
		time.Sleep(5 * time.Millisecond)
	}
	closed := make(chan struct{})
	go func() {
		c.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(15 * time.Second):
		// Release the blocked reader so the failing test can end.
		c.t.markClosed()
		c.p.Kill()
		<-closed
		t.Fatal("Close hung behind the full inbox")
	}
}

// A result that does not fit its method's type fails the job with a
// message saying so, and the client goes on.
func TestUndecodableResultFailsTheJob(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	o, res := await(t, rt, c, c.Request(protocol.MethodTextDocumentReferences, map[string]any{"bad": true}, RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	require.Contains(t, o.Err.Error(), "decode result")
	require.Error(t, res.Err)
	o, _ = await(t, rt, c, c.Request(protocol.MethodTextDocumentHover, nil, RequestOptions{}))
	require.True(t, o.OK())
}

// 4,000 diagnostics in one publication are decoded on the reader and kept
// whole.
func TestDiagnostics4000InOnePublication(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	const path = "/src/big.go"
	o, _ := await(t, rt, c, c.Request("fake/bigDiagnostics", map[string]any{"uri": string(docURI(path)), "n": 4000}, RequestOptions{}))
	require.True(t, o.OK())
	d := c.Diagnostics(path)
	require.Len(t, d, 4000)
	require.Equal(t, protocol.String("diag 3999"), d[3999].Message)
	require.EqualValues(t, 3999, d[3999].Range.Start.Line)
}

// A reply handled after its job was superseded, but before the cancel
// event, settles Cancelled: a stale result never reaches the host.
func TestReplyAfterSupersedeIsNotDelivered(t *testing.T) {
	rt := newRT(t)
	c := &Client{rt: rt, t: newTransport(), pending: map[int64]*request{}, results: map[runtime.JobID]Result{}, state: running}
	old := c.Request("textDocument/completion", nil, RequestOptions{Key: "completion"})
	oldID := c.nextID
	fresh := c.Request("textDocument/completion", nil, RequestOptions{Key: "completion"})
	// The reply to the superseded request is handled first.
	c.handle(evResponse{id: oldID, method: "textDocument/completion", result: protocol.CompletionItemSlice{{Label: "stale"}}})
	rt.Tick()
	o, ok := rt.TakeResult(old)
	require.True(t, ok)
	require.Equal(t, runtime.Cancelled, o.State)
	res, _ := c.TakeResult(old)
	require.Nil(t, res.Value)
	c.handle(evResponse{id: c.nextID, method: "textDocument/completion", result: protocol.CompletionItemSlice{{Label: "fresh"}}})
	rt.Tick()
	o, _ = rt.TakeResult(fresh)
	require.True(t, o.OK())
	c.Poll(0) // handles the cancel event the supersede queued: a no-op now
	c.t.markClosed()
}

// A 100-keystroke completion replay: each keystroke supersedes the last
// request; no superseded request delivers a result, every one of them sent
// $/cancelRequest, and the last completes.
func TestCompletionReplayNoStaleResults(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	pump(t, rt, c, 10*time.Second, c.Initialized)
	jobs := make([]runtime.JobID, 100)
	for i := range jobs {
		jobs[i] = c.Request(protocol.MethodTextDocumentCompletion, map[string]any{"n": 200, "delayMs": 20}, RequestOptions{Key: "completion"})
		c.Poll(0)
		rt.Tick()
	}
	pump(t, rt, c, 20*time.Second, func() bool { return rt.IsComplete(jobs[99]) })
	stale := 0
	for _, j := range jobs[:99] {
		o, ok := rt.TakeResult(j)
		require.True(t, ok)
		if o.State != runtime.Cancelled {
			stale++
		}
	}
	require.Zero(t, stale, "superseded requests delivered results")
	o, res := await(t, rt, c, jobs[99])
	require.True(t, o.OK())
	require.Len(t, res.Value.(*protocol.CompletionList).Items, 200)
	l := fakeLogOf(t, rt, c)
	require.Len(t, l.Cancelled, 99)
}

// Semantic tokens arrive as absolute rows made on the reader: the LSP
// specification's own example, a 70,000-integer array, and an array whose
// length is not a multiple of five (an error, not a panic).
func TestSemanticTokensDecodedToRows(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	o, res := await(t, rt, c, c.Request(protocol.MethodTextDocumentSemanticTokensFull, map[string]any{"small": true}, RequestOptions{}))
	require.True(t, o.OK())
	require.Equal(t, &SemanticTokens{ResultID: "r1", Tokens: []SemanticToken{
		{Line: 2, Col: 5, Len: 3, Type: 0, Mods: 3},
		{Line: 2, Col: 10, Len: 4, Type: 1, Mods: 0},
		{Line: 5, Col: 2, Len: 7, Type: 2, Mods: 0},
	}}, res.Value)

	o, res = await(t, rt, c, c.Request(protocol.MethodTextDocumentSemanticTokensFull, map[string]any{}, RequestOptions{}))
	require.True(t, o.OK())
	require.EqualValues(t, 14000, ext(o).(map[string]any)["len"])
	toks := res.Value.(*SemanticTokens).Tokens
	require.Len(t, toks, 14000)
	require.Equal(t, SemanticToken{Line: 14000, Col: 4, Len: 3, Type: 13999 % 7, Mods: 1}, toks[13999])

	o, _ = await(t, rt, c, c.Request(protocol.MethodTextDocumentSemanticTokensFull, map[string]any{"odd": true}, RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	require.Contains(t, o.Err.Error(), "not a multiple of 5")
}

// A reply with invalid UTF-8 or a duplicate key still settles its request
// (with U+FFFD, last key winning) instead of being dropped as malformed,
// which would leave the request waiting forever.
func TestInvalidUTF8ReplySettles(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	o, res := await(t, rt, c, c.Request("fake/invalidUTF8", nil, RequestOptions{Timeout: 10 * time.Second}))
	require.True(t, o.OK(), "%v", o.Err)
	require.JSONEq(t, `{"contents":{"kind":"markdown","value":"bad \uFFFD byte"}}`, string(res.Value.(jsontext.Value)))
	pump(t, rt, c, 10*time.Second, func() bool { return len(c.messages) > 0 })
	require.Equal(t, "log \uFFFD", c.TakeMessages()[0].Text)
	require.Zero(t, c.Stats().Malformed)
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0
	}
	require.NoError(t, err)
	return strings.Count(string(b), "\n")
}

// A server that dies is started again after the backoff: pending requests
// failed at its death, requests made meanwhile wait for the new server,
// and the open documents are reopened with their current text ahead of
// them (lifecycle: restart).
func TestCrashRestartsAndReopensDocuments(t *testing.T) {
	rt := newRT(t)
	starts := filepath.Join(t.TempDir(), "starts")
	texts := map[string]string{"/src/a.txt": "alpha"}
	c := startFake(t, rt, Config{
		RestartBackoff: 20 * time.Millisecond,
		DocumentText:   func(path string) ([]byte, error) { return []byte(texts[path]), nil },
	}, fakeStartsEnv+"="+starts)
	require.NoError(t, c.Open("/src/a.txt", "plaintext", []byte("alpha")))
	pump(t, rt, c, 10*time.Second, c.Initialized)
	texts["/src/a.txt"] = "alpha edited while the server was down"

	o, res := await(t, rt, c, c.Request("fake/crash", nil, RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	require.ErrorIs(t, res.Err, ErrServerExited)
	require.False(t, c.Initialized())
	o, res = await(t, rt, c, c.Request("fake/docs", nil, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	var docs map[string]fakeDoc
	require.NoError(t, json.Unmarshal(res.Value.(jsontext.Value), &docs))
	require.Equal(t, fakeDoc{Text: "alpha edited while the server was down", Version: 2}, docs[string(docURI("/src/a.txt"))])
	require.Equal(t, 2, countLines(t, starts))
	require.NoError(t, c.Change("/src/a.txt", Edit{Range: protocol.Range{End: protocol.Position{Character: 5}}, Text: "ALPHA"}))
	c.Poll(0)
	require.EqualValues(t, 3, c.Version("/src/a.txt"))
}

// A server that keeps dying is started again at most MaxRestarts times,
// then the client gives up: Done closes and requests fail at once.
func TestRestartGivesUpAfterMaxRestarts(t *testing.T) {
	rt := newRT(t)
	starts := filepath.Join(t.TempDir(), "starts")
	c := startFake(t, rt, Config{MaxRestarts: 3, RestartBackoff: 5 * time.Millisecond},
		fakeStartsEnv+"="+starts, fakeCrashInitEnv+"=1")
	job := c.Request(protocol.MethodTextDocumentHover, nil, RequestOptions{})
	o, _ := await(t, rt, c, job)
	require.Equal(t, runtime.Failed, o.State)
	pump(t, rt, c, 20*time.Second, gone(c))
	require.Equal(t, 4, countLines(t, starts), "the first start and three restarts")
	require.ErrorIs(t, c.Err(), ErrServerExited)
	require.Contains(t, c.Err().Error(), "exit code 4")
	o, _ = await(t, rt, c, c.Request(protocol.MethodTextDocumentHover, nil, RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
}

// Stop between a death and its restart ends the client at once.
func TestStopDuringRestartBackoff(t *testing.T) {
	rt := newRT(t)
	starts := filepath.Join(t.TempDir(), "starts")
	c := startFake(t, rt, Config{RestartBackoff: time.Hour}, fakeStartsEnv+"="+starts)
	o, _ := await(t, rt, c, c.Request("fake/crash", nil, RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	waiting := c.Request(protocol.MethodTextDocumentHover, nil, RequestOptions{})
	c.Close()
	o, res := await(t, rt, c, waiting)
	require.Equal(t, runtime.Failed, o.State)
	require.ErrorIs(t, res.Err, ErrStopped)
	<-c.Done()
	require.Equal(t, 1, countLines(t, starts))
}

// A restarted server gets each document with the text the client last
// synced, unsaved edits included, not the file on disk: the edits here
// cross lines and follow non-ASCII text, so their UTF-16 columns must be
// applied as LSP defines them (lifecycle: restart reopens its documents).
func TestRestartReopensWithSyncedText(t *testing.T) {
	rt := newRT(t)
	path := filepath.Join(t.TempDir(), "a.go")
	require.NoError(t, os.WriteFile(path, []byte("text on disk\n"), 0o644))
	c := startFake(t, rt, Config{RestartBackoff: 20 * time.Millisecond})
	require.NoError(t, c.Open(path, "go", []byte("héllo 😀 wörld\nsecond line\n")))
	pump(t, rt, c, 10*time.Second, c.Initialized)
	at := func(line, col uint32) protocol.Position { return protocol.Position{Line: line, Character: col} }
	// "😀" is two UTF-16 units: column 9 is just past "wörld"'s "w".
	require.NoError(t, c.Change(path,
		Edit{Range: protocol.Range{Start: at(0, 9), End: at(0, 10)}, Text: "W"},
		Edit{Range: protocol.Range{Start: at(0, 14), End: at(1, 6)}, Text: "!\nnew"},
	))
	c.Poll(0)
	require.NoError(t, c.Change(path, Edit{Range: protocol.Range{Start: at(2, 0), End: at(2, 0)}, Text: "third\n"}))
	const want = "héllo 😀 Wörld!\nnew line\nthird\n"

	o, res := await(t, rt, c, c.Request("fake/crash", nil, RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	require.ErrorIs(t, res.Err, ErrServerExited)
	// An edit made while the server is down follows the reopen.
	require.NoError(t, c.Change(path, Edit{Range: protocol.Range{Start: at(3, 0), End: at(3, 0)}, Text: "4\n"}))
	o, res = await(t, rt, c, c.Request("fake/docs", nil, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	var docs map[string]fakeDoc
	require.NoError(t, json.Unmarshal(res.Value.(jsontext.Value), &docs))
	require.Equal(t, want+"4\n", docs[string(docURI(path))].Text)
	require.True(t, c.Initialized())
	require.NoError(t, c.Err(), "a restarted client still reports the death it recovered from")
}

// A long session of keystrokes keeps a bounded log: it is folded into the
// document's text on a worker, and the text a restart reopens with is
// still every keystroke's.
func TestEditLogFoldedAndReopenedWhole(t *testing.T) {
	rt := newRT(t)
	path := "/src/typed.txt"
	c := startFake(t, rt, Config{RestartBackoff: 20 * time.Millisecond})
	require.NoError(t, c.Open(path, "plaintext", []byte("\n")))
	pump(t, rt, c, 10*time.Second, c.Initialized)
	var want strings.Builder
	var line, col uint32
	for i := range 3*compactAfter + 7 {
		ch := string(rune('a' + i%26))
		if i%100 == 99 {
			ch = "\n"
		}
		// Typed at the end of the text, before its last newline.
		p := protocol.Position{Line: line, Character: col}
		require.NoError(t, c.Change(path, Edit{Range: protocol.Range{Start: p, End: p}, Text: ch}))
		want.WriteString(ch)
		if col++; ch == "\n" {
			line, col = line+1, 0
		}
		if i%50 == 0 {
			c.Poll(0)
		}
	}
	d := c.docs[docURI(path)]
	pump(t, rt, c, 10*time.Second, func() bool { return !d.compacting })
	require.Less(t, len(d.log), compactAfter, "the log was never folded")
	text := func() string {
		o, res := await(t, rt, c, c.Request("fake/docs", nil, RequestOptions{}))
		require.True(t, o.OK(), "%v", o.Err)
		var docs map[string]fakeDoc
		require.NoError(t, json.Unmarshal(res.Value.(jsontext.Value), &docs))
		return docs[string(docURI(path))].Text
	}
	require.Equal(t, want.String()+"\n", text(), "the live server's copy")

	o, _ := await(t, rt, c, c.Request("fake/crash", nil, RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	require.Equal(t, want.String()+"\n", text(), "the restarted server's copy")
}

// An initialize reply whose result does not decode ends the client with an
// error that says why. Before, the missing server error became a non-nil
// error holding a nil *ResponseError, and the client's error read
// "initialize failed: <nil>".
func TestUndecodableInitializeReplyFailsTheClient(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{RestartBackoff: time.Hour}, fakeBadInitEnv+"=1")
	o, _ := await(t, rt, c, c.Request(protocol.MethodTextDocumentHover, nil, RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	require.Error(t, c.Err())
	require.Contains(t, c.Err().Error(), "initialize failed")
	require.Contains(t, c.Err().Error(), "protocol.InitializeResult", "the decoder's reason")
	var re *ResponseError
	require.False(t, errors.As(c.Err(), &re), "no server error is claimed: %v", c.Err())
}

// ResourceOperations are advertised in initialize, only when set; an
// operation LSP does not define stops Start.
func TestResourceOperationsAdvertised(t *testing.T) {
	workspaceEdit := func(c *Client) map[string]any {
		caps := c.initializeParams()["capabilities"].(map[string]any)
		return caps["workspace"].(map[string]any)["workspaceEdit"].(map[string]any)
	}
	require.Equal(t, []string{"create"}, workspaceEdit(&Client{cfg: Config{ResourceOperations: []string{"create"}}})["resourceOperations"])
	require.NotContains(t, workspaceEdit(&Client{}), "resourceOperations")

	_, err := Start(newRT(t), Config{Argv: []string{os.Args[0]}, ResourceOperations: []string{"create", "move"}})
	require.ErrorContains(t, err, `resource operation "move" is not create, rename or delete`)
}
