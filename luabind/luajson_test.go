package luabind

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// luaValue evaluates a Lua expression in a fresh binding's state.
func luaValue(t *testing.T, h *harness, expr string) lua.LValue {
	t.Helper()
	L := h.b.L()
	require.NoError(t, L.DoString("V = "+expr))
	return L.GetGlobal("V")
}

// Lua to JSON follows one set of rules wherever a value is sent (LSP
// params and settings, MCP arguments, json_encode): arrays, objects and
// the empty table, sparse arrays, number keys, integers and floats, and
// invalid UTF-8. (Issue 26: one Lua-to-JSON converter with the edge cases
// decided once.)
func TestLuaToJSONRules(t *testing.T) {
	h := newHarness(t, false)
	for _, c := range []struct {
		expr string
		want any
	}{
		{`nil`, nil},
		{`{}`, map[string]any{}},
		{`pmacs.array()`, []any{}},
		{`{1, 2.5, "x", true}`, []any{int64(1), 2.5, "x", true}},
		{`{1, nil, 3}`, []any{int64(1), nil, int64(3)}},
		{`{[1] = "a", [4] = "d"}`, []any{"a", nil, nil, "d"}},
		{`{[1] = "a", [100] = "z"}`, map[string]any{"1": "a", "100": "z"}},
		{`{a = 1, [2] = "x", [1.5] = "f"}`, map[string]any{"a": int64(1), "2": "x", "1.5": "f"}},
		{`pmacs.array({1, nil, 3})`, []any{int64(1), nil, int64(3)}},
		{`{n = 2^53}`, map[string]any{"n": float64(1 << 53)}},
		{`{n = 2^53 - 1, m = -0}`, map[string]any{"n": int64(1<<53 - 1), "m": int64(0)}},
		{`"bad \255 byte"`, "bad \uFFFD byte"},
		{`{["k\255"] = 1}`, map[string]any{"k\uFFFD": int64(1)}},
	} {
		v, err := luaToJSON(luaValue(t, h, c.expr))
		require.NoError(t, err, c.expr)
		require.Equal(t, c.want, v, c.expr)
	}
}

// A value with no JSON form is an error that says where it lies, never a
// silent stand-in, a hang or a stack overflow: functions, NaN and
// infinities, keys that are neither strings nor numbers, two keys that
// are one name in JSON, a table that contains itself, and nesting past
// the bound. (Issue 26: cycles and depth are an error, not a stack
// overflow.)
func TestLuaToJSONErrorsSayWhere(t *testing.T) {
	h := newHarness(t, false)
	for expr, want := range map[string]string{
		`{list = {1, {f = function() end}}}`: "list[2].f: a function has no JSON form",
		`{n = 0/0}`:                          "n: NaN has no JSON form",
		`{1/0}`:                              "[1]: +Inf has no JSON form",
		`{[true] = 1}`:                       "a boolean key has no JSON form (object keys are strings or numbers)",
		`{[1] = "a", ["1"] = "b", x = 1}`:    `keys 1 and "1" are both "1" in JSON`,
		`coroutine.create(print)`:            "a thread has no JSON form",
		`(function() local t = {a = {}}; t.a.back = t; return t end)()`:              "a.back: the table contains itself (a cycle)",
		`(function() local t = {}; for i = 1, 10001 do t = {t} end; return t end)()`: "nested deeper than 10000 levels",
	} {
		_, err := luaToJSON(luaValue(t, h, expr))
		require.Error(t, err, expr)
		require.Contains(t, err.Error(), want, expr)
	}
	// A table met twice, not inside itself, is no cycle.
	v, err := luaToJSON(luaValue(t, h, `(function() local s = {1}; return {a = s, b = {s}} end)()`))
	require.NoError(t, err)
	require.Equal(t, map[string]any{"a": []any{int64(1)}, "b": []any{[]any{int64(1)}}}, v)
}

// JSON to Lua: null members are absent and null elements holes; an array
// with nothing but nulls is marked so it goes back as [] (the round trip a
// code action's diagnostics needs); numbers are doubles (past 2^53 the
// nearest one); invalid UTF-8 is U+FFFD; the last of duplicate names
// wins; a number past float64 and nesting past the decoder's bound are
// errors. (Issue 26: one JSON-to-Lua converter.)
func TestLuaFromJSONRules(t *testing.T) {
	h := newHarness(t, false)
	L := h.b.L()
	v, err := luaFromJSON([]byte(`{"a": null, "b": [1, null, 3], "e": [], "n": [null], "o": {},
		"big": 9007199254740993, "f": 1.0, "s": "x` + "\xff" + `y", "d": 1, "d": 2}`))
	require.NoError(t, err)
	L.SetGlobal("V", v)
	require.NoError(t, L.DoString(`
		assert(V.a == nil and V.b[1] == 1 and V.b[2] == nil and V.b[3] == 3)
		assert(next(V.e) == nil and getmetatable(V.e) == "pmacs.array", "[] is marked")
		assert(getmetatable(V.n) == "pmacs.array", "[null] is marked")
		assert(next(V.o) == nil and getmetatable(V.o) == nil, "{} is not")
		assert(V.big == 9007199254740992, string.format("%.0f", V.big))
		assert(V.f == 1 and V.s == "x\239\191\189y" and V.d == 2)
		assert(getmetatable(V.b) == nil, "an array with values is not marked")
	`))
	back, err := luaToJSON(v)
	require.NoError(t, err)
	require.Equal(t, []any{}, back.(map[string]any)["e"], "[] round-trips")
	require.Equal(t, map[string]any{}, back.(map[string]any)["o"], "{} round-trips")

	for raw, want := range map[string]string{
		`[1e400]`:   "out of range",
		``:          "no JSON value",
		`{"a": 1,}`: "(at offset 7)",
		`[1] x`:     "text after the value at offset 4",
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001): "exceeded max depth",
	} {
		_, err := luaFromJSON([]byte(raw))
		require.Error(t, err, "%.20s", raw)
		require.Contains(t, err.Error(), want, "%.20s", raw)
	}
}

// A value decoded elsewhere (an external job's MessagePack copy, a
// json.Number) converts by the same rules as JSON text: the two entry
// points of the one converter agree, empty-array marks included.
func TestLuaFromValueAgreesWithLuaFromJSON(t *testing.T) {
	for _, raw := range []string{
		`{"a":1,"b":[true,false,null,"s"],"c":{"d":null,"e":{"f":-2.5e3}},"g":null,"h":[],"i":[null,null]}`,
		`[1,null,3]`, `[]`, `{}`, `null`, `"s"`, `[[[]]]`, `{"x":{"y":[{"z":[]}]}}`,
	} {
		fromText, err := luaFromJSON([]byte(raw))
		require.NoError(t, err, raw)
		var decoded any
		require.NoError(t, json.Unmarshal([]byte(raw), &decoded))
		fromValue, err := luaFromValue(decoded)
		require.NoError(t, err, raw)
		require.True(t, luaEqualMarked(fromText, fromValue), "%s: %v vs %v", raw, fromText, fromValue)
	}
	v, err := luaFromValue(map[string]any{"n": json.Number("12.5"), "i": int64(1) << 62, "u": uint64(math.MaxUint64), "raw": json.RawMessage(`[]`)})
	require.NoError(t, err)
	tb := v.(*lua.LTable)
	require.Equal(t, lua.LNumber(12.5), tb.RawGetString("n"))
	require.Equal(t, lua.LNumber(1<<62), tb.RawGetString("i"))
	require.Equal(t, lua.LNumber(math.MaxUint64), tb.RawGetString("u"))
	require.True(t, isJSONArray(tb.RawGetString("raw").(*lua.LTable)))
	_, err = luaFromValue(json.Number("1e999"))
	require.Error(t, err)
}

// luaEqualMarked is luaEqual that also compares the JSON-array marks.
func luaEqualMarked(a, b lua.LValue) bool {
	if !luaEqual(a, b) {
		return false
	}
	ta, ok1 := a.(*lua.LTable)
	tb, ok2 := b.(*lua.LTable)
	if !ok1 || !ok2 {
		return true
	}
	if isJSONArray(ta) != isJSONArray(tb) {
		return false
	}
	same := true
	ta.ForEach(func(k, v lua.LValue) { same = same && luaEqualMarked(v, tb.RawGet(k)) })
	return same
}

// JSON that went into Lua comes back out as the same JSON (but for
// trailing nulls in arrays, which Lua's tables cannot hold).
func TestJSONRoundTripsThroughLua(t *testing.T) {
	for _, raw := range []string{
		`{"context":{"diagnostics":[]},"range":{"start":{"line":0,"character":4}}}`,
		`[1,null,3]`, `{"1":"a","x":[[],{}]}`, `[1.5,-2,9007199254740991]`, `"x"`, `true`,
	} {
		v, err := luaFromJSON([]byte(raw))
		require.NoError(t, err, raw)
		g, err := luaToJSON(v)
		require.NoError(t, err, raw)
		out, err := json.Marshal(g)
		require.NoError(t, err, raw)
		require.JSONEq(t, raw, string(out))
	}
}

// client:request, client:notify and pmacs.lsp.start's settings raise an
// error naming the value that has no JSON form: before, a function went
// to the server as the text "function: 0x...", NaN failed the request
// with an encoder's message, and a table nested past 64 levels (a cycle)
// went as "<table nested too deep>".
func TestLSPParamsWithoutJSONFormRaise(t *testing.T) {
	h := lspHarness(t)
	task := h.run(t, `
		local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR})
		local cyc = {}; cyc.me = cyc
		for _, case in ipairs{
			{function() return c:request("test/echo", {f = print}) end, "client:request: params: f: a function has no JSON form"},
			{function() return c:request("test/echo", {n = 0/0}) end, "client:request: params: n: NaN has no JSON form"},
			{function() return c:notify("x/y", {cyc}) end, "client:notify: params: [1].me: the table contains itself (a cycle)"},
			{function() return pmacs.lsp.start{cmd = {FAKE}, root = DIR, settings = {x = {print}}} end,
				"pmacs.lsp.start: settings: x[1]: a function has no JSON form"},
		} do
			local ok, err = pcall(case[1])
			assert(not ok and err:find(case[2], 1, true), tostring(err))
		end
		local v = assert(c:request("test/echo", {big = {[1] = 1, [3] = 3}, keys = {[2] = "b", x = 1}}):await())
		assert(v.big[1] == 1 and v.big[2] == nil and v.big[3] == 3, "a sparse array goes with a null")
		assert(v.keys["2"] == "b" and v.keys.x == 1, "a number key of an object goes as its text")
		c:stop()
		return "ok"`)
	requireOK(t, h, task)
}
