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

// tables is the nil state whose CreateTable builds tables off the main
// goroutine (see lspShaped).
var tables *lua.LState

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
	// Invalid UTF-8 becomes U+FFFD and the last of duplicate names wins,
	// as in the client's own decoding.
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	s := shaper{dec: dec, keys: map[string]string{}, completion: method == protocol.MethodTextDocumentCompletion}
	v, n, err := s.value(0)
	if err != nil {
		return nil, fmt.Errorf("shape result for Lua: %w", err)
	}
	sh := &lspShaped{v: v}
	if t, ok := v.(*lua.LTable); ok && n >= 0 {
		sh.items, sh.n = t, n
	} else if s.items != nil {
		sh.items, sh.n = s.items, s.itemsN
	}
	return sh, nil
}

type shaper struct {
	dec *jsontext.Decoder
	// keys interns member names: a reply of 6,000 items repeats a dozen.
	keys map[string]string
	// completion: the result may be a completion list, whose items array
	// (a member of the top-level object) is kept in items.
	completion bool
	items      *lua.LTable
	itemsN     int
	// vals and names are a stack of the elements and members read so far
	// of the arrays and objects being shaped: a table is made once its
	// size is known, since gopher-lua gives a table made without a size
	// room for 32 entries, which a reply of small objects pays per object.
	vals  []lua.LValue
	names []string
}

// value shapes the next JSON value; n is its length when it is an array,
// else -1. JSON null is nil: a member that is null is absent, an element
// that is null a hole at its index.
func (s *shaper) value(depth int) (lua.LValue, int, error) {
	tok, err := s.dec.ReadToken()
	if err != nil {
		return nil, -1, err
	}
	switch tok.Kind() {
	case 'n':
		return lua.LNil, -1, nil
	case 't', 'f':
		return lua.LBool(tok.Bool()), -1, nil
	case '"':
		return lua.LString(tok.String()), -1, nil
	case '0':
		// A number past float64's range is an error here, as it is to
		// the decoders of the client and of encoding/json.
		f, err := tok.Float()
		return lua.LNumber(f), -1, err
	case '[':
		start := len(s.vals)
		for s.dec.PeekKind() != ']' {
			v, _, err := s.value(depth + 1)
			if err != nil {
				return nil, -1, err
			}
			s.vals = append(s.vals, v)
		}
		n := len(s.vals) - start
		t := tables.CreateTable(n, 0)
		for i, v := range s.vals[start:] {
			t.RawSetInt(i+1, v)
		}
		clear(s.vals[start:])
		s.vals = s.vals[:start]
		_, err := s.dec.ReadToken()
		return t, n, err
	case '{':
		start := len(s.vals)
		for s.dec.PeekKind() != '}' {
			k, err := s.dec.ReadToken()
			if err != nil {
				return nil, -1, err
			}
			name := k.String()
			if in, ok := s.keys[name]; ok {
				name = in
			} else if len(s.keys) < 1024 {
				s.keys[name] = name
			}
			v, n, err := s.value(depth + 1)
			if err != nil {
				return nil, -1, err
			}
			if v != lua.LNil {
				s.names = append(s.names, name)
				s.vals = append(s.vals, v)
			}
			if s.completion && depth == 0 && name == "items" && n >= 0 {
				s.items, s.itemsN = v.(*lua.LTable), n
			}
		}
		t := tables.CreateTable(0, len(s.vals)-start)
		names := s.names[len(s.names)-(len(s.vals)-start):]
		for i, v := range s.vals[start:] {
			t.RawSetString(names[i], v)
		}
		clear(s.vals[start:])
		s.vals = s.vals[:start]
		s.names = s.names[:len(s.names)-len(names)]
		_, err := s.dec.ReadToken()
		return t, -1, err
	}
	return nil, -1, fmt.Errorf("unexpected JSON token %v", tok)
}
