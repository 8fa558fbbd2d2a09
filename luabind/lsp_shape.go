package luabind

import (
	"bytes"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/lsp"
)

// lspObject is a JSON object shaped for Lua on the language client's
// reader goroutine: its members in the server's order, values shaped in
// turn (nil, bool, float64, string, *lspObject, []any). Building Lua
// tables from it is all the main goroutine does: no JSON, no reflection,
// no map iteration.
type lspObject struct {
	keys []string
	vals []any
}

// get returns a member's value, nil when absent; the last of duplicate
// names, as in the table.
func (o *lspObject) get(key string) any {
	for i := len(o.keys) - 1; i >= 0; i-- {
		if o.keys[i] == key {
			return o.vals[i]
		}
	}
	return nil
}

// shapeLSPResult is the binding's lsp.Config.Shape: a result is kept in
// the JSON shape the server sent, shaped for Lua, except semantic tokens,
// which stay decoded rows {line, col, len, type, mods}.
func shapeLSPResult(_ string, raw jsontext.Value, decoded any) (any, error) {
	if st, ok := decoded.(*lsp.SemanticTokens); ok {
		return st, nil
	}
	return shapeJSON(raw)
}

// shapeJSON shapes a JSON value. Invalid UTF-8 becomes U+FFFD and the
// last of duplicate names wins (as a Lua table would keep it), as the
// client's decoding does.
func shapeJSON(raw []byte) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	s := shaper{dec: dec, keys: map[string]string{}}
	v, err := s.value()
	if err != nil {
		return nil, fmt.Errorf("shape result for Lua: %w", err)
	}
	return v, nil
}

type shaper struct {
	dec *jsontext.Decoder
	// keys interns member names: a reply of 6,000 items repeats a dozen.
	keys map[string]string
}

func (s *shaper) value() (any, error) {
	tok, err := s.dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case 'n':
		return nil, nil
	case 't', 'f':
		return tok.Bool(), nil
	case '"':
		return tok.String(), nil
	case '0':
		// A number past float64's range is an error here, as it is to
		// the decoders of the client and of encoding/json.
		return tok.Float()
	case '[':
		arr := []any{}
		for s.dec.PeekKind() != ']' {
			v, err := s.value()
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		_, err := s.dec.ReadToken()
		return arr, err
	case '{':
		o := &lspObject{}
		for s.dec.PeekKind() != '}' {
			k, err := s.dec.ReadToken()
			if err != nil {
				return nil, err
			}
			name := k.String()
			if in, ok := s.keys[name]; ok {
				name = in
			} else if len(s.keys) < 1024 {
				s.keys[name] = name
			}
			v, err := s.value()
			if err != nil {
				return nil, err
			}
			o.keys = append(o.keys, name)
			o.vals = append(o.vals, v)
		}
		_, err := s.dec.ReadToken()
		return o, err
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// shapedToLua builds the Lua value of a shaped result. JSON null is nil
// (an array keeps its holes at their indexes).
func shapedToLua(L *lua.LState, v any) lua.LValue {
	switch x := v.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(x)
	case float64:
		return lua.LNumber(x)
	case string:
		return lua.LString(x)
	case *lspObject:
		t := L.CreateTable(0, len(x.keys))
		for i, k := range x.keys {
			if x.vals[i] != nil {
				t.RawSetString(k, shapedToLua(L, x.vals[i]))
			}
		}
		return t
	case []any:
		t := L.CreateTable(len(x), 0)
		for i, e := range x {
			t.RawSetInt(i+1, shapedToLua(L, e))
		}
		return t
	case lsp.SemanticToken:
		t := L.CreateTable(0, 5)
		t.RawSetString("line", lua.LNumber(x.Line))
		t.RawSetString("col", lua.LNumber(x.Col))
		t.RawSetString("len", lua.LNumber(x.Len))
		t.RawSetString("type", lua.LNumber(x.Type))
		t.RawSetString("mods", lua.LNumber(x.Mods))
		return t
	case *lsp.SemanticTokens:
		t := L.CreateTable(0, 2)
		t.RawSetString("result_id", lua.LString(x.ResultID))
		rows := L.CreateTable(len(x.Tokens), 0)
		for i := range x.Tokens {
			rows.RawSetInt(i+1, shapedToLua(L, x.Tokens[i]))
		}
		t.RawSetString("tokens", rows)
		return t
	}
	// Results reach here only through Shape; anything else is a value
	// a Go host settled by hand, converted the slow general way.
	return goToLua(L, v)
}
