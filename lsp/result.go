package lsp

import (
	"bytes"
	"slices"

	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/protocol"
)

// decoders gives the Go type a method's result decodes into on the reader
// goroutine. A method not listed keeps its raw JSON (a jsontext.Value), which
// the host decodes as it sees fit.
var decoders = map[string]func(jsontext.Value) (any, error){
	protocol.MethodInitialize:                          decodeInitialize,
	protocol.MethodTextDocumentCompletion:              decodeAs[protocol.CompletionResult],
	protocol.MethodTextDocumentReferences:              decodeAs[[]protocol.Location],
	protocol.MethodTextDocumentDefinition:              decodeAs[protocol.DefinitionResult],
	protocol.MethodTextDocumentHover:                   decodeAs[*protocol.Hover],
	protocol.MethodTextDocumentDocumentSymbol:          decodeAs[protocol.DocumentSymbolResult],
	protocol.MethodTextDocumentRename:                  decodeAs[*protocol.WorkspaceEdit],
	protocol.MethodTextDocumentSemanticTokensFull:      decodeSemanticTokens,
	protocol.MethodTextDocumentSemanticTokensRange:     decodeSemanticTokens,
	protocol.MethodTextDocumentSemanticTokensFullDelta: decodeSemanticTokensDelta,
	methodDocumentDiagnostic:                           decodeDocumentDiagnostic,
	methodWorkspaceDiagnostic:                          decodeWorkspaceDiagnostic,
}

func decodeAs[T any](raw jsontext.Value) (any, error) {
	var v T
	if isNull(raw) {
		return v, nil
	}
	if err := protocol.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return v, nil
}

func isNull(raw jsontext.Value) bool {
	return len(raw) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

func decodeResult(method string, raw jsontext.Value) (any, error) {
	if d := decoders[method]; d != nil {
		return d(raw)
	}
	return slices.Clone(raw), nil
}

// resultLen is the item count of an array-shaped result, -1 for any other.
func resultLen(v any) int {
	switch r := v.(type) {
	case []protocol.Location:
		return len(r)
	case protocol.CompletionItemSlice:
		return len(r)
	case *protocol.CompletionList:
		if r == nil {
			return -1
		}
		return len(r.Items)
	case protocol.LocationSlice:
		return len(r)
	case protocol.DefinitionLinkSlice:
		return len(r)
	case *SemanticTokens:
		if r == nil {
			return -1
		}
		return len(r.Tokens)
	}
	return -1
}
