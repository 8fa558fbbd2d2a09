package luabind

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// moduleHarness is a harness whose binding has the given embedded modules
// and module directories.
func moduleHarness(t *testing.T, safe bool, fsys fstest.MapFS, dirs ...string) *harness {
	t.Helper()
	h := &harness{}
	rt, err := runtime.New(runtime.Options{})
	require.NoError(t, err)
	h.rt = rt
	opts := Options{Safe: safe, Stdout: &h.stdout, Stderr: &h.stderr, ModuleDirs: dirs}
	if fsys != nil {
		opts.Modules = fsys
	}
	b, err := New(rt, opts)
	require.NoError(t, err)
	h.b = b
	t.Cleanup(func() {
		b.Close()
		rt.Close()
	})
	return h
}

func writeModule(t *testing.T, dir, rel, src string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
}

// streamModule defines a function that waits inside a for-in over a
// stream: gopher-lua's own require compiled it without the binding's
// rewrite, so the wait raised "cannot wait inside a metamethod, or a for-in
// loop of a chunk not loaded through pmacs".
const streamModule = `
local M = {}
function M.total(n)
  local sum = 0
  for batch in pmacs.workers.emit_n(n):batches() do
    for _, v in ipairs(batch) do sum = sum + v end
  end
  return sum
end
return M
`

// A module found in a module directory, on package.path or embedded is
// compiled through the binding: its for-in loop waits on a stream's
// batches, called from a task. (Issue 26: a binding-aware require.)
func TestRequiredModuleWaitsInsideForIn(t *testing.T) {
	dir, pathDir := t.TempDir(), t.TempDir()
	writeModule(t, dir, "streams/init.lua", streamModule)
	writeModule(t, pathDir, "onpath.lua", streamModule)
	h := moduleHarness(t, false, fstest.MapFS{"emb/streams.lua": {Data: []byte(streamModule)}}, dir)
	h.b.L().SetGlobal("PATHDIR", lua.LString(pathDir))
	res := runOK(t, h, `
		package.path = PATHDIR .. "/?.lua;" .. package.path
		return require("streams").total(100), require("onpath").total(10), require("emb.streams").total(4)`)
	require.Equal(t, []lua.LValue{lua.LNumber(5050), lua.LNumber(55), lua.LNumber(10)}, res)
}

// require caches a module's value in package.loaded, gives true for a
// module that returns nothing, and runs a module again after it raised
// (the error is not cached). (Issue 26: package.loaded caching; a module
// that errors is not cached.)
func TestRequireCachesValuesButNotErrors(t *testing.T) {
	dir := t.TempDir()
	writeModule(t, dir, "counted.lua", `COUNT = (COUNT or 0) + 1; return {n = COUNT}`)
	writeModule(t, dir, "silent.lua", `SILENT = true`)
	writeModule(t, dir, "flaky.lua", `FLAKY = (FLAKY or 0) + 1; if FLAKY == 1 then error("first load fails") end; return "fine"`)
	h := moduleHarness(t, false, nil, dir)
	res := runOK(t, h, `
		local a, b = require("counted"), require("counted")
		assert(a == b and a.n == 1 and COUNT == 1 and package.loaded.counted == a)
		assert(require("silent") == true and package.loaded.silent == true)
		local ok, err = pcall(require, "flaky")
		assert(not ok and err:find("first load fails", 1, true), tostring(err))
		assert(package.loaded.flaky == nil, "a failed module is not cached")
		return require("flaky"), FLAKY`)
	require.Equal(t, []lua.LValue{lua.LString("fine"), lua.LNumber(2)}, res)
}

// A module that is nowhere is a Lua error naming it and every place
// searched, in search order; a syntax error names the file. (Issue 26:
// not-found error text.)
func TestRequireNotFoundListsWhereItSearched(t *testing.T) {
	dir := t.TempDir()
	writeModule(t, dir, "broken.lua", "local = 1")
	h := moduleHarness(t, false, fstest.MapFS{}, dir)
	h.b.L().SetGlobal("DIR", lua.LString(dir))
	res := runOK(t, h, `
		package.path = "/nonexistent/?.lua"
		local _, err1 = pcall(require, "no.such")
		local _, err2 = pcall(require, "broken")
		return err1, err2`)
	want := "module 'no.such' not found:\n" +
		"\tno field package.preload['no.such']\n" +
		"\tno embedded module file 'no/such.lua'\n" +
		"\tno embedded module file 'no/such/init.lua'\n" +
		"\tno file '" + filepath.Join(dir, "no/such.lua") + "'\n" +
		"\tno file '" + filepath.Join(dir, "no/such/init.lua") + "'\n" +
		"\tno file '/nonexistent/no/such.lua'"
	require.Contains(t, res[0].String(), want)
	require.Contains(t, res[1].String(), "error loading module 'broken' from file '"+filepath.Join(dir, "broken.lua")+"'")
}

// Modules that require one another in a cycle get an error naming the
// chain, not a hang or a Go stack overflow; neither is left cached. (Issue
// 26: recursion guard.)
func TestRequireCycleIsAnError(t *testing.T) {
	dir := t.TempDir()
	writeModule(t, dir, "a.lua", `return {b = require("b")}`)
	writeModule(t, dir, "b.lua", `return {c = require("c")}`)
	writeModule(t, dir, "c.lua", `return {a = require("a")}`)
	writeModule(t, dir, "self.lua", `return require("self")`)
	h := moduleHarness(t, false, nil, dir)
	res := runOK(t, h, `
		local ok1, err1 = pcall(require, "a")
		local ok2, err2 = pcall(require, "self")
		assert(not ok1 and not ok2)
		assert(package.loaded.a == nil and package.loaded.b == nil and package.loaded.c == nil)
		return err1, err2`)
	require.Contains(t, res[0].String(), "require: module 'a' is required again while it loads (a cycle: a -> b -> c -> a)")
	require.Contains(t, res[1].String(), "(a cycle: self -> self)")
}

// Under --safe require loads an embedded module (through the binding: its
// for-in waits) and refuses one that only a module directory or
// package.path has, naming --safe, without reading it. (Issue 26: safe
// mode gets a require limited to embedded modules.)
func TestSafeRequireLoadsOnlyEmbeddedModules(t *testing.T) {
	dir := t.TempDir()
	writeModule(t, dir, "user.lua", `USER_LOADED = true; return 1`)
	h := moduleHarness(t, true, fstest.MapFS{"streams.lua": {Data: []byte(streamModule)}}, dir)
	res := runOK(t, h, `
		local total = require("streams").total(3)
		local ok, err = pcall(require, "user")
		assert(not ok and USER_LOADED == nil)
		assert(require("string") == string and require("pmacs") == pmacs, "opened libraries are loaded modules")
		return total, err, package == nil`)
	require.Equal(t, lua.LNumber(6), res[0])
	require.Contains(t, res[1].String(), "require: not allowed with --safe (module 'user' is not one of the host's embedded modules, and modules on package.path and in the user's lua directory are outside the script's roots)")
	require.Equal(t, lua.LTrue, res[2])
}

// A module's main chunk runs inside require, so a wait there is an error
// that names require, not a corrupted task.
func TestModuleMainChunkCannotWait(t *testing.T) {
	h := moduleHarness(t, false, fstest.MapFS{"waits.lua": {Data: []byte(`pmacs.workers.sleep(1):await(); return 1`)}})
	res := runOK(t, h, `local ok, err = pcall(function() return require("waits") end); return ok, err`)
	require.Equal(t, lua.LFalse, res[0])
	require.Contains(t, res[1].String(), "cannot wait inside 'require'")
}
