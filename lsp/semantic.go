package lsp

import (
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/protocol"
)

// SemanticToken is one semantic token with an absolute position, as the
// relative five-integer encoding of the protocol describes it. Type and
// Mods index and mask the legend the server gave in its capabilities
// (semanticTokensProvider.legend).
type SemanticToken struct {
	Line, Col, Len uint32
	Type           uint32
	Mods           uint32
}

// SemanticTokens is the decoded result of textDocument/semanticTokens/full
// and /range: the rows are made on the reader goroutine, so a 70,000-integer
// array costs the main goroutine nothing.
type SemanticTokens struct {
	ResultID string
	Tokens   []SemanticToken
}

func decodeSemanticTokens(raw jsontext.Value) (any, error) {
	if isNull(raw) {
		return (*SemanticTokens)(nil), nil
	}
	var st protocol.SemanticTokens
	if err := protocol.Unmarshal(raw, &st); err != nil {
		return nil, err
	}
	rows, err := SemanticTokenRows(st.Data)
	if err != nil {
		return nil, err
	}
	out := &SemanticTokens{Tokens: rows}
	if st.ResultID != nil {
		out.ResultID = *st.ResultID
	}
	return out, nil
}

// SemanticTokenRows turns the protocol's relative encoding (deltaLine,
// deltaStart, length, type, modifiers per token; deltaStart is relative to
// the previous token only on the same line) into absolute rows. An array
// whose length is not a multiple of five is an error.
func SemanticTokenRows(data []uint32) ([]SemanticToken, error) {
	if len(data)%5 != 0 {
		return nil, fmt.Errorf("lsp: semantic tokens: %d integers is not a multiple of 5", len(data))
	}
	rows := make([]SemanticToken, len(data)/5)
	var line, col uint32
	for i := range rows {
		d := data[i*5 : i*5+5]
		if d[0] != 0 {
			line += d[0]
			col = 0
		}
		col += d[1]
		rows[i] = SemanticToken{Line: line, Col: col, Len: d[2], Type: d[3], Mods: d[4]}
	}
	return rows, nil
}

// The token types and modifiers the client announces: the protocol's
// predefined sets.
var (
	semanticTokenTypes = []string{
		"namespace", "type", "class", "enum", "interface", "struct", "typeParameter", "parameter",
		"variable", "property", "enumMember", "event", "function", "method", "macro", "keyword",
		"modifier", "comment", "string", "number", "regexp", "operator", "decorator",
	}
	semanticTokenModifiers = []string{
		"declaration", "definition", "readonly", "static", "deprecated", "abstract", "async",
		"modification", "documentation", "defaultLibrary",
	}
)
