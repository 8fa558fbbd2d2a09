package luabind

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	lua "github.com/yuin/gopher-lua"
)

// The one conversion between Lua values and JSON, both ways: LSP params,
// settings and results, MCP arguments and results, pmacs.mcp.json_encode
// and json_decode, and every external job's value. Its rules, decided
// once:
//
// JSON to Lua (luaFromJSON for JSON text, luaFromValue for a value already
// decoded: MessagePack's or encoding/json's):
//
//   - an object is a table of string keys; a member that is null is absent;
//   - an array is a table of 1..n; an element that is null is a hole at its
//     index (the rest keep theirs). An array with no element but null ([],
//     [null]) is marked as pmacs.array, so it goes back as [], not {};
//   - a number is a Lua number (a float64): an integer past 2^53 becomes
//     the nearest double, as Lua 5.1 has no other number; one past
//     float64's range is an error;
//   - invalid UTF-8 in JSON text becomes U+FFFD; duplicate member names:
//     the last wins; nesting is bounded by the decoder (10,000 levels);
//   - null alone is nil (there is no null sentinel).
//
// Lua to JSON (luaToJSON, to the Go values every JSON encoder takes:
// map[string]any, []any, int64, float64, string, bool, nil):
//
//   - nil is null; a string with invalid UTF-8 has it replaced by U+FFFD;
//   - a number with an integral value below 2^53 in magnitude is an
//     integer (1, not 1.0), any other a float; NaN and ±Inf are errors;
//   - a table marked with pmacs.array is an array of its values at 1..n,
//     n its largest integer key (holes are null; other keys are ignored);
//   - an empty table that is not marked is {};
//   - a table whose keys are all positive integers is an array 1..n with
//     holes as null, unless it is excessively sparse (n > 10 and n more
//     than twice its count of values, lua-cjson's rule): then an object;
//   - any other table is an object: string keys as they are, number keys
//     as their decimal text (1 is "1", 1.5 is "1.5"); a key of another
//     type, or two keys with the same text (1 and "1"), is an error;
//   - a function, userdata or thread is an error; so is a table that
//     contains itself, and nesting deeper than maxJSONDepth.
//
// Errors name where the value lies (args.list[3].f: a function has no
// JSON form).

// tables is the nil state whose CreateTable builds tables off the main
// goroutine: gopher-lua's table constructors do not touch the state (see
// lspShaped).
var tables *lua.LState

// maxJSONDepth bounds the nesting luaToJSON follows: the JSON decoders'
// own bound, so whatever decodes can be sent back.
const maxJSONDepth = 10000

// jsonArrayMT is the metatable of tables marked as JSON arrays (by
// pmacs.array, or as an empty array that came from JSON). It is one
// immutable table shared by every binding: the decoder marks arrays on the
// language client's reader goroutine, which assigns the pointer and
// reads nothing.
var jsonArrayMT = newArrayMT(tables)

// luaFromJSON converts JSON text (one value; nothing may follow but white
// space) to Lua. It touches no Lua state, so any goroutine may call it.
func luaFromJSON(raw []byte) (lua.LValue, error) {
	d := newJSONDecoder(raw)
	v, _, err := d.value(0)
	switch {
	case err == io.EOF:
		return nil, errors.New("no JSON value")
	case err != nil:
		var se *jsontext.SyntacticError
		if errors.As(err, &se) && se.Err != nil {
			return nil, fmt.Errorf("%w (at offset %d)", se.Err, se.ByteOffset)
		}
		return nil, err
	}
	if rest := bytes.TrimLeft(raw[d.dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, fmt.Errorf("text after the value at offset %d", len(raw)-len(rest))
	}
	return v, nil
}

// jsonDecoder builds Lua tables from a stream of JSON tokens.
type jsonDecoder struct {
	dec *jsontext.Decoder
	luaTables
	// keep, when set, names the member of the top-level object whose
	// array is kept in kept (a completion list's items); keptN is its
	// length.
	keep  string
	kept  *lua.LTable
	keptN int
}

func newJSONDecoder(raw []byte) *jsonDecoder {
	return &jsonDecoder{
		dec:       jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true)),
		luaTables: luaTables{keys: map[string]string{}},
	}
}

// luaTables assembles tables from the values and member names read so
// far: a table is made once its size is known, since gopher-lua gives a
// table made without a size room for 32 entries, which a reply of small
// objects would pay per object.
type luaTables struct {
	// keys interns member names: a reply of 6,000 items repeats a dozen.
	keys  map[string]string
	vals  []lua.LValue
	names []string
}

func (b *luaTables) intern(name string) string {
	if in, ok := b.keys[name]; ok {
		return in
	}
	if len(b.keys) < 1024 {
		b.keys[name] = name
	}
	return name
}

// array makes the table of the values pushed since start (nil ones are
// holes) and pops them; n is the array's length.
func (b *luaTables) array(start int) (t *lua.LTable, n int) {
	n = len(b.vals) - start
	t = tables.CreateTable(n, 0)
	empty := true
	for i, v := range b.vals[start:] {
		if v != lua.LNil {
			t.RawSetInt(i+1, v)
			empty = false
		}
	}
	if empty {
		t.Metatable = jsonArrayMT
	}
	clear(b.vals[start:])
	b.vals = b.vals[:start]
	return t, n
}

// object makes the table of the members pushed since start and pops them.
func (b *luaTables) object(start int) *lua.LTable {
	n := len(b.vals) - start
	t := tables.CreateTable(0, n)
	names := b.names[len(b.names)-n:]
	for i, v := range b.vals[start:] {
		t.RawSetString(names[i], v)
	}
	clear(b.vals[start:])
	b.vals = b.vals[:start]
	b.names = b.names[:len(b.names)-n]
	return t
}

// value converts the next JSON value; n is its length when it is an
// array, else -1.
func (d *jsonDecoder) value(depth int) (lua.LValue, int, error) {
	tok, err := d.dec.ReadToken()
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
		f, err := tok.Float()
		return lua.LNumber(f), -1, err
	case '[':
		start := len(d.vals)
		for d.dec.PeekKind() != ']' {
			v, _, err := d.value(depth + 1)
			if err != nil {
				return nil, -1, err
			}
			d.vals = append(d.vals, v)
		}
		t, n := d.array(start)
		_, err := d.dec.ReadToken()
		return t, n, err
	case '{':
		start := len(d.vals)
		for d.dec.PeekKind() != '}' {
			k, err := d.dec.ReadToken()
			if err != nil {
				return nil, -1, err
			}
			name := d.intern(k.String())
			v, n, err := d.value(depth + 1)
			if err != nil {
				return nil, -1, err
			}
			if v != lua.LNil {
				d.names = append(d.names, name)
				d.vals = append(d.vals, v)
			}
			if depth == 0 && n >= 0 && d.keep != "" && name == d.keep {
				d.kept, d.keptN = v.(*lua.LTable), n
			}
		}
		t := d.object(start)
		_, err := d.dec.ReadToken()
		return t, -1, err
	}
	return nil, -1, fmt.Errorf("unexpected JSON token %v", tok)
}

// luaFromValue converts a value decoded from JSON or MessagePack (maps as
// map[string]any, arrays as []any, any Go integer or float, json.Number)
// to Lua by the same rules as luaFromJSON. Raw JSON (jsontext.Value,
// json.RawMessage) is decoded; any other Go value converts through its
// JSON encoding. It touches no Lua state.
func luaFromValue(v any) (lua.LValue, error) {
	var b luaTables
	return b.fromValue(v, 0)
}

func (b *luaTables) fromValue(v any, depth int) (lua.LValue, error) {
	switch x := v.(type) {
	case nil:
		return lua.LNil, nil
	case bool:
		return lua.LBool(x), nil
	case string:
		return lua.LString(x), nil
	case []byte:
		return lua.LString(x), nil
	case int8:
		return lua.LNumber(x), nil
	case int16:
		return lua.LNumber(x), nil
	case int32:
		return lua.LNumber(x), nil
	case int64:
		return lua.LNumber(x), nil
	case int:
		return lua.LNumber(x), nil
	case uint8:
		return lua.LNumber(x), nil
	case uint16:
		return lua.LNumber(x), nil
	case uint32:
		return lua.LNumber(x), nil
	case uint64:
		return lua.LNumber(x), nil
	case uint:
		return lua.LNumber(x), nil
	case float32:
		return lua.LNumber(x), nil
	case float64:
		return lua.LNumber(x), nil
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return nil, fmt.Errorf("number %s: %w", x, err)
		}
		return lua.LNumber(f), nil
	case jsontext.Value:
		return luaFromJSON(x)
	case json.RawMessage:
		return luaFromJSON(x)
	}
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxJSONDepth)
	}
	switch x := v.(type) {
	case []any:
		start := len(b.vals)
		for _, e := range x {
			lv, err := b.fromValue(e, depth+1)
			if err != nil {
				return nil, err
			}
			b.vals = append(b.vals, lv)
		}
		t, _ := b.array(start)
		return t, nil
	case map[string]any:
		// Sorted, so that pairs visits the keys in the same order each
		// time: Go's map order is random, the table's follows insertion.
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		start := len(b.vals)
		for _, k := range keys {
			lv, err := b.fromValue(x[k], depth+1)
			if err != nil {
				return nil, err
			}
			if lv != lua.LNil {
				b.names = append(b.names, k)
				b.vals = append(b.vals, lv)
			}
		}
		return b.object(start), nil
	case map[any]any:
		t := tables.CreateTable(0, len(x))
		for k, e := range x {
			kv, err := b.fromValue(k, depth+1)
			if err != nil {
				return nil, err
			}
			// Lua has no nil or NaN keys: gopher-lua would store them, and
			// pairs would then restart at the nil key or fail at NaN.
			if n, ok := kv.(lua.LNumber); kv == lua.LNil || ok && math.IsNaN(float64(n)) {
				continue
			}
			ev, err := b.fromValue(e, depth+1)
			if err != nil {
				return nil, err
			}
			t.RawSet(kv, ev)
		}
		return t, nil
	}
	raw, err := jsonv2.Marshal(v, jsontext.AllowInvalidUTF8(true))
	if err != nil {
		return nil, err
	}
	return luaFromJSON(raw)
}

// luaToJSON converts a Lua value to JSON's Go form by the rules above.
func luaToJSON(v lua.LValue) (any, error) {
	var e jsonEncoder
	out, err := e.value(v, 0)
	if err != nil {
		var pe *jsonPathError
		if errors.As(err, &pe) {
			return nil, pe.flatten()
		}
		return nil, err
	}
	return out, nil
}

// jsonEncoder holds the tables being converted, outermost first, to find
// a table that contains itself.
type jsonEncoder struct {
	path []*lua.LTable
	// deep holds the path's tables past the first shallowPath, where a
	// scan of the path would cost more than a map.
	deep map[*lua.LTable]bool
}

const shallowPath = 32

func (e *jsonEncoder) enter(t *lua.LTable) bool {
	if slices.Contains(e.path[:min(len(e.path), shallowPath)], t) || e.deep[t] {
		return false
	}
	if len(e.path) >= shallowPath {
		if e.deep == nil {
			e.deep = map[*lua.LTable]bool{}
		}
		e.deep[t] = true
	}
	e.path = append(e.path, t)
	return true
}

func (e *jsonEncoder) leave() {
	last := len(e.path) - 1
	if last >= shallowPath {
		delete(e.deep, e.path[last])
	}
	e.path = e.path[:last]
}

func (e *jsonEncoder) value(v lua.LValue, depth int) (any, error) {
	switch x := v.(type) {
	case *lua.LNilType:
		return nil, nil
	case lua.LBool:
		return bool(x), nil
	case lua.LString:
		s := string(x)
		if !utf8.ValidString(s) {
			s = strings.ToValidUTF8(s, "\uFFFD")
		}
		return s, nil
	case lua.LNumber:
		return jsonNumber(float64(x))
	case *lua.LTable:
		if depth >= maxJSONDepth {
			return nil, fmt.Errorf("nested deeper than %d levels", maxJSONDepth)
		}
		if !e.enter(x) {
			return nil, errors.New("the table contains itself (a cycle)")
		}
		out, err := e.table(x, depth)
		e.leave()
		return out, err
	}
	return nil, fmt.Errorf("a %s has no JSON form", v.Type())
}

func jsonNumber(f float64) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%v has no JSON form", f)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f), nil
	}
	return f, nil
}

func (e *jsonEncoder) table(t *lua.LTable, depth int) (any, error) {
	// One pass over the keys decides array or object.
	count, maxIndex, intKeys := 0, 0, true
	t.ForEach(func(k, _ lua.LValue) {
		count++
		if n, ok := k.(lua.LNumber); ok {
			if i := float64(n); i >= 1 && i == math.Trunc(i) && i <= maxJSONArray {
				maxIndex = max(maxIndex, int(i))
				return
			}
		}
		intKeys = false
	})
	marked := isJSONArray(t)
	if marked || count > 0 && intKeys && (maxIndex <= 10 || maxIndex <= 2*count) {
		out := make([]any, maxIndex)
		for i := range out {
			x, err := e.value(t.RawGetInt(i+1), depth+1)
			if err != nil {
				return nil, atIndex(i+1, err)
			}
			out[i] = x
		}
		return out, nil
	}
	out := make(map[string]any, count)
	var err error
	t.ForEach(func(k, v lua.LValue) {
		if err != nil {
			return
		}
		var name string
		switch kk := k.(type) {
		case lua.LString:
			name = string(kk)
		case lua.LNumber:
			name = numberKey(float64(kk))
			if t.RawGetString(name) != lua.LNil {
				err = fmt.Errorf("keys %s and %q are both %q in JSON", name, name, name)
				return
			}
		default:
			err = fmt.Errorf("a %s key has no JSON form (object keys are strings or numbers)", k.Type())
			return
		}
		var x any
		if x, err = e.value(v, depth+1); err != nil {
			err = atName(name, err)
			return
		}
		if !utf8.ValidString(name) {
			name = strings.ToValidUTF8(name, "\uFFFD")
		}
		out[name] = x
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// numberKey is a number key's text as an object member's name: as Lua's
// tostring writes it, integers without a fraction or exponent.
func numberKey(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10)
	}
	return fmt.Sprint(f)
}

// maxJSONArray bounds the index an array may reach: past it a table of
// integer keys is an object, so {[1e15] = 1} cannot ask for an array of a
// thousand trillion nulls (the sparseness rule stops it too; this keeps
// int conversion exact).
const maxJSONArray = 1 << 40

// jsonPathError is a conversion error with where it happened, innermost
// step last once flattened.
type jsonPathError struct {
	steps []string // innermost first
	err   error
}

func atIndex(i int, err error) error      { return at("["+strconv.Itoa(i)+"]", err) }
func atName(name string, err error) error { return at(name, err) }

func at(step string, err error) error {
	var pe *jsonPathError
	if errors.As(err, &pe) {
		pe.steps = append(pe.steps, step)
		return pe
	}
	return &jsonPathError{steps: []string{step}, err: err}
}

func (pe *jsonPathError) Error() string { return pe.flatten().Error() }
func (pe *jsonPathError) Unwrap() error { return pe.err }

// flatten writes the path as Lua would index it: a.b[3].c.
func (pe *jsonPathError) flatten() error {
	var sb strings.Builder
	for i := len(pe.steps) - 1; i >= 0; i-- {
		s := pe.steps[i]
		if sb.Len() > 0 && s[0] != '[' {
			sb.WriteByte('.')
		}
		sb.WriteString(s)
	}
	return fmt.Errorf("%s: %w", sb.String(), pe.err)
}
