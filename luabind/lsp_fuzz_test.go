package luabind

import (
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
	"go.lsp.dev/protocol"

	"github.com/pmacs-go/pmacs-go/lsp"
	"github.com/pmacs-go/pmacs-go/lsp/lsptest"
)

// lspFuzzMethods are the requests outstanding while fuzzed bytes are read:
// one per decoder the client has, and methods kept as raw JSON.
var lspFuzzMethods = []string{
	protocol.MethodTextDocumentCompletion,
	protocol.MethodTextDocumentReferences,
	protocol.MethodTextDocumentDefinition,
	protocol.MethodTextDocumentHover,
	protocol.MethodTextDocumentDocumentSymbol,
	protocol.MethodTextDocumentRename,
	protocol.MethodTextDocumentSemanticTokensFull,
	protocol.MethodTextDocumentSemanticTokensRange,
	"workspace/symbol",
	"textDocument/codeAction",
}

// FuzzLSPWireShapedForLua feeds random bytes, as a language server would
// write them, through the client's reader with the binding's own hooks
// (shapeLSPResult, shapeDiagnostics) behind the decoding, cut into random
// chunks under a random frame limit. The binding's shapers must never
// panic on anything a server sends (the reader would recover, and the check
// refuses it), every reply settles as a Lua value or an error, every
// publication as rows of tables, and the bytes allocated stay within the
// frame limit plus a multiple of the input. (Issue 25: "random bytes on the
// wire (through the framer, transport.onBody, decodeResult, and a shaper;
// luabind's real shaper is best)".)
func FuzzLSPWireShapedForLua(f *testing.F) {
	loc := `{"uri":"file:///a.go","range":{"start":{"line":1,"character":2},"end":{"line":1,"character":4}}}`
	seeds := [][]byte{
		lsptest.Frames(`{"jsonrpc":"2.0","id":1,"result":{"isIncomplete":false,"items":[{"label":"a","kind":3,"detail":"d","documentation":{"kind":"markdown","value":"x"}},{"label":"b"}]}}`,
			`{"jsonrpc":"2.0","result":[`+loc+`,`+loc+`],"id":2}`,
			`{"jsonrpc":"2.0","id":3,"result":`+loc+`}`,
			`{"jsonrpc":"2.0","id":4,"result":{"contents":{"kind":"markdown","value":"`+"\xff"+`"}}}`),
		lsptest.Frames(`{"jsonrpc":"2.0","id":5,"result":[{"name":"f","kind":12,"range":{"start":{"line":0,"character":0},"end":{"line":2,"character":1}},"selectionRange":{"start":{"line":0,"character":5},"end":{"line":0,"character":6}}}]}`,
			`{"jsonrpc":"2.0","id":6,"result":{"documentChanges":[{"textDocument":{"uri":"file:///a.go","version":3},"edits":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"newText":"y"}]}]}}`,
			`{"jsonrpc":"2.0","id":7,"result":{"resultId":"1","data":[2,5,3,0,3,0,5,4,1,0]}}`,
			`{"jsonrpc":"2.0","id":8,"result":{"data":[1,2]}}`),
		lsptest.Frames(`{"jsonrpc":"2.0","id":9,"result":[null,1e400,{"a":null,"a":[]},"\ud800"]}`,
			`{"jsonrpc":"2.0","id":10,"result":[{"title":"t","kind":"quickfix","edit":{"changes":{}}}]}`,
			`{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"file:///a.go","diagnostics":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"message":"m","severity":0,"code":12,"source":"vet"},{"range":{"start":{"line":1,"character":0},"end":{"line":1,"character":1}},"message":{"kind":"markdown","value":"v"}}]}}`),
		[]byte("Content-Length: 2147483648\r\n\r\n{}"),
		[]byte("Content-Length: 500\r\n\r\n{\"result\":\"" + strings.Repeat("x", 470) + "\",\"id\":4}" + strings.Repeat(" ", 17)),
		lsptest.Frames(`{"jsonrpc":"2.0","id":9,"result":` + strings.Repeat("[", 3000) + strings.Repeat("]", 3000) + `}`),
	}
	for _, s := range seeds {
		f.Add(s, uint16(4096), uint16(400))
		f.Add(s, uint16(5), uint16(60))
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk, limit uint16) {
		chunkN := max(int(chunk)%8192, 1)
		maxFrame := max(int(limit)%(16<<10), 16)
		var chunks [][]byte
		for i := 0; i < len(data); i += chunkN {
			chunks = append(chunks, data[i:min(i+chunkN, len(data))])
		}
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)
		rep := lsp.Replay(lsp.Config{MaxFrame: maxFrame, Shape: shapeLSPResult, ShapeDiagnostics: shapeDiagnostics},
			lspFuzzMethods, chunks...)
		goruntime.ReadMemStats(&after)

		require.Zero(t, rep.Stats.HookPanics, "a shaper of the binding panicked")
		require.LessOrEqual(t, len(rep.Results), len(lspFuzzMethods))
		for _, r := range rep.Results {
			if r.Err != nil {
				continue
			}
			sh, ok := r.Value.(*lspShaped)
			require.True(t, ok, "%s settled with %T", r.Method, r.Value)
			require.NotNil(t, sh.v, r.Method)
			if sh.items != nil {
				require.GreaterOrEqual(t, sh.n, 0)
			}
		}
		for _, d := range rep.Diagnostics {
			rows, ok := d.([]lua.LValue)
			require.True(t, ok, "a publication shaped as %T", d)
			for _, row := range rows {
				_, ok := row.(*lua.LTable)
				require.True(t, ok)
			}
		}
		allocated := after.TotalAlloc - before.TotalAlloc
		require.LessOrEqual(t, allocated, uint64(4*maxFrame+1024*len(data)+4<<20),
			"%d bytes allocated for %d bytes of input", allocated, len(data))
	})
}
