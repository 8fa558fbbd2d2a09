package luabind

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/fsops"
	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// safeHarness is a --safe binding whose runtime confines its filesystem
// jobs to roots, as the headless runner sets one up, with ROOT and OUT
// (a directory beside it) known to Lua.
func safeHarness(t *testing.T, root, outside string) *harness {
	t.Helper()
	h := &harness{}
	rt, err := runtime.New(runtime.Options{ConfineFS: true})
	require.NoError(t, err)
	_, err = rt.RegisterRoot(root)
	require.NoError(t, err)
	b, err := New(rt, Options{Safe: true, Stdout: &h.stdout, Stderr: &h.stderr})
	require.NoError(t, err)
	h.rt, h.b = rt, b
	t.Cleanup(func() {
		b.Close()
		rt.Close()
	})
	b.L().SetGlobal("ROOT", lua.LString(root))
	b.L().SetGlobal("OUT", lua.LString(outside))
	return h
}

// safeTrees writes a root holding a Lua module, a file to grep and a
// symlink, door, to a directory beside it that holds the same.
func safeTrees(t *testing.T) (root, outside string) {
	t.Helper()
	top := t.TempDir()
	files := map[string]string{"mod.lua": "return 'loaded ' .. (... or 'by dofile')", "notes.txt": "needle here\n", "sub/x.txt": "x"}
	root, outside = filepath.Join(top, "root"), filepath.Join(top, "beside")
	testenv.WriteTree(t, root, files)
	testenv.WriteTree(t, outside, files)
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "door")))
	return root, outside
}

// Under --safe, reads beneath the script's roots work as without it:
// read_dir, stat, grep and find_files under a root, loadfile and dofile of
// a file there. (Issue 25, "--safe means safe": reads only beneath the
// script's roots, and there they still work.)
func TestSafeReadsInsideTheRootsWork(t *testing.T) {
	root, outside := safeTrees(t)
	h := safeHarness(t, root, outside)
	res := runOK(t, h, `
		local w = pmacs.workers
		local names = {}
		for _, e in ipairs(assert(w.fs.read_dir(ROOT):await()).entries) do names[#names + 1] = e.name end
		local st = assert(w.fs.stat(ROOT .. "/notes.txt"):await())
		local link = assert(w.fs.stat(ROOT .. "/door"):await())
		local hits = 0
		for batch in w.grep{root = ROOT, pattern = "needle"}:batches() do hits = hits + #batch end
		local found = {}
		for snap in w.find_files{root = ROOT}:batches() do
			for _, m in ipairs(snap) do found[#found + 1] = m.path end
		end
		table.sort(found)
		local chunk = assert(loadfile(ROOT .. "/mod.lua"))
		return table.concat(names, ","), st.size, link.kind, hits, table.concat(found, ","),
			chunk("by loadfile"), dofile(ROOT .. "/sub/../mod.lua")
	`)
	require.Equal(t, []lua.LValue{
		lua.LString("door,mod.lua,notes.txt,sub"), lua.LNumber(12), lua.LString("symlink"), lua.LNumber(1),
		lua.LString("mod.lua,notes.txt,sub/x.txt"), lua.LString("loaded by loadfile"), lua.LString("loaded by dofile"),
	}, res)
}

// Under --safe, a read through a symlink inside the roots that points
// outside them is refused with a Lua error naming the API and --safe, as
// is a read of a path outside, through "..", or under a root the script
// names that lies outside. A stat of the link itself reads the link, which
// lies inside. (Issue 25, point 3 and "--safe means safe".)
func TestSafeReadsThroughASymlinkOutsideAreRefused(t *testing.T) {
	root, outside := safeTrees(t)
	h := safeHarness(t, root, outside)
	for src, api := range map[string]string{
		`pmacs.workers.fs.read_dir(ROOT .. "/door")`:                         "pmacs.workers.fs.read_dir",
		`pmacs.workers.fs.read_dir(OUT)`:                                     "pmacs.workers.fs.read_dir",
		`pmacs.workers.fs.stat(ROOT .. "/door/notes.txt")`:                   "pmacs.workers.fs.stat",
		`pmacs.workers.fs.stat(ROOT .. "/../beside/notes.txt")`:              "pmacs.workers.fs.stat",
		`pmacs.workers.fs.stat(ROOT .. "/notes.txt", {roots = {OUT}})`:       "pmacs.workers.fs.stat",
		`pmacs.workers.grep{root = ROOT .. "/door", pattern = "needle"}`:     "pmacs.workers.grep",
		`pmacs.workers.grep{root = OUT .. "/notes.txt", pattern = "needle"}`: "pmacs.workers.grep",
		`pmacs.workers.find_files{root = ROOT .. "/door"}`:                   "pmacs.workers.find_files",
		`loadfile(ROOT .. "/door/mod.lua")`:                                  "loadfile",
		`dofile(ROOT .. "/door/mod.lua")`:                                    "dofile",
		`require("mod")`:                                                     "require",
	} {
		task := h.run(t, src)
		require.ErrorContains(t, task.Err(), api+": not allowed with --safe (", src)
	}
	task := h.run(t, `return pmacs.workers.fs.stat(ROOT .. "/door"):await().kind`)
	require.NoError(t, task.Err())
	require.Equal(t, lua.LString("symlink"), task.Results()[0])
}

// The second fence behind the check: loadfile's and dofile's open goes
// through os.Root, so a path whose link leads out is refused even when the
// check has passed (a link swapped in between); and a safe script's fs job
// acts beneath the roots it names, which must lie beneath its own, even on
// a runtime without ConfineFS. (Issue 25: no symlink escape, no TOCTOU.)
func TestSafeOpenAndJobsActBeneathTheRoots(t *testing.T) {
	root, outside := safeTrees(t)
	h := safeHarness(t, root, outside)
	_, err := h.b.openFile(filepath.Join(root, "door", "mod.lua"))
	require.ErrorIs(t, err, fsops.ErrEscapesRoot, "the open itself refuses the link out")
	f, err := h.b.openFile(filepath.Join(root, "mod.lua"))
	require.NoError(t, err)
	require.NoError(t, f.Close())

	plain := newHarness(t, false)
	plain.b.safe = true
	_, err = plain.rt.RegisterRoot(root)
	require.NoError(t, err)
	plain.b.L().SetGlobal("ROOT", lua.LString(root))
	res := runOK(t, plain, `
		local _, err, code = pmacs.workers.fs.stat(ROOT .. "/notes.txt", {roots = {ROOT .. "/sub"}}):await()
		return code, err:find("escapes the permitted roots", 1, true) ~= nil,
			pmacs.workers.fs.stat(ROOT .. "/sub/x.txt", {roots = {ROOT .. "/sub"}}):await().size`)
	require.Equal(t, []lua.LValue{lua.LString("EACCES"), lua.LTrue, lua.LNumber(1)}, res)
}

// The roots option of pmacs.workers.fs confines one job without --safe:
// a rename, remove, mkdir or chmod outside its roots, or through a symlink
// inside them that leads out, fails with EACCES and touches nothing; inside
// it acts. (Issue 25, point 1: what a workspace edit is carried out with.)
func TestFsRootsOptionConfinesTheJob(t *testing.T) {
	root, outside := safeTrees(t)
	h := newHarness(t, false)
	h.b.L().SetGlobal("ROOT", lua.LString(root))
	h.b.L().SetGlobal("OUT", lua.LString(outside))
	res := runOK(t, h, `
		local fs, R = pmacs.workers.fs, {roots = {ROOT}}
		local codes = {}
		for _, h in ipairs{
			fs.rename(OUT .. "/notes.txt", OUT .. "/moved.txt", R),
			fs.rename(ROOT .. "/notes.txt", ROOT .. "/door/stolen.txt", R),
			fs.remove(ROOT .. "/../beside/notes.txt", R),
			fs.remove(ROOT .. "/door/mod.lua", R),
			fs.mkdir(ROOT .. "/door/made", R),
			fs.chmod(ROOT .. "/door/mod.lua", "600", R),
		} do
			local ok, err, code = h:await()
			codes[#codes + 1] = ok and "done" or code
			assert(ok or err:find("escapes the permitted roots", 1, true), err)
		end
		local ok, err = fs.rename(ROOT .. "/notes.txt", ROOT .. "/sub/notes.txt", R):await()
		assert(ok, err)
		local bad = pcall(fs.stat, ROOT, {roots = {}})
		return table.concat(codes, ","), bad
	`)
	require.Equal(t, []lua.LValue{lua.LString("EACCES,EACCES,EACCES,EACCES,EACCES,EACCES"), lua.LFalse}, res)
	for _, name := range []string{"notes.txt", "mod.lua"} {
		st, err := os.Stat(filepath.Join(outside, name))
		require.NoError(t, err, "nothing outside was touched")
		require.Equal(t, os.FileMode(0o644), st.Mode().Perm())
	}
	require.NoFileExists(t, filepath.Join(outside, "moved.txt"))
	require.NoFileExists(t, filepath.Join(outside, "stolen.txt"))
	require.NoDirExists(t, filepath.Join(outside, "made"))
	require.FileExists(t, filepath.Join(root, "sub", "notes.txt"))
}

// client:open reads the file it opens only beneath the script's roots
// under --safe. No client can start under --safe, so the check stands
// behind pmacs.lsp.start's refusal: the binding is switched to safe once
// the client runs. (Issue 25, point 3: client:open(path) read any file.)
func TestSafeClientOpenReadsOnlyBeneathTheRoots(t *testing.T) {
	root, outside := safeTrees(t)
	h := lspHarness(t)
	_, err := h.rt.RegisterRoot(root)
	require.NoError(t, err)
	L := h.b.L()
	L.SetGlobal("ROOT", lua.LString(root))
	L.SetGlobal("OUT", lua.LString(outside))
	task := h.run(t, `C = assert(pmacs.lsp.start{cmd = {FAKE}, root = ROOT}) return "ok"`)
	requireOK(t, h, task)
	h.b.safe = true
	task = h.run(t, `C:open(ROOT .. "/door/notes.txt")`)
	require.ErrorContains(t, task.Err(), "client:open: not allowed with --safe (")
	task = h.run(t, `assert(C:open(ROOT .. "/notes.txt")) C:stop() return "ok"`)
	requireOK(t, h, task)
}
