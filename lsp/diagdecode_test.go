package lsp

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
)

// A publication past MaxDiagnostics keeps the first MaxDiagnostics in the
// server's order and counts the rest (Bounds: a server cannot make the
// client hold more); the host's shaper sees the kept ones only, the client
// goes on answering, and the document's next publication clears the
// count.
func TestDiagnosticsFloodKeepsTheFirstMax(t *testing.T) {
	rt := newRT(t)
	shaped := -1
	c := startFake(t, rt, Config{ShapeDiagnostics: func(p *protocol.PublishDiagnosticsParams) any {
		shaped = len(p.Diagnostics)
		return len(p.Diagnostics)
	}})
	const path = "/src/flood.go"
	u := string(docURI(path))
	o, _ := await(t, rt, c, c.Request("fake/bigDiagnostics", map[string]any{"uri": u, "n": MaxDiagnostics + 2500}, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	pump(t, rt, c, 10*time.Second, func() bool { return c.Diagnostics(path) != nil })
	d := c.Diagnostics(path)
	require.Equal(t, MaxDiagnostics, len(d))
	require.Equal(t, protocol.String("diag 0"), d[0].Message)
	require.Equal(t, protocol.String(fmt.Sprintf("diag %d", MaxDiagnostics-1)), d[MaxDiagnostics-1].Message)
	require.Equal(t, 2500, c.DroppedDiagnostics(path))
	require.Equal(t, MaxDiagnostics, shaped)
	require.Equal(t, MaxDiagnostics, c.ShapedDiagnostics(path))

	o, _ = await(t, rt, c, c.Request("fake/diagnostics", map[string]any{"uri": u, "n": 1}, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	require.Len(t, c.Diagnostics(path), 2)
	require.Zero(t, c.DroppedDiagnostics(path))
}

// Decoding a publication of 100,000 diagnostics costs the memory of the
// MaxDiagnostics kept, not of all of them: the rest are skipped unread,
// so a frame full of tiny diagnostics cannot make the reader allocate
// many times its size (Bounds). The yardstick is a publication of exactly
// MaxDiagnostics.
func TestDiagnosticsFloodDecodesOnlyTheKept(t *testing.T) {
	const n = 100_000
	publication := func(n int) jsontext.Value {
		var b strings.Builder
		b.WriteString(`{"uri":"file:///src/a.go","version":3,"diagnostics":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"range":{"start":{"line":%d,"character":0},"end":{"line":%d,"character":1}},"message":"m%d"}`, i, i, i)
		}
		b.WriteString(`],"extra":{"ignored":[1,2,3]}}`)
		return jsontext.Value(b.String())
	}
	decode := func(raw jsontext.Value) (*protocol.PublishDiagnosticsParams, uint64) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		v := decodeNotification(protocol.MethodTextDocumentPublishDiagnostics, raw)
		runtime.ReadMemStats(&after)
		p, ok := v.(*protocol.PublishDiagnosticsParams)
		require.True(t, ok, "decoded as %T", v)
		return p, after.TotalAlloc - before.TotalAlloc
	}
	_, kept := decode(publication(MaxDiagnostics))
	raw := publication(n)
	p, flood := decode(raw)
	require.Equal(t, MaxDiagnostics, len(p.Diagnostics))
	require.Equal(t, protocol.String("m0"), p.Diagnostics[0].Message)
	require.EqualValues(t, MaxDiagnostics-1, p.Diagnostics[MaxDiagnostics-1].Range.Start.Line)
	require.Equal(t, "file:///src/a.go", string(p.URI))
	version, _ := p.Version.Get()
	require.EqualValues(t, 3, version)
	t.Logf("%d diagnostics: %d bytes allocated; %d of them (%d bytes): %d", MaxDiagnostics, kept, n, len(raw), flood)
	require.Less(t, flood, kept+kept/2+1<<20, "decoding %d diagnostics allocates about what %d do", n, MaxDiagnostics)

	_, dropped, err := decodeDiagnostics(raw, MaxDiagnostics)
	require.NoError(t, err)
	require.Equal(t, n-MaxDiagnostics, dropped)
}

// The bounded decoder (a max of 1 makes it scan even the smallest
// publication) reads publications as protocol.Unmarshal does:
// the last of a duplicate member wins, null diagnostics are none, and
// params that are not a publication are an error, never a panic.
func TestDiagnosticsDecodeEdgeCases(t *testing.T) {
	one := `{"range":{"start":{"line":1,"character":0},"end":{"line":1,"character":1}},"message":"x"}`
	p, dropped, err := decodeDiagnostics(jsontext.Value(`{"uri":"file:///a","diagnostics":[`+one+`,`+one+`],"uri":"file:///b","diagnostics":[`+one+`]}`), 1)
	require.NoError(t, err)
	require.Equal(t, "file:///b", string(p.URI))
	require.Len(t, p.Diagnostics, 1)
	require.Zero(t, dropped)

	p, _, err = decodeDiagnostics(jsontext.Value(`{"uri":"file:///a","diagnostics":null}`), 1)
	require.NoError(t, err)
	require.Empty(t, p.Diagnostics)

	for _, bad := range []string{`null`, `[]`, `{"uri":"file:///a","diagnostics":7}`, `{"diagnostics":[{"range":5}]}`, `{"diagnostics":[1,`} {
		_, _, err := decodeDiagnostics(jsontext.Value(bad), 1)
		require.Error(t, err, bad)
	}
}
