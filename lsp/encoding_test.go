package lsp

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/textpos"
)

// The encoding the server chose is read from LSP 3.17's
// capabilities.positionEncoding or clangd's offsetEncoding beside them; an
// answer the client did not offer (utf-32), or none, is UTF-16.
func TestInitializeReadsThePositionEncoding(t *testing.T) {
	for raw, want := range map[string]textpos.Encoding{
		`{"capabilities": {"positionEncoding": "utf-8"}}`:                             textpos.UTF8,
		`{"capabilities": {}, "offsetEncoding": "utf-8"}`:                             textpos.UTF8,
		`{"capabilities": {"positionEncoding": "utf-16"}, "offsetEncoding": "utf-8"}`: textpos.UTF16,
		`{"capabilities": {"positionEncoding": "utf-32"}}`:                            textpos.UTF16,
		`{"capabilities": {}}`: textpos.UTF16,
	} {
		v, err := decodeInitialize(jsontext.Value(raw))
		require.NoError(t, err, raw)
		require.Equal(t, want, v.(*initializeResult).enc, raw)
	}
}

// The initialize request offers UTF-8 and UTF-16, in both the places
// servers read the offer.
func TestInitializeOffersUTF8AndUTF16(t *testing.T) {
	c := &Client{}
	caps := c.initializeParams()["capabilities"].(map[string]any)
	require.Equal(t, []string{"utf-8", "utf-16"}, caps["general"].(map[string]any)["positionEncodings"])
	require.Equal(t, []string{"utf-8", "utf-16"}, caps["offsetEncoding"])
}

// Against a server that chose UTF-8, edits are taken in byte columns: the
// text the client rebuilds for a restarted server (its log applied to the
// text it opened) is the text the server had, on a line of é, CJK and an
// emoji beyond the BMP, where UTF-16 columns would land elsewhere.
func TestUTF8ServerGetsByteColumnsThroughARestart(t *testing.T) {
	for _, tc := range []struct {
		caps string
		enc  textpos.Encoding
	}{
		{`{"textDocumentSync": 2, "positionEncoding": "utf-8"}`, textpos.UTF8},
		{`{"textDocumentSync": 2}`, textpos.UTF16},
	} {
		t.Run(tc.enc.String(), func(t *testing.T) {
			rt := newRT(t)
			c := startFake(t, rt, Config{RestartBackoff: 20 * time.Millisecond}, fakeCapsEnv+"="+tc.caps)
			pump(t, rt, c, 10*time.Second, c.Initialized)
			require.Equal(t, tc.enc, c.Encoding())
			line := "é中😀x = 1"
			require.NoError(t, c.Open("/src/a.go", "go", []byte(line+"\n")))
			// Replace the x: its byte column and its column in the
			// server's units.
			bx := len("é中😀")
			col := textpos.Units(line, bx, tc.enc)
			require.NoError(t, c.Change("/src/a.go", Edit{Range: protocol.Range{
				Start: protocol.Position{Character: uint32(col)}, End: protocol.Position{Character: uint32(col + 1)}}, Text: "y"}))
			o, res := await(t, rt, c, c.Request("fake/crash", nil, RequestOptions{}))
			require.Equal(t, runtime.Failed, o.State, "%v", res.Err)
			o, res = await(t, rt, c, c.Request("fake/docs", nil, RequestOptions{}))
			require.True(t, o.OK(), "%v", o.Err)
			var docs map[string]fakeDoc
			require.NoError(t, json.Unmarshal(res.Value.(jsontext.Value), &docs))
			require.Equal(t, "é中😀y = 1\n", docs[string(docURI("/src/a.go"))].Text)
		})
	}
}
