package luabind

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/fuzzy"
)

func TestFindFilesFromLua(t *testing.T) {
	h := newHarness(t, false)
	dir := t.TempDir()
	writeFixture(t, dir)
	h.b.L().SetGlobal("R", lua.LString(dir))
	task := h.run(t, `
		local w = pmacs.workers
		local h = w.find_files{root = R .. "/grep", query = "sbgo"}
		local batches = 0
		for batch in h:batches() do
			batches = batches + 1
			assert(type(batch[1].path) == "string", "a snapshot entry has a path")
		end
		local r, err = h:await()
		assert(r, err)
		local top = r[1]
		local pos = {}
		for _, p in ipairs(top.positions) do pos[#pos + 1] = top.path:sub(p, p) end
		local hidden = w.find_files{root = R .. "/grep", query = "c.txt", hidden = true}:await()
		local bad, berr = w.find_files{root = R .. "/missing"}:await()
		local ok, raised = pcall(w.find_files, {root = R, qeury = "x"})
		return batches, top.path, table.concat(pos), r.total, hidden[1].path, bad == nil and berr:find("find_files") ~= nil, raised`)
	require.NoError(t, task.Err(), h.stderr.String())
	res := task.Results()
	require.GreaterOrEqual(t, int(res[0].(lua.LNumber)), 1)
	require.Equal(t, lua.LString("sub/b.go"), res[1])
	require.Equal(t, lua.LString("sbgo"), res[2], "positions are 1-based and point at the matched characters")
	require.Equal(t, lua.LNumber(1), res[3])
	require.Equal(t, lua.LString(".hidden/c.txt"), res[4])
	require.Equal(t, lua.LTrue, res[5])
	require.Contains(t, res[6].String(), "unknown field qeury")
}

func TestFuzzyFromLuaEqualsSearch(t *testing.T) {
	h := newHarness(t, false)
	items := make([]string, 0, 500)
	tbl := h.b.L().NewTable()
	for i := range 500 {
		s := fmt.Sprintf("cmd/tool%d/main_%d.go", i%9, i)
		items = append(items, s)
		tbl.Append(lua.LString(s))
	}
	h.b.L().SetGlobal("ITEMS", tbl)
	task := h.run(t, `
		local w = pmacs.workers
		local out = {}
		local src = w.fuzzy_source(ITEMS)
		for _, q in ipairs({"t3m", "main_4", "tool8 !go"}) do
			local a = assert(w.fuzzy{items = ITEMS, query = q, limit = 10}:await())
			local b = assert(w.fuzzy{source = src, query = q, limit = 10, key = "k"}:await())
			local row = {}
			for i, m in ipairs(a) do
				assert(b[i].index == m.index, "source and items agree")
				row[#row + 1] = m.index .. ":" .. m.score
			end
			out[#out + 1] = table.concat(row, ",")
		end
		assert(w.fuzzy_free(src) == true)
		local gone, err = w.fuzzy{source = src, query = "x"}:await()
		assert(gone == nil and err:find("unknown fuzzy source"), tostring(err))
		local ok, e2 = pcall(w.fuzzy, {items = {"a"}, source = src})
		assert(not ok and e2:find("not both"), e2)
		return unpack(out)`)
	require.NoError(t, task.Err(), h.stderr.String())
	store := fuzzy.NewStore(items)
	for i, q := range []string{"t3m", "main_4", "tool8 !go"} {
		want, err := fuzzy.Search(context.Background(), store, fuzzy.ParsePattern(q), fuzzy.Options{Limit: 10})
		require.NoError(t, err)
		var row string
		for k, m := range want.Matches {
			if k > 0 {
				row += ","
			}
			row += fmt.Sprintf("%d:%d", m.Index+1, m.Score)
		}
		require.Equal(t, lua.LString(row), task.Results()[i], q)
	}
}

// 100 keystrokes typed in one burst, each superseding the last under one
// key: only the last job's snapshots reach Lua.
func TestFindFilesSupersedeBurstFromLua(t *testing.T) {
	h := newHarness(t, false)
	dir := t.TempDir()
	for i := range 1500 {
		p := filepath.Join(dir, fmt.Sprintf("d%d", i%30), fmt.Sprintf("file%d.txt", i))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, nil, 0o644))
	}
	h.b.L().SetGlobal("R", lua.LString(dir))
	task := h.run(t, `
		local w = pmacs.workers
		local q = "file1499.txt"
		local handles = {}
		for k = 1, 100 do
			handles[k] = w.find_files{root = R, query = q:sub(1, math.min(k, #q)), limit = 5, key = "picker"}
		end
		local live = 0
		for _, a in ipairs(w.snapshot().active) do
			if a.kind == "find_files" and not a.cancel_requested then live = live + 1 end
		end
		local stale = 0
		for k = 1, 99 do
			for batch in handles[k]:batches() do stale = stale + 1 end
		end
		local r = assert(handles[100]:await())
		return stale, r[1].path, live`)
	require.NoError(t, task.Err(), h.stderr.String())
	require.Equal(t, []lua.LValue{lua.LNumber(0), lua.LString("d29/file1499.txt"), lua.LNumber(1)}, task.Results())
}

// A rename and a remove through w.fs reach the next find_files at once.
func TestFindFilesSeesFsJobsFromLua(t *testing.T) {
	h := newHarness(t, false)
	dir := t.TempDir()
	writeFixture(t, dir)
	h.b.L().SetGlobal("R", lua.LString(dir))
	task := h.run(t, `
		local w = pmacs.workers
		local function names(q)
			local r = assert(w.find_files{root = R .. "/fs", query = q}:await())
			local out = {}
			for i, m in ipairs(r) do out[i] = m.path end
			table.sort(out)
			return table.concat(out, " ")
		end
		local before = names("txt")
		assert(w.fs.rename(R .. "/fs/a.txt", R .. "/fs/renamed.txt"):await())
		local renamed = names("txt")
		assert(w.fs.remove(R .. "/fs/full/inner.txt"):await())
		return before, renamed, names("txt")`)
	require.NoError(t, task.Err(), h.stderr.String())
	require.Equal(t, []lua.LValue{
		lua.LString("a.txt b.txt full/inner.txt"),
		lua.LString("b.txt full/inner.txt renamed.txt"),
		lua.LString("b.txt renamed.txt"),
	}, task.Results())
}

// A find_files that had already finished on its worker when the next
// keystroke superseded it (its replies still on the bus) delivers none of
// its snapshots to Lua.
func TestFindFilesSupersededAfterFinishingDeliversNothing(t *testing.T) {
	h := newHarness(t, false)
	dir := t.TempDir()
	writeFixture(t, dir)
	h.b.L().SetGlobal("R", lua.LString(dir))
	spawn := func(src string) *Task {
		fn, err := h.b.LoadString(src, "test.lua")
		require.NoError(t, err)
		return h.b.Spawn(fn)
	}
	spawn(`H1 = pmacs.workers.find_files{root = R, query = "txt", key = "picker"}`)
	// The job finishes on its worker; no frame takes its replies yet.
	require.Eventually(t, func() bool {
		select {
		case <-h.rt.Ready():
			return true
		default:
			return false
		}
	}, 5*time.Second, time.Millisecond)
	time.Sleep(50 * time.Millisecond)
	spawn(`H2 = pmacs.workers.find_files{root = R, query = "txta", key = "picker"}`)
	task := spawn(`
		local n = 0
		for batch in H1:batches() do n = n + 1 end
		local r = H1:await()
		return n, select("#", H2:await())`)
	h.drive(t, 10*time.Second)
	require.NoError(t, task.Err(), h.stderr.String())
	require.Equal(t, lua.LNumber(0), task.Results()[0], "a superseded find_files delivered snapshots")
}
