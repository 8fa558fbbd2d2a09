package lsp

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
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

// Against the real servers that take pull diagnostics: pyright registers
// textDocument/diagnostic for a client that takes its dynamic
// registration, and gopls offers it with its pullDiagnostics option. A pull
// of a file with an undefined name gets the error; an edit that fixes it
// and a second pull clear it; a pull with nothing new keeps what is
// stored (an unchanged report, where the server gives resultIds).
func TestRealServersAnswerPullDiagnostics(t *testing.T) {
	for _, tc := range []struct {
		name  string
		peer  testenv.PeerSpec
		args  []string
		init  map[string]any
		lang  string
		files map[string]string
		file  string
		bad   [3]uint32 // line, start, end of the undefined name
		want  string
	}{
		{name: "pyright", peer: testenv.Pyright, args: []string{"--stdio"}, lang: "python",
			files: map[string]string{"pyrightconfig.json": "{}\n", "a.py": "x = 1\nprint(undefined_name)\n"},
			file:  "a.py", bad: [3]uint32{1, 6, 20}, want: "undefined_name"},
		{name: "gopls", peer: testenv.Gopls, init: map[string]any{"pullDiagnostics": true}, lang: "go",
			files: map[string]string{"go.mod": "module m\n\ngo 1.22\n", "m.go": "package m\n\nvar X = undefinedName\n"},
			file:  "m.go", bad: [3]uint32{2, 8, 21}, want: "undefinedName"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prog := testenv.Peer(t, tc.peer)
			dir := t.TempDir()
			testenv.WriteTree(t, dir, tc.files)
			path := filepath.Join(dir, tc.file)
			rt := newRT(t)
			c, err := Start(rt, Config{Argv: append([]string{prog}, tc.args...), Dir: dir, Root: dir, InitializationOptions: tc.init})
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, c.Close()) })
			require.NoError(t, c.Open(path, tc.lang, []byte(tc.files[tc.file])))
			pump(t, rt, c, serversTimeout, func() bool { return c.Supports(methodDocumentDiagnostic) })

			// A server still loading may answer with nothing yet: ask
			// again until the error is there.
			var first *DiagnosticReport
			deadline := time.Now().Add(serversTimeout)
			for {
				o, res := awaitWithin(t, rt, c, c.PullDiagnostics(path, RequestOptions{Timeout: serversTimeout}))
				if o.OK() {
					first = res.Value.(*DiagnosticReport)
					if strings.Contains(strings.Join(diagnosticMessages(c.Diagnostics(path)), "\n"), tc.want) {
						break
					}
				}
				require.True(t, time.Now().Before(deadline), "no diagnostic of %s: %v", tc.want, o.Err)
				time.Sleep(100 * time.Millisecond)
			}
			require.NotEmpty(t, first.Kind)
			kept := diagnosticMessages(c.Diagnostics(path))

			o, res := awaitWithin(t, rt, c, c.PullDiagnostics(path, RequestOptions{Timeout: serversTimeout}))
			require.True(t, o.OK(), "%v", o.Err)
			again := res.Value.(*DiagnosticReport)
			if first.ResultID != "" {
				// pyright gives resultIds: nothing changed, so it says so.
				require.Equal(t, "unchanged", again.Kind, "a pull with the last resultId and nothing new")
			}
			require.Equal(t, kept, diagnosticMessages(c.Diagnostics(path)), "a second pull keeps what the first gave")

			require.NoError(t, c.Change(path, Edit{Range: protocol.Range{
				Start: protocol.Position{Line: tc.bad[0], Character: tc.bad[1]},
				End:   protocol.Position{Line: tc.bad[0], Character: tc.bad[2]}}, Text: "1"}))
			deadline = time.Now().Add(serversTimeout)
			for {
				o, _ := awaitWithin(t, rt, c, c.PullDiagnostics(path, RequestOptions{Timeout: serversTimeout}))
				if o.OK() && !strings.Contains(strings.Join(diagnosticMessages(c.Diagnostics(path)), "\n"), tc.want) {
					break
				}
				require.True(t, time.Now().Before(deadline), "the fixed name's error stays: %v", diagnosticMessages(c.Diagnostics(path)))
				time.Sleep(100 * time.Millisecond)
			}
		})
	}
}

// A report without a kind (gopls sends its full reports so) is a full
// one; a kind LSP does not define is an error.
func TestPulledReportWithoutAKindIsFull(t *testing.T) {
	v, err := decodeDocumentDiagnostic(jsontext.Value(`{"items": [{"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 1}}, "message": "m"}]}`))
	require.NoError(t, err)
	r := v.(*pulledReport)
	require.Equal(t, "full", r.docs[0].kind)
	require.Len(t, r.docs[0].params.Diagnostics, 1)
	_, err = decodeDocumentDiagnostic(jsontext.Value(`{"kind": "partial", "items": []}`))
	require.ErrorContains(t, err, `"partial" is not full or unchanged`)
}
