package lsp

import (
	"fmt"
	"math"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/pmacs-go/pmacs-go/lsp/lsptest"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
)

// fuzzMethods are the requests outstanding while fuzzed bytes are read:
// one per decoder the client has, and one kept as raw JSON.
var fuzzMethods = []string{
	protocol.MethodInitialize,
	protocol.MethodTextDocumentCompletion,
	protocol.MethodTextDocumentReferences,
	protocol.MethodTextDocumentDefinition,
	protocol.MethodTextDocumentHover,
	protocol.MethodTextDocumentDocumentSymbol,
	protocol.MethodTextDocumentRename,
	protocol.MethodTextDocumentSemanticTokensFull,
	protocol.MethodTextDocumentSemanticTokensRange,
	"workspace/symbol",
}

// fuzzSeeds are what servers send, and what hostile ones do.
func fuzzSeeds() [][]byte {
	return [][]byte{
		lsptest.Frames(`{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"textDocumentSync":2}}}`,
			`{"jsonrpc":"2.0","result":`+string(completionListJSON(3))+`,"id":2}`,
			`{"jsonrpc":"2.0","id":3,"result":[{"uri":"file:///a.go","range":{"start":{"line":1,"character":2},"end":{"line":1,"character":4}}}]}`),
		lsptest.Frames(`{"jsonrpc":"2.0","id":4,"result":[{"targetUri":"file:///b.go","targetRange":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"targetSelectionRange":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}}]}`,
			`{"jsonrpc":"2.0","id":5,"result":{"contents":{"kind":"markdown","value":"x"}}}`,
			`{"jsonrpc":"2.0","id":6,"result":[{"name":"f","kind":12,"range":{"start":{"line":0,"character":0},"end":{"line":2,"character":1}},"selectionRange":{"start":{"line":0,"character":5},"end":{"line":0,"character":6}},"children":[]}]}`),
		lsptest.Frames(`{"jsonrpc":"2.0","id":7,"result":{"changes":{"file:///a.go":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"newText":"y"}]}}}`,
			`{"jsonrpc":"2.0","id":8,"result":{"resultId":"1","data":[2,5,3,0,3,0,5,4,1,0]}}`,
			`{"jsonrpc":"2.0","id":9,"result":{"data":[1,2,3]}}`,
			`{"jsonrpc":"2.0","id":10,"result":[{"name":"S","kind":5,"location":{"uri":"file:///c.go"}}]}`),
		lsptest.Frames(`{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"file:///a.go","diagnostics":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"message":"m","severity":1,"code":"E1","source":"vet"}]}}`,
			`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"t","value":{"kind":"begin","title":"Indexing","percentage":5}}}`,
			`{"jsonrpc":"2.0","method":"window/logMessage","params":{"type":3,"message":"log `+"\xff"+`"}}`,
			`{"jsonrpc":"2.0","id":"srv1","method":"workspace/configuration","params":{"items":[{"section":"gopls"}]}}`),
		lsptest.Frames(`{"jsonrpc":"2.0","id":2,"error":{"code":-32801,"message":"content modified"}}`,
			`{"jsonrpc":"2.0","id":99,"result":null}`, `{not json`, `[]`,
			`{"jsonrpc":"2.0","id":5,"result":{"contents":"a","contents":"b"}}`),
		[]byte("Content-Length: 2147483648\r\n\r\n{}"),
		[]byte("Content-Length: -1\r\n\r\nContent-Length: abc\r\n\r\nContent-Length: 2\r\n\r\n{}"),
		lsptest.Frames(`{"jsonrpc":"2.0","result":"`+strings.Repeat("x", 260)+`","id":3}`, `{"jsonrpc":"2.0","id":4,"result":null}`),
		[]byte("Content-Length: 300\r\n\r\n" + strings.Repeat("[", 300)),
		lsptest.Frames(`{"jsonrpc":"2.0","id":3,"result":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}`),
	}
}

// FuzzFrameReader feeds random bytes to the client's reader as a server
// would write them, cut into random chunks, under a small frame limit:
// framing, the oversized path, envelope and result decoding and a shaper
// that walks every decoded value. It must never panic (the reader recovers a
// decoding panic and counts it as malformed; the check refuses any), never hold more
// than the limit plus a chunk in its buffer, and never allocate more than
// the limit plus a multiple of its input. (Issue 25: "Fuzz targets for
// what a peer controls ... the LSP frame reader with the JSON decoding and
// result shaping behind it".)
func FuzzFrameReader(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s, uint16(4096), uint16(300))
		f.Add(s, uint16(7), uint16(64))
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk, limit uint16) {
		chunkN := max(int(chunk)%8192, 1)
		maxFrame := max(int(limit)%(16<<10), 16)
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)

		tr := newTransport()
		tr.maxFrame = maxFrame
		// The inbox is taken after each chunk, which may hold more than
		// its bound of messages: the reader must not wait for a Poll.
		tr.maxInbox, tr.maxInboxBytes = math.MaxInt, math.MaxInt
		tr.shape = func(method string, raw jsontext.Value, decoded any) (any, error) {
			return fmt.Sprint(decoded), nil // visits every decoded field
		}
		tr.shapeDiags = func(p *protocol.PublishDiagnosticsParams) any { return fmt.Sprint(p) }
		for i, m := range fuzzMethods {
			tr.track(int64(i+1), m)
		}
		var panicked any
		fr := newFramer(maxFrame, func(body []byte) {
			require.LessOrEqual(t, len(body), maxFrame)
			func() {
				defer func() { panicked = recover() }()
				tr.onBody(body)
			}()
		}, func(string) {})
		fr.onOversize, fr.onBroken = tr.onOversize, tr.onBroken
		bufBound := 2*(max(maxFrame, headerMax)+chunkN) + 64
		for i := 0; i < len(data); i += chunkN {
			fr.feed(data[i:min(i+chunkN, len(data))])
			require.LessOrEqual(t, cap(fr.buf), bufBound, "the framer holds more than the limit and a chunk")
			// Poll's part: the inbox is taken, so the reader never waits.
			tr.take(1 << 20)
		}
		require.Nil(t, panicked)
		require.Zero(t, tr.decodePanics.Load(), "decoding a frame panicked")

		goruntime.ReadMemStats(&after)
		allocated := after.TotalAlloc - before.TotalAlloc
		require.LessOrEqual(t, allocated, uint64(4*maxFrame+256*len(data)+4<<20),
			"%d bytes allocated for %d bytes of input", allocated, len(data))
	})
}

// The fuzz seeds replay through Replay as through the reader: every reply
// settles one way or another, and the oversized and broken frames are
// told apart.
func TestReplayTellsWhatAClientWouldDo(t *testing.T) {
	seeds := fuzzSeeds()
	rep := Replay(Config{}, fuzzMethods, seeds[0], seeds[1], seeds[2])
	require.Len(t, rep.Results, 10)
	for _, r := range rep.Results {
		if r.Method == "textDocument/semanticTokens/range" {
			require.Error(t, r.Err, "3 integers are not a token")
			continue
		}
		require.NoError(t, r.Err, r.Method)
	}
	rep = Replay(Config{MaxFrame: 200}, fuzzMethods, seeds[7])
	require.Len(t, rep.Results, 2)
	require.ErrorIs(t, rep.Results[0].Err, ErrFrameTooLarge)
	require.NoError(t, rep.Results[1].Err)
	require.NoError(t, rep.Restart)
	require.EqualValues(t, 1, rep.Stats.Oversized)

	rep = Replay(Config{}, fuzzMethods, seeds[5])
	require.ErrorIs(t, rep.Restart, ErrFrameTooLarge)
	rep = Replay(Config{MaxFrame: 200}, fuzzMethods, seeds[8])
	require.ErrorIs(t, rep.Restart, ErrFrameTooLarge)

	rep = Replay(Config{Shape: func(string, jsontext.Value, any) (any, error) { panic("boom") }}, fuzzMethods, seeds[1])
	for _, r := range rep.Results {
		require.ErrorIs(t, r.Err, ErrHookPanicked)
	}
	require.EqualValues(t, 3, rep.Stats.HookPanics)
}
