package lsp

import (
	"errors"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// Shape turns results into the host's form on the reader: it gets the raw
// JSON and the decoded value, its value is the Result's, and the client's
// own initialize is never shaped. ShapeDiagnostics does the same for
// publications (results: "decoded and shaped on the worker").
func TestShapeRunsOnResultsAndDiagnostics(t *testing.T) {
	rt := newRT(t)
	type shaped struct {
		raw     string
		decoded any
	}
	c := startFake(t, rt, Config{
		Shape: func(_ string, raw jsontext.Value, decoded any) (any, error) {
			return shaped{raw: string(raw), decoded: decoded}, nil
		},
		ShapeDiagnostics: func(p *protocol.PublishDiagnosticsParams) any { return len(p.Diagnostics) },
	})
	o, res := await(t, rt, c, c.Request(protocol.MethodTextDocumentReferences, map[string]any{}, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	s := res.Value.(shaped)
	require.Len(t, s.decoded.([]protocol.Location), 2000)
	require.Contains(t, s.raw, `"file:///src/f39.go"`)
	require.False(t, res.Received.IsZero())
	require.NotNil(t, c.Capabilities(), "initialize was shaped")

	o, _ = await(t, rt, c, c.Request("fake/bigDiagnostics", map[string]any{"uri": "file:///src/big.go", "n": 4000}, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	require.Equal(t, 4000, c.ShapedDiagnostics("/src/big.go"))
	require.Nil(t, c.ShapedDiagnostics("/src/other.go"))
}

// A Shape error fails the request with it.
func TestShapeErrorFailsTheRequest(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{Shape: func(string, jsontext.Value, any) (any, error) { return nil, errors.New("cannot shape") }})
	o, res := await(t, rt, c, c.Request(protocol.MethodTextDocumentHover, map[string]any{}, RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	require.ErrorContains(t, res.Err, "cannot shape")
}
