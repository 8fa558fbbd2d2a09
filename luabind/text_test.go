package luabind

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/fileuri"
	"github.com/pmacs-go/pmacs-go/textpos"
)

// TestURIFunctionsInLua covers issue 25's "one path/URI module, used by
// Lua through the binding": pmacs.uri.from_path gives fileuri's URI,
// to_path reads any spelling back and answers nil and the reason for a
// URI that names no local file, and a bad argument raises naming the API.
func TestURIFunctionsInLua(t *testing.T) {
	h := newHarness(t, false)
	path := filepath.Join(t.TempDir(), "x@y", "my file#ü.go")
	L := h.b.L()
	L.SetGlobal("PATH", lua.LString(path))
	L.SetGlobal("URI", lua.LString(fileuri.FromPath(path)))
	task := h.run(t, `
		local function fails(want, f, ...)
			local ok, err = pcall(f, ...)
			assert(not ok and tostring(err):find(want, 1, true), tostring(err))
		end
		assert(pmacs.uri.from_path(PATH) == URI, pmacs.uri.from_path(PATH))
		local tail = "/x%40y/my%20file%23%C3%BC.go"
		assert(URI:sub(-#tail) == tail, URI)
		assert(pmacs.uri.to_path(URI) == PATH, pmacs.uri.to_path(URI))
		assert(pmacs.uri.to_path("file:///src/x@y/my%20file%23%c3%bc.go") == "/src/x@y/my file#\195\188.go")
		assert(pmacs.uri.to_path("file://localhost/src/a.go") == "/src/a.go")
		assert(pmacs.uri.from_path("/src/./b/../a.go") == "file:///src/a.go")
		local p, err = pmacs.uri.to_path("https://example.com/a.go")
		assert(p == nil and err == 'fileuri: not a file URI: "https://example.com/a.go"', tostring(err))
		p, err = pmacs.uri.to_path("file:///a%zz")
		assert(p == nil and err:find("malformed percent-encoding", 1, true), tostring(err))
		p, err = pmacs.uri.to_path("file://server/share/a.go")
		assert(p == nil and err:find("another host", 1, true), tostring(err))
		fails("pmacs.uri.from_path: argument #1 (path) expected string, got number", pmacs.uri.from_path, 3)
		fails("pmacs.uri.from_path: argument #1 (path) expected a path, got an empty string", pmacs.uri.from_path, "")
		fails("pmacs.uri.to_path: argument #1 (uri) expected string, got nil", pmacs.uri.to_path)
		return "ok"`)
	requireOK(t, h, task)
}

// utf16Lines are the edge cases of issue 25's UTF-16 point: an emoji (a
// surrogate pair), CJK, invalid UTF-8 (a lone continuation byte, a
// truncated sequence, an encoded surrogate), a tab.
var utf16Lines = []string{
	"",
	"plain ascii",
	"x := \"😀\" + y",
	"\t世界 := 1 // 中文",
	"a\x80b\xf0\x9f\x98c\xed\xa0\x80d",
	"\tif s == \"héllo 🎉🎉\" {\xff",
}

// TestUTF16FunctionsInLuaAreTextpos covers issue 25's "Go and Lua give
// identical answers": pmacs.utf16.units and byte_col answer exactly as
// textpos for every column of each edge-case line, and out-of-range
// columns clamp; a fractional or non-number column raises.
func TestUTF16FunctionsInLuaAreTextpos(t *testing.T) {
	h := newHarness(t, false)
	L := h.b.L()
	utf16 := L.GetGlobal("pmacs").(*lua.LTable).RawGetString("utf16").(*lua.LTable)
	call := func(name, line string, n int) int {
		require.NoError(t, L.CallByParam(lua.P{Fn: utf16.RawGetString(name), NRet: 1, Protect: true}, lua.LString(line), lua.LNumber(n)))
		defer L.Pop(1)
		return int(L.Get(-1).(lua.LNumber))
	}
	for _, line := range utf16Lines {
		for col := -2; col <= len(line)+2; col++ {
			require.Equal(t, textpos.Units(line, col, textpos.UTF16), call("units", line, col), "units(%q, %d)", line, col)
		}
		for u := -2; u <= textpos.Units(line, len(line), textpos.UTF16)+2; u++ {
			require.Equal(t, textpos.ByteCol(line, u, textpos.UTF16), call("byte_col", line, u), "byte_col(%q, %d)", line, u)
		}
	}
	task := h.run(t, `
		local function fails(want, f, ...)
			local ok, err = pcall(f, ...)
			assert(not ok and tostring(err):find(want, 1, true), tostring(err))
		end
		local line = "a\240\159\152\128b\128\t" -- a, an emoji, b, a bad byte, a tab
		assert(pmacs.utf16.units(line, 5) == 3, "after the pair")
		assert(pmacs.utf16.units(line, 3) == 1, "inside the emoji: before it")
		assert(pmacs.utf16.units(line, #line) == 6)
		assert(pmacs.utf16.units(line, 1e300) == 6)
		assert(pmacs.utf16.byte_col(line, 2) == 1, "between the halves: before the emoji")
		assert(pmacs.utf16.byte_col(line, 4) == 6)
		assert(pmacs.utf16.byte_col(line, 5) == 7, "the bad byte is one unit")
		assert(pmacs.utf16.byte_col(line, -1/0) == 0)
		fails("pmacs.utf16.units: argument #2 (byte_col) expected a whole number, got 1.5", pmacs.utf16.units, line, 1.5)
		fails("pmacs.utf16.byte_col: argument #2 (units) expected number, got string", pmacs.utf16.byte_col, line, "x")
		fails("pmacs.utf16.byte_col: argument #1 (line) expected string, got nil", pmacs.utf16.byte_col)
		fails("expected a whole number, got NaN", pmacs.utf16.units, line, 0/0)
		return "ok"`)
	requireOK(t, h, task)
}

// BenchmarkUTF16Binding measures what a keystroke's column conversion
// costs a script: one call of each function on a line of code with a
// non-ASCII string, from Go as Lua calls it. The arguments are Lua values
// made once, as a script's are, so the allocations counted are the
// function's own: none for a column under 512, the string's for to_path.
func BenchmarkUTF16Binding(b *testing.B) {
	h := newHarness(b, false)
	L := h.b.L()
	utf16 := L.GetGlobal("pmacs").(*lua.LTable).RawGetString("utf16").(*lua.LTable)
	var line lua.LValue = lua.LString("\tfmt.Println(\"héllo 😀 世界\", value, other)")
	for _, name := range []string{"units", "byte_col"} {
		fn := utf16.RawGetString(name)
		var col lua.LValue = lua.LNumber(30)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				L.Push(fn)
				L.Push(line)
				L.Push(col)
				L.Call(2, 1)
				L.Pop(1)
			}
		})
	}
	b.Run("uri.to_path", func(b *testing.B) {
		fn := L.GetGlobal("pmacs").(*lua.LTable).RawGetString("uri").(*lua.LTable).RawGetString("to_path")
		var u lua.LValue = lua.LString("file:///home/user/src/project/internal/server/handler.go")
		b.ReportAllocs()
		for b.Loop() {
			L.Push(fn)
			L.Push(u)
			L.Call(1, 1)
			L.Pop(1)
		}
	})
}

// TestLSPDiagnosticsHookGetsThePathWhateverTheSpelling covers issue 25's
// point 6 in the binding: the server publishes for a file under spellings
// of its URI other than the client's (localhost, lower-case hex, gopls's
// bare '@'); on_diagnostics gets the file's path each time and
// client:diagnostics(path) finds the rows. A URI that names no local file
// starts no hook.
func TestLSPDiagnosticsHookGetsThePathWhateverTheSpelling(t *testing.T) {
	h := lspHarness(t)
	dir := filepath.Join(t.TempDir(), "x@y")
	path := filepath.Join(dir, "my file#ü.go")
	L := h.b.L()
	L.SetGlobal("PATH", lua.LString(path))
	L.SetGlobal("SPELLINGS", h.b.L().NewTable())
	spellings := L.GetGlobal("SPELLINGS").(*lua.LTable)
	for _, u := range []string{
		"file://localhost" + dir + "/my%20file%23%C3%BC.go",
		"file://" + dir + "/my%20file%23%c3%bc.go",
		"file://" + dir + "/my%20file%23%C3%BC.go",
	} {
		spellings.Append(lua.LString(u))
	}
	task := h.run(t, `
		local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR})
		local seen = {}
		c:on_diagnostics(function(client, path)
			seen[#seen + 1] = {path = path, n = #client:diagnostics(path)}
		end)
		assert(c:request("test/bigDiagnostics", {uri = "untitled:Untitled-1", n = 1}):await())
		for i, u in ipairs(SPELLINGS) do
			assert(c:request("test/bigDiagnostics", {uri = u, n = i}):await())
			for _ = 1, 2000 do
				if #seen >= i then break end
				pmacs.workers.sleep(1):await()
			end
			assert(#seen == i, "hook runs: " .. #seen .. " after " .. u)
			assert(seen[i].path == PATH, seen[i].path)
			assert(seen[i].n == i, u .. ": " .. seen[i].n .. " rows")
		end
		c:stop()
		return "ok"`)
	requireOK(t, h, task)
}
