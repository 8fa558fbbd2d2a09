package luabind

import (
	"fmt"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
	"go.lsp.dev/protocol"

	"github.com/pmacs-go/pmacs-go/lsp"
	"github.com/pmacs-go/pmacs-go/lsp/lsptest"
)

// luaEqual compares two Lua values, tables by content.
func luaEqual(a, b lua.LValue) bool {
	ta, ok1 := a.(*lua.LTable)
	tb, ok2 := b.(*lua.LTable)
	if !ok1 || !ok2 {
		return !ok1 && !ok2 && a.Type() == b.Type() && a.String() == b.String()
	}
	same := true
	ta.ForEach(func(k, v lua.LValue) { same = same && luaEqual(v, tb.RawGet(k)) })
	tb.ForEach(func(k, v lua.LValue) { same = same && luaEqual(v, ta.RawGet(k)) })
	return same
}

// Results built into Lua tables on the reader are the tables the general
// conversion makes from the same JSON: nested objects and arrays, null
// members absent and null elements holes at their index, numbers, invalid
// UTF-8 as U+FFFD; a completion list's items are the array h:batches()
// iterates, and a top-level array is its own.
func TestShapedResultsMatchTheGeneralConversion(t *testing.T) {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	for _, c := range []struct {
		method, raw string
		n           int // -1: not iterable
	}{
		{"x", `{"a":1,"b":[true,false,null,"s"],"c":{"d":null,"e":{"f":-2.5e3}},"g":null}`, -1},
		{"x", `[1,null,3]`, 3},
		{"x", `[]`, 0},
		{"x", `"bad ` + "\xff" + ` byte"`, -1},
		{"x", `null`, -1},
		{"x", `{"items":[1,2]}`, -1},
		{protocol.MethodTextDocumentCompletion, `{"isIncomplete":true,"items":[{"label":"a","data":{"k":[1]}},{"label":"b"}]}`, 2},
		{protocol.MethodTextDocumentCompletion, `[{"label":"a"}]`, 1},
	} {
		t.Run(fmt.Sprintf("%.30s", c.raw), func(t *testing.T) {
			v, err := shapeLSPResult(c.method, jsontext.Value(c.raw), nil)
			require.NoError(t, err)
			sh := v.(*lspShaped)
			want := goToLua(L, jsontext.Value(c.raw))
			require.True(t, luaEqual(want, sh.v), "want %v, got %v", want, sh.v)
			if c.n < 0 {
				require.Nil(t, sh.items)
				return
			}
			require.NotNil(t, sh.items)
			require.Equal(t, c.n, sh.n)
		})
	}
	_, err := shapeLSPResult("x", jsontext.Value(`[1e999]`), nil)
	require.Error(t, err)

	toks := &lsp.SemanticTokens{ResultID: "r", Tokens: []lsp.SemanticToken{{Line: 2, Col: 5, Len: 3, Type: 1, Mods: 2}}}
	v, err := shapeLSPResult(protocol.MethodTextDocumentSemanticTokensFull, nil, toks)
	require.NoError(t, err)
	sh := v.(*lspShaped)
	require.Equal(t, 1, sh.n)
	row := sh.items.RawGetInt(1).(*lua.LTable)
	require.Equal(t, lua.LNumber(5), row.RawGetString("col"))
	require.Equal(t, lua.LString("r"), sh.v.(*lua.LTable).RawGetString("result_id"))
}

// A semantic-tokens reply of null (or with no result at all) shapes as
// nil: the decoded value is then a nil *lsp.SemanticTokens, which the
// shaper once dereferenced, panicking on the reader goroutine. Found by
// FuzzLSPWireShapedForLua (its input is kept in testdata/fuzz).
func TestShapeNullSemanticTokens(t *testing.T) {
	for _, body := range []string{`{"jsonrpc":"2.0","id":1,"result":null}`, `{"jsonrpc":"2.0","id":1}`} {
		rep := lsp.Replay(lsp.Config{Shape: shapeLSPResult}, []string{protocol.MethodTextDocumentSemanticTokensFull},
			lsptest.Frames(body))
		require.Zero(t, rep.Stats.HookPanics, body)
		require.Len(t, rep.Results, 1)
		require.NoError(t, rep.Results[0].Err)
		require.Equal(t, lua.LNil, rep.Results[0].Value.(*lspShaped).v)
	}
}
