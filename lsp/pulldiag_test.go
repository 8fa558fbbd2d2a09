package lsp

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
)

// pullPrev returns the previousResultIds the fake was sent, in order.
func pullPrev(t *testing.T, c *Client) []string {
	t.Helper()
	o, res := await(t, c.rt, c, c.Request("fake/log", nil, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	var log struct{ PullPrev []string }
	require.NoError(t, json.Unmarshal(res.Value.(jsontext.Value), &log))
	return log.PullPrev
}

func pull(t *testing.T, c *Client, path string) *DiagnosticReport {
	t.Helper()
	o, res := await(t, c.rt, c, c.PullDiagnostics(path, RequestOptions{Key: "pull"}))
	require.True(t, o.OK(), "%v", o.Err)
	return res.Value.(*DiagnosticReport)
}

// A pull sends the resultId of the document's last report as
// previousResultId; an "unchanged" answer keeps the diagnostics (and marks
// nothing changed), a full one replaces them, with its related documents';
// closing the document forgets the resultId, so the next open asks afresh.
func TestPullDiagnosticsSendsThePreviousResultAndKeepsUnchanged(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{}, fakeCapsEnv+`={"textDocumentSync": 2, "diagnosticProvider": {"interFileDependencies": true, "workspaceDiagnostics": true}}`)
	pump(t, rt, c, 20*time.Second, func() bool { return c.Capabilities() != nil })
	require.True(t, c.Supports("textDocument/diagnostic"))
	require.True(t, c.Supports("workspace/diagnostic"))
	path := filepath.Join(t.TempDir(), "a.go")
	require.NoError(t, c.Open(path, "go", []byte("package a\n")))

	r := pull(t, c, path)
	require.Equal(t, &DiagnosticReport{Kind: "full", ResultID: "r1", Full: 2}, r)
	require.Equal(t, []string{"version 1"}, diagnosticMessages(c.Diagnostics(path)))
	require.Equal(t, []string{"related"}, diagnosticMessages(c.Diagnostics(path+".rel")), "the related document's report is kept")
	require.ElementsMatch(t, []string{string(docURI(path)), string(docURI(path + ".rel"))}, uriStrings(c.TakeChangedDiagnostics()))

	r = pull(t, c, path)
	require.Equal(t, &DiagnosticReport{Kind: "unchanged", ResultID: "r1", Unchanged: 1}, r)
	require.Equal(t, []string{"version 1"}, diagnosticMessages(c.Diagnostics(path)), "unchanged keeps the diagnostics")
	require.Empty(t, c.TakeChangedDiagnostics(), "nothing changed")

	require.NoError(t, c.Change(path, Edit{Range: protocol.Range{Start: protocol.Position{Line: 1}, End: protocol.Position{Line: 1}}, Text: "// x\n"}))
	r = pull(t, c, path)
	require.Equal(t, "full", r.Kind)
	require.Equal(t, []string{"version 2"}, diagnosticMessages(c.Diagnostics(path)))

	require.NoError(t, c.CloseDocument(path))
	require.NoError(t, c.Open(path, "go", []byte("package a\n")))
	pull(t, c, path)
	require.Equal(t, []string{"", "r1", "r1", ""}, pullPrev(t, c), "the last report's resultId is sent; a closed document's is forgotten")
}

// workspace/diagnostic sends every kept resultId and stores each
// document's report as a pull of it does; workspace/diagnostic/refresh is
// answered and noted once for the host.
func TestPullWorkspaceDiagnosticsAndRefresh(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{}, fakeCapsEnv+`={"textDocumentSync": 2, "diagnosticProvider": {"workspaceDiagnostics": true}}`)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.go"), filepath.Join(dir, "b.go")
	require.NoError(t, c.Open(a, "go", []byte("package a\n")))
	require.NoError(t, c.Open(b, "go", []byte("package a\n")))
	pull(t, c, a)

	o, res := await(t, rt, c, c.PullWorkspaceDiagnostics(RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	require.Equal(t, &DiagnosticReport{Full: 1, Unchanged: 1}, res.Value)
	require.Equal(t, []string{"version 1"}, diagnosticMessages(c.Diagnostics(a)), "a's report was unchanged")
	require.Equal(t, []string{"workspace 1"}, diagnosticMessages(c.Diagnostics(b)))
	prev := pullPrev(t, c)
	require.Equal(t, "ws:r1,relr1", prev[len(prev)-1], "a's and its related document's resultIds")

	require.False(t, c.TakeDiagnosticRefresh())
	result, code := serverRequest(t, c, "workspace/diagnostic/refresh", nil)
	require.Zero(t, code)
	require.JSONEq(t, "null", string(result))
	require.True(t, c.TakeDiagnosticRefresh())
	require.False(t, c.TakeDiagnosticRefresh(), "taken once")
}

// A pull answered after its document was closed stores nothing for it.
func TestPullDiagnosticsOfAClosedDocumentAreDropped(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{}, fakeCapsEnv+`={"textDocumentSync": 2, "diagnosticProvider": {}}`)
	path := filepath.Join(t.TempDir(), "a.go")
	require.NoError(t, c.Open(path, "go", []byte("package a\n")))
	job := c.PullDiagnostics(path, RequestOptions{})
	require.NoError(t, c.CloseDocument(path))
	require.NoError(t, c.Open(filepath.Join(filepath.Dir(path), "b.go"), "go", []byte("x\n")))
	o, res := await(t, rt, c, job)
	if o.OK() {
		require.Empty(t, res.Value.(*DiagnosticReport).Kind)
	}
	require.Empty(t, c.Diagnostics(path))
}

func uriStrings[T ~string](us []T) []string {
	out := make([]string, len(us))
	for i, u := range us {
		out[i] = string(u)
	}
	return out
}
