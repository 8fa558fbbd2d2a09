package luabind

import (
	"math"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Argument checks. Every message names the Lua function and the argument or
// field, and says what was expected and what came, so a script author can
// fix the call from the message alone.

func typeName(v lua.LValue) string {
	if ud, ok := v.(*lua.LUserData); ok {
		switch ud.Value.(type) {
		case *job:
			return "job handle"
		case *Task:
			return "task"
		case *tree:
			return "tree"
		}
	}
	return v.Type().String()
}

func argError(L *lua.LState, fname string, n int, name, want string, got lua.LValue) {
	raise(L, "%s: argument #%d (%s) expected %s, got %s", fname, n, name, want, typeName(got))
}

func checkNumber(L *lua.LState, fname string, n int, name string) float64 {
	v, ok := L.Get(n).(lua.LNumber)
	if !ok {
		argError(L, fname, n, name, "number", L.Get(n))
	}
	return float64(v)
}

// checkCount takes a whole, non-negative number.
func checkCount(L *lua.LState, fname string, n int, name string) uint64 {
	f := checkNumber(L, fname, n, name)
	if f < 0 || f != math.Trunc(f) || f > 1<<53 {
		raise(L, "%s: argument #%d (%s) expected a whole number >= 0, got %v", fname, n, name, lua.LNumber(f))
	}
	return uint64(f)
}

func checkString(L *lua.LState, fname string, n int, name string) string {
	v, ok := L.Get(n).(lua.LString)
	if !ok {
		argError(L, fname, n, name, "string", L.Get(n))
	}
	return string(v)
}

func checkFunction(L *lua.LState, fname string, n int, name string) *lua.LFunction {
	v, ok := L.Get(n).(*lua.LFunction)
	if !ok {
		argError(L, fname, n, name, "function", L.Get(n))
	}
	return v
}

// fields reads a table argument (a spec or an opts table), refusing keys it
// does not know so that a typo ("patern") is an error, not a silent default.
type fields struct {
	L     *lua.LState
	fname string
	t     *lua.LTable
	what  string // "field" or "option"
}

// checkTable returns the table at n; nil (absent) is allowed when optional.
func checkTable(L *lua.LState, fname string, n int, name, what string, optional bool, known ...string) fields {
	v := L.Get(n)
	t, ok := v.(*lua.LTable)
	if !ok && !(optional && v == lua.LNil) {
		argError(L, fname, n, name, "table", v)
	}
	f := fields{L: L, fname: fname, t: t, what: what}
	if t != nil {
		t.ForEach(func(k, _ lua.LValue) {
			ks, isStr := k.(lua.LString)
			if !isStr || !slices.Contains(known, string(ks)) {
				raise(L, "%s: unknown %s %s (known: %s)", fname, what, lua.LVAsString(k), strings.Join(known, ", "))
			}
		})
	}
	return f
}

func (f fields) get(name string) lua.LValue {
	if f.t == nil {
		return lua.LNil
	}
	return f.t.RawGetString(name)
}

func (f fields) fail(name, want string, got lua.LValue) {
	if got == lua.LNil {
		raise(f.L, "%s: missing %s '%s' (%s)", f.fname, f.what, name, want)
	}
	raise(f.L, "%s: %s '%s' expected %s, got %s", f.fname, f.what, name, want, typeName(got))
}

func (f fields) str(name string, required bool, def string) string {
	v := f.get(name)
	if v == lua.LNil && !required {
		return def
	}
	s, ok := v.(lua.LString)
	if !ok {
		f.fail(name, "string", v)
	}
	return string(s)
}

func (f fields) boolean(name string, def bool) bool {
	v := f.get(name)
	if v == lua.LNil {
		return def
	}
	bv, ok := v.(lua.LBool)
	if !ok {
		f.fail(name, "boolean", v)
	}
	return bool(bv)
}

func (f fields) count(name string) int64 {
	v := f.get(name)
	if v == lua.LNil {
		return 0
	}
	n, ok := v.(lua.LNumber)
	if !ok || n < 0 || float64(n) != math.Trunc(float64(n)) || n > 1<<53 {
		if ok {
			raise(f.L, "%s: %s '%s' expected a whole number >= 0, got %v", f.fname, f.what, name, n)
		}
		f.fail(name, "number", v)
	}
	return int64(n)
}

func (f fields) strings(name string) []string {
	v := f.get(name)
	if v == lua.LNil {
		return nil
	}
	t, ok := v.(*lua.LTable)
	if !ok {
		f.fail(name, "list of strings", v)
	}
	out := make([]string, 0, t.Len())
	for i := 1; i <= t.Len(); i++ {
		s, ok := t.RawGetInt(i).(lua.LString)
		if !ok {
			raise(f.L, "%s: %s '%s' item %d expected string, got %s", f.fname, f.what, name, i, typeName(t.RawGetInt(i)))
		}
		out = append(out, string(s))
	}
	return out
}

// checkSelf returns the method receiver (argument 1) as a T, raising an
// argument error that says what was expected when it is anything else.
func checkSelf[T any](L *lua.LState, fname, what string) T {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if v, ok := ud.Value.(T); ok {
			return v
		}
	}
	argError(L, fname, 1, "self", what, L.Get(1))
	var zero T
	return zero
}
