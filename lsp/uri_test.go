package lsp

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// TestDiagnosticsReachTheDocumentWhateverTheSpelling covers issue 25's
// point 6: a server may spell the URI of the document it publishes for
// otherwise than the client did (gopls leaves '@' and '+' unescaped,
// another server escapes them, or uses lower-case hex, or names
// localhost, or leaves '#' bare); every spelling reaches the document the
// client opened, by path and by its own URI, and a Poll reports the
// client's URI.
func TestDiagnosticsReachTheDocumentWhateverTheSpelling(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	const path = "/src/x@y+z/my file#ü.go"
	for _, spelling := range []string{
		"file:///src/x@y+z/my%20file%23%C3%BC.go",
		"file:///src/x%40y%2Bz/my%20file%23%C3%BC.go",
		"file:///src/x%40y%2bz/my%20file%23%c3%bc.go",
		"file://localhost/src/x@y+z/my%20file%23%C3%BC.go",
		"file:///src/x@y+z/my%20file#%C3%BC.go",
	} {
		var reported []uri.URI
		job := c.Request("fake/diagnostics", map[string]any{"uri": spelling, "n": 1}, RequestOptions{})
		deadline := time.Now().Add(20 * time.Second)
		for !rt.IsComplete(job) {
			c.Poll(0)
			reported = append(reported, c.TakeChangedDiagnostics()...)
			rt.Tick()
			require.True(t, time.Now().Before(deadline), "the publication never came")
			select {
			case <-c.Ready():
			case <-rt.Ready():
			case <-time.After(5 * time.Millisecond):
			}
		}
		rt.TakeResult(job)
		require.Equal(t, []uri.URI{docURI(path)}, reported, spelling)
		require.Len(t, c.Diagnostics(path), 2, spelling)
		require.Len(t, c.DiagnosticsURI(uri.URI(spelling)), 2, spelling)
		c.diags = map[uri.URI]*protocol.PublishDiagnosticsParams{}
	}
}

// TestDiagnosticsForAURIThatNamesNoFile covers the other side of the
// normalisation: a URI that names no local file (another scheme, another
// host) keys its own entry and reaches no document.
func TestDiagnosticsForAURIThatNamesNoFile(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	for _, u := range []string{"untitled:Untitled-1", "file://server/src/m.go"} {
		_, _ = await(t, rt, c, c.Request("fake/diagnostics", map[string]any{"uri": u, "n": 1}, RequestOptions{}))
		require.Len(t, c.DiagnosticsURI(uri.URI(u)), 2, u)
	}
	require.Nil(t, c.Diagnostics("/src/m.go"), "a remote host's file is not the local one")
}

// TestDocumentsAreOpenedUnderEscapedURIs covers issue 25's point 6 from
// the client's side: didOpen names a#b.go, "my file.go", 50%.go and ü.go
// by their percent-encoded URIs, which is how the server keys them.
func TestDocumentsAreOpenedUnderEscapedURIs(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	for _, name := range []string{"a#b.go", "my file.go", "50%.go", "ü.go"} {
		require.NoError(t, c.Open("/src/"+name, "go", []byte(name)))
	}
	_, res := await(t, rt, c, c.Request("fake/docs", nil, RequestOptions{}))
	var docs map[string]fakeDoc
	require.NoError(t, json.Unmarshal(res.Value.(jsontext.Value), &docs))
	require.Equal(t, map[string]fakeDoc{
		"file:///src/a%23b.go":     {Text: "a#b.go", Version: 1},
		"file:///src/my%20file.go": {Text: "my file.go", Version: 1},
		"file:///src/50%25.go":     {Text: "50%.go", Version: 1},
		"file:///src/%C3%BC.go":    {Text: "ü.go", Version: 1},
	}, docs)
}
