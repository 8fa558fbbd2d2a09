package luabind

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/kinds/watchjob"
	"github.com/pmacs-go/pmacs-go/watch"
)

// TestWatchFromLua covers pmacs.workers.watch: once its progress says it
// watches, a directory made under the root arrives as {path, op = "create",
// dir = true} in a batch, nothing under an ignored name does, cancelling
// ends the stream with "cancelled", and a misspelt field or a path in
// 'ignore' is a clear error.
func TestWatchFromLua(t *testing.T) {
	h := newHarness(t, false)
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "skipme"), 0o755))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	h.b.L().SetGlobal("R", lua.LString(dir))
	task := h.run(t, `
		local w = pmacs.workers
		local h = w.watch{root = R, ignore = {"skipme"}, max_batch = 100, key = "watch"}
		while h:progress() == 0 do w.sleep(1):await() end
		local watching = h:progress()
		assert(w.fs.mkdir(R .. "/skipme/inner"):await())
		assert(w.fs.mkdir(R .. "/sub/made"):await())
		local found, ignored
		for batch in h:batches() do
			for _, c in ipairs(batch) do
				if c.path == R .. "/sub/made" then found = c end
				if c.path:find("skipme", 1, true) then ignored = c.path end
			end
			if found then break end
		end
		h:cancel()
		local v, err = h:await()
		local ok1, e1 = pcall(w.watch, {root = R, ignroe = {}})
		local ok2, e2 = pcall(w.watch, {root = R, ignore = {"a/b"}})
		return watching, found.op, found.dir, ignored, v, err, e1, e2`)
	require.NoError(t, task.Err(), h.stderr.String())
	res := task.Results()
	require.Equal(t, lua.LNumber(2), res[0], "the root and sub are watched")
	require.Equal(t, lua.LString("create"), res[1])
	require.Equal(t, lua.LTrue, res[2])
	require.Equal(t, lua.LNil, res[3])
	require.Equal(t, lua.LNil, res[4])
	require.Equal(t, lua.LString("cancelled"), res[5])
	require.Contains(t, res[6].String(), "unknown field ignroe")
	require.Contains(t, res[7].String(), "directory names, not paths")
}

// TestSafeWatchStaysBeneathTheRoots covers --safe: a watch of a directory
// outside the script's roots, or through a symlink leading out, raises
// naming the API, while one beneath them runs.
func TestSafeWatchStaysBeneathTheRoots(t *testing.T) {
	root, outside := safeTrees(t)
	h := safeHarness(t, root, outside)
	for _, src := range []string{`pmacs.workers.watch{root = OUT}`, `pmacs.workers.watch{root = ROOT .. "/door"}`} {
		task := h.run(t, src)
		require.ErrorContains(t, task.Err(), "pmacs.workers.watch: not allowed with --safe (", src)
	}
	task := h.run(t, `
		local h = pmacs.workers.watch{root = ROOT}
		while h:progress() == 0 do pmacs.workers.sleep(1):await() end
		h:cancel()
		return select(2, h:await())`)
	require.NoError(t, task.Err(), h.stderr.String())
	require.Equal(t, lua.LString("cancelled"), task.Results()[0])
}

// TestWatchChangesToLua covers the items' Lua form: a change is {path, op,
// dir}, a notice {path, op = "notice", dir, notice}.
func TestWatchChangesToLua(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	tbl := L.NewTable()
	changesToLua(L, tbl, watchjob.Changes{
		{Path: "/r/a", Op: watch.Rename, Dir: true},
		{Path: "/r", Dir: true, Notice: "the kernel's watch limit is reached"},
	})
	require.Equal(t, 2, tbl.Len())
	c := tbl.RawGetInt(1).(*lua.LTable)
	require.Equal(t, lua.LString("/r/a"), c.RawGetString("path"))
	require.Equal(t, lua.LString("rename"), c.RawGetString("op"))
	require.Equal(t, lua.LTrue, c.RawGetString("dir"))
	require.Equal(t, lua.LNil, c.RawGetString("notice"))
	n := tbl.RawGetInt(2).(*lua.LTable)
	require.Equal(t, lua.LString("notice"), n.RawGetString("op"))
	require.Equal(t, lua.LString("the kernel's watch limit is reached"), n.RawGetString("notice"))
}
