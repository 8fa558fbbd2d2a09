package luabind

import (
	"encoding/json"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
	"go.lsp.dev/protocol"
)

// locations2000JSON is an LSP references result of 2,000 locations.
func locations2000JSON() []byte {
	locs := make([]any, 2000)
	for i := range locs {
		locs[i] = map[string]any{"uri": "file:///src/proj/pkg/file.go", "range": map[string]any{
			"start": map[string]any{"line": i, "character": 4}, "end": map[string]any{"line": i, "character": 12}}}
	}
	raw, _ := json.Marshal(locs)
	return raw
}

// BenchmarkJSONToLua2000Locations converts 2,000 locations to Lua: from
// JSON text (json_decode, protocol values), from a decoded value (an
// external job's result) and as the language client's reader shapes a
// result.
func BenchmarkJSONToLua2000Locations(b *testing.B) {
	raw := locations2000JSON()
	var decoded any
	require.NoError(b, json.Unmarshal(raw, &decoded))
	b.Run("text", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			if _, err := luaFromJSON(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("value", func(b *testing.B) {
		for b.Loop() {
			if _, err := luaFromValue(decoded); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("lsp-shape", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			if _, err := shapeLSPResult(protocol.MethodTextDocumentReferences, jsontext.Value(raw), nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLuaToJSON2000Locations converts a Lua table of 2,000
// locations to JSON's Go form, as params or tool arguments are.
func BenchmarkLuaToJSON2000Locations(b *testing.B) {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	v, err := luaFromJSON(locations2000JSON())
	require.NoError(b, err)
	for _, name := range []string{"mcp", "lsp"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := luaToJSON(v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
