package luabind

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// The scripts the Lua soak spawns as tasks, each with (dir, a, b, flag) as
// its varargs. Each proves its own outcome with assert, so a wrong value
// fails the task and the soak.
var soakScripts = map[string]string{
	"sum": `local dir, n = ...
local v = pmacs.workers.sum(n):await()
assert(v == n * (n + 1) / 2, "sum")`,

	"sleep_cancel": `local dir, ms, _, cancel = ...
local h = pmacs.workers.sleep(ms)
if cancel then h:cancel() end
local ok, err = h:await()
assert(ok == true or err == "cancelled", tostring(err))`,

	"supersede": `local dir, k = ...
local key = "g" .. k
local first = pmacs.workers.grep{root = dir .. "/src", pattern = "needle", key = key}
local second = pmacs.workers.grep{root = dir .. "/src", pattern = "Needle", case_sensitive = false, key = key}
local out1, err = first:await() -- cancelled, unless it had already finished
assert(out1 or err == "cancelled", "superseded grep: " .. tostring(err))
local n = 0
for batch in second:batches() do n = n + #batch end
local out, err2 = second:await()
assert(out or err2 == "cancelled", tostring(err2))`,

	"slow_stream": `local dir, n, m = ...
local h = pmacs.workers.emit_n(n, {max_batch = m})
local got, last = 0, 0
for batch in h:batches() do
  assert(#batch <= m, "batch too big")
  for _, v in ipairs(batch) do assert(v == last + 1, "order") last = v end
  got = got + #batch
  coroutine.yield() -- the consumer is slow: one frame per batch
end
assert(got == n, "lost items: " .. got .. " of " .. n)
assert(h:await() == true)`,

	"undrained": `local dir, ms = ...
local h = pmacs.workers.emit_n(1000000)
pmacs.workers.sleep(ms):await() -- nobody takes its batches meanwhile
h:cancel()
local ok, err = h:await()
assert(ok == true or err == "cancelled", tostring(err))`,

	"fs": `local dir, a, b, overwrite = ...
local fs = pmacs.workers.fs
local m = dir .. "/m/"
local ok, err, name = fs.rename(m .. a, m .. b, {overwrite = overwrite}):await()
assert(ok or name == "ENOENT" or name == "EEXIST", tostring(err))
ok, err, name = fs.chmod(m .. b, 384 + a):await()
assert(ok or name == "ENOENT", tostring(err))
local st
st, err, name = fs.stat(m .. a):await()
assert(st or name == "ENOENT", tostring(err))
local list = assert(fs.read_dir(dir .. "/m"):await())
assert(#list.entries <= 4)`,

	"parse": `local dir, k = ...
local tree, err = pmacs.workers.parse{source = "local x = " .. k .. "\nreturn x\n", language = "lua", key = "p" .. (k % 2)}:await()
assert(tree or err == "cancelled", tostring(err))
if tree then assert(tree:root_type() == "program" and not tree:has_error()) tree:close() end`,

	"task_error": `local v, err = pmacs.async.run(function() error("planned failure") end):await()
assert(v == nil and err:find("planned failure", 1, true))`,
}

// TestSoakRandomLuaScripts runs, for PMACS_SOAK, a random mix of Lua tasks
// through a Binding: awaits, cancels, supersedes, streams drained slowly and
// streams nobody drains, filesystem mutations, parses and failing child
// tasks, with each frame checked: every job settles exactly once, no task
// fails unplanned, and a frame never hangs. At the end the binding and the
// runtime's tables are empty and goroutines and heap are back to their
// baseline (issue 8: soak from Lua).
func TestSoakRandomLuaScripts(t *testing.T) {
	limit := testenv.SoakDuration(t)
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "m"), 0o755))
	for i := range 4 {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "m", fmt.Sprint(i)), []byte("x"), 0o644))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "src"), 0o755))
	writeGrepCorpus(t, filepath.Join(dir, "src"), 10, 200)

	baseG := goruntime.NumGoroutine()
	baseHeap := testenv.HeapAfterGC()
	rt, err := runtime.New(runtime.Options{StreamCredit: 2000})
	require.NoError(t, err)
	var stderr bytes.Buffer
	b, err := New(rt, Options{Safe: true, Stdout: &bytes.Buffer{}, Stderr: &stderr})
	require.NoError(t, err)

	names := make([]string, 0, len(soakScripts))
	fns := map[string]*lua.LFunction{}
	for name, src := range soakScripts {
		fn, err := b.LoadString(src, name+".lua")
		require.NoError(t, err, name)
		fns[name] = fn
		names = append(names, name)
	}
	rng := rand.New(rand.NewPCG(2, uint64(time.Now().UnixNano())))
	settled := map[runtime.JobID]bool{}
	var tasks []*Task
	frames, peakG := 0, 0
	var peakHeap uint64
	nextMem := time.Now()
	frame := func() {
		start := time.Now()
		fs := b.Frame()
		require.Less(t, time.Since(start), 2*time.Second, "a frame hung")
		for _, id := range fs.Tick.Settled {
			require.False(t, settled[id], "job %d settled twice", id)
			settled[id] = true
		}
		frames++
		peakG = max(peakG, goruntime.NumGoroutine())
		if time.Now().After(nextMem) {
			var ms goruntime.MemStats
			goruntime.ReadMemStats(&ms)
			peakHeap = max(peakHeap, ms.HeapAlloc)
			nextMem = time.Now().Add(time.Second)
		}
		for _, f := range b.TakeFailed() {
			t.Fatalf("a task failed: %v\n%s", f.Err(), stderr.String())
		}
	}
	timer := time.NewTimer(time.Millisecond)
	defer timer.Stop()
	wait := func() {
		timer.Reset(time.Millisecond)
		select {
		case <-rt.Ready():
		case <-timer.C:
		}
	}

	start := time.Now()
	for time.Since(start) < limit {
		for range rng.IntN(3) {
			name := names[rng.IntN(len(names))]
			args := []lua.LValue{lua.LString(dir), lua.LNumber(rng.IntN(4)), lua.LNumber(1 + rng.IntN(4)), lua.LBool(rng.IntN(2) == 0)}
			switch name {
			case "sum":
				args[1] = lua.LNumber(rng.IntN(100_000))
			case "sleep_cancel", "undrained":
				args[1] = lua.LNumber(rng.IntN(30))
			case "slow_stream":
				args[1], args[2] = lua.LNumber(rng.IntN(3000)), lua.LNumber(1+rng.IntN(700))
			case "supersede", "parse":
				args[1] = lua.LNumber(rng.IntN(1000))
			}
			tasks = append(tasks, b.Spawn(fns[name], args...))
		}
		frame()
		wait()
		// Forget finished tasks so the list stays short.
		live := tasks[:0]
		for _, task := range tasks {
			if !task.Done() {
				live = append(live, task)
			}
		}
		tasks = live
	}
	deadline := time.Now().Add(60 * time.Second)
	for b.Busy() {
		require.False(t, b.Stalled(), "tasks wait on each other")
		require.True(t, time.Now().Before(deadline), "still busy: %d tasks, %d jobs", b.Stats().Tasks, b.Stats().Jobs)
		frame()
		wait()
	}
	elapsed := time.Since(start)
	require.Zero(t, b.Stats().Jobs)
	require.Zero(t, rt.Stats().Pending, "pending table")
	require.Zero(t, rt.Stats().SupersedeKeys, "supersede table")
	require.Zero(t, rt.Stats().Held, "parse handoff and other kept values")
	b.Close()
	rt.Close()
	rt.Tick()

	deadlineG := time.Now().Add(10 * time.Second)
	for goruntime.NumGoroutine() > baseG {
		if time.Now().After(deadlineG) {
			buf := make([]byte, 1<<20)
			t.Fatalf("goroutines not back to baseline %d:\n%s", baseG, buf[:goruntime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
	endHeap := testenv.HeapAfterGC()
	require.Less(t, endHeap, baseHeap+16<<20, "heap back near its baseline")
	t.Logf("soak (Lua): duration %v, frames %d, jobs settled %d, peak goroutines %d (baseline %d), "+
		"peak heap %.1f MiB (baseline %.1f MiB, end %.1f MiB)",
		elapsed.Round(time.Second), frames, len(settled), peakG, baseG,
		float64(peakHeap)/(1<<20), float64(baseHeap)/(1<<20), float64(endHeap)/(1<<20))
}
