package luabind

import (
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/fileuri"
	"github.com/pmacs-go/pmacs-go/textpos"
)

// installText adds pmacs.uri (file paths and file URIs, through fileuri)
// and pmacs.utf16 (byte columns and LSP's UTF-16 columns, through
// textpos): the Go implementations themselves, so a script and the lsp
// package can never disagree on a document's URI or a column.
func installText(L *lua.LState, pmacs *lua.LTable) {
	pmacs.RawSetString("uri", L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{
		"from_path": uriFromPath, "to_path": uriToPath,
	}))
	pmacs.RawSetString("utf16", L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{
		"units": utf16Units, "byte_col": utf16ByteCol,
	}))
}

// uriFromPath is pmacs.uri.from_path(path): the file URI the LSP client
// names path by.
func uriFromPath(L *lua.LState) int {
	const fname = "pmacs.uri.from_path"
	p := checkString(L, fname, 1, "path")
	if p == "" {
		raise(L, "%s: argument #1 (path) expected a path, got an empty string", fname)
	}
	L.Push(lua.LString(fileuri.FromPath(p)))
	return 1
}

// uriToPath is pmacs.uri.to_path(uri): the path of the local file a file
// URI names, or nil and why for one that names none (a server's URI is
// data, not a script's mistake, so it does not raise).
func uriToPath(L *lua.LState) int {
	p, err := fileuri.ToPath(checkString(L, "pmacs.uri.to_path", 1, "uri"))
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	L.Push(lua.LString(p))
	return 1
}

// utf16Units is pmacs.utf16.units(line, byte_col): the UTF-16 column of a
// zero-based byte column.
func utf16Units(L *lua.LState) int {
	const fname = "pmacs.utf16.units"
	line := checkString(L, fname, 1, "line")
	L.Push(column(textpos.Units(line, checkColumn(L, fname, 2, "byte_col"), textpos.UTF16)))
	return 1
}

// utf16ByteCol is pmacs.utf16.byte_col(line, units): the zero-based byte
// column of a UTF-16 column.
func utf16ByteCol(L *lua.LState) int {
	const fname = "pmacs.utf16.byte_col"
	line := checkString(L, fname, 1, "line")
	L.Push(column(textpos.ByteCol(line, checkColumn(L, fname, 2, "units"), textpos.UTF16)))
	return 1
}

// smallColumns holds the Lua values of the columns of most lines, made
// once: a number put in an LValue is otherwise allocated, on every
// keystroke that converts a column.
var smallColumns = func() (v [512]lua.LValue) {
	for i := range v {
		v[i] = lua.LNumber(i)
	}
	return v
}()

func column(n int) lua.LValue {
	if n >= 0 && n < len(smallColumns) {
		return smallColumns[n]
	}
	return lua.LNumber(n)
}

// checkColumn takes a whole number; one out of any line's range clamps
// (the conversions clamp), so only a fraction, NaN or a non-number raise.
func checkColumn(L *lua.LState, fname string, n int, name string) int {
	f := checkNumber(L, fname, n, name)
	if f != math.Trunc(f) {
		raise(L, "%s: argument #%d (%s) expected a whole number, got %v", fname, n, name, lua.LNumber(f))
	}
	return int(max(-1, min(f, 1<<53)))
}
