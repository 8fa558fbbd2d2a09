package luabind

import (
	"bytes"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
	lua "github.com/yuin/gopher-lua"
	"go.lsp.dev/protocol"

	"github.com/pmacs-go/pmacs-go/lsp"
)

// lspShaped is a result shaped for Lua on the language client's reader
// goroutine: v is the Lua value await returns, built there in full, so the
// main goroutine builds nothing; items, for an array-shaped result (an
// array, a completion list's items, semantic-token rows), is the array
// h:batches() hands out, of n elements.
//
// gopher-lua tables are plain Go values: creating and filling one touches
// no Lua state (LState.CreateTable only allocates), so the reader may build
// them, and the event that carries them to the main goroutine orders the
// writes before any read; after that only the main goroutine touches them.
type lspShaped struct {
	v     lua.LValue
	items *lua.LTable
	n     int
}

// shapeLSPResult is the binding's lsp.Config.Shape: a result becomes Lua
// tables in the JSON shape the server sent, except semantic tokens, whose
// decoded rows become {line, col, len, type, mods}.
func shapeLSPResult(method string, raw jsontext.Value, decoded any) (any, error) {
	// A null result decodes to a nil *lsp.SemanticTokens: shaped below, as
	// the null it is.
	if st, ok := decoded.(*lsp.SemanticTokens); ok && st != nil {
		rows := tables.CreateTable(len(st.Tokens), 0)
		for i, tok := range st.Tokens {
			r := tables.CreateTable(0, 5)
			r.RawSetString("line", lua.LNumber(tok.Line))
			r.RawSetString("col", lua.LNumber(tok.Col))
			r.RawSetString("len", lua.LNumber(tok.Len))
			r.RawSetString("type", lua.LNumber(tok.Type))
			r.RawSetString("mods", lua.LNumber(tok.Mods))
			rows.RawSetInt(i+1, r)
		}
		t := tables.CreateTable(0, 2)
		t.RawSetString("result_id", lua.LString(st.ResultID))
		t.RawSetString("tokens", rows)
		return &lspShaped{v: t, items: rows, n: len(st.Tokens)}, nil
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return &lspShaped{v: lua.LNil}, nil
	}
	// The one JSON-to-Lua conversion (luajson.go), keeping a completion
	// list's items for h:batches().
	d := newJSONDecoder(raw)
	if method == protocol.MethodTextDocumentCompletion {
		d.keep = "items"
	}
	v, n, err := d.value(0)
	if err != nil {
		return nil, fmt.Errorf("shape result for Lua: %w", err)
	}
	sh := &lspShaped{v: v}
	if t, ok := v.(*lua.LTable); ok && n >= 0 {
		sh.items, sh.n = t, n
	} else if d.kept != nil {
		sh.items, sh.n = d.kept, d.keptN
	}
	return sh, nil
}
