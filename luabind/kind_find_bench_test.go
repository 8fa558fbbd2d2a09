package luabind

import (
	goruntime "runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// goSrc is the tree the finder benchmarks rank: GOROOT/src, about 11,000
// files in 1,300 directories.
func goSrc(b *testing.B) string {
	b.Helper()
	src, err := testenv.GoSrc()
	require.NoError(b, err)
	return src
}

// withClock gives Lua now_ms(), a monotonic clock in milliseconds.
func withClock(h *harness) {
	base := time.Now()
	h.b.L().SetGlobal("now_ms", h.b.L().NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(float64(time.Since(base)) / float64(time.Millisecond)))
		return 1
	}))
}

// BenchmarkFindFilesColdFirstResults measures, on a fresh runtime (an empty
// cache), the time from dispatching find_files on GOROOT/src to the first
// ranked snapshot in Lua, and to the final ranking.
func BenchmarkFindFilesColdFirstResults(b *testing.B) {
	root := goSrc(b)
	var first, final []float64
	for b.Loop() {
		h := newHarness(b, false)
		withClock(h)
		h.b.L().SetGlobal("R", lua.LString(root))
		task := h.run(b, `
			local t0 = now_ms()
			local h = pmacs.workers.find_files{root = R, query = "rtsup"}
			local it, st, c0 = h:batches()
			local snap = it(st, c0)
			local t1 = now_ms()
			assert(snap and snap[1], "a first snapshot")
			local r = assert(h:await())
			return t1 - t0, now_ms() - t0`)
		require.NoError(b, task.Err(), h.stderr.String())
		first = append(first, float64(task.Results()[0].(lua.LNumber)))
		final = append(final, float64(task.Results()[1].(lua.LNumber)))
	}
	b.ReportMetric(median(first), "ms-first-median")
	b.ReportMetric(slices.Max(first), "ms-first-max")
	b.ReportMetric(median(final), "ms-final-median")
}

// BenchmarkFindFilesWarmQuery measures a query on a warm GOROOT/src cache,
// from dispatch to the final ranking in Lua (the mtime check of every
// directory included).
func BenchmarkFindFilesWarmQuery(b *testing.B) {
	h := newHarness(b, false)
	withClock(h)
	h.b.L().SetGlobal("R", lua.LString(goSrc(b)))
	task := h.run(b, `assert(pmacs.workers.find_files{root = R, query = "x"}:await())`)
	require.NoError(b, task.Err(), h.stderr.String())
	queries := []string{"rtsup", "http server", "fmtprint", "os/exec", "ssa", "gc", "zz", "net/http/server.go", "!test go$", "'syscall"}
	var times []float64
	i := 0
	for b.Loop() {
		h.b.L().SetGlobal("Q", lua.LString(queries[i%len(queries)]))
		i++
		task := h.run(b, `
			local t0 = now_ms()
			assert(pmacs.workers.find_files{root = R, query = Q}:await())
			return now_ms() - t0`)
		require.NoError(b, task.Err(), h.stderr.String())
		times = append(times, float64(task.Results()[0].(lua.LNumber)))
	}
	b.ReportMetric(median(times), "ms-final-median")
	b.ReportMetric(percentile(times, 0.99), "ms-final-p99")
}

// BenchmarkFindFilesTypingFrames types 20 keys a second into a picker on
// GOROOT/src (cold cache at the first key) for two seconds: each key
// dispatches a find_files under one key and a task that renders every
// snapshot it gets into highlighted lines, as the editor's picker does. It
// reports the main goroutine's work per frame (Frame plus the key's
// dispatch), frames waking on replies or every 16 ms: wall time, which on a
// loaded machine includes time the thread waited for a core, and the
// thread's CPU time, the work itself.
func BenchmarkFindFilesTypingFrames(b *testing.B) {
	root := goSrc(b)
	const typed = "runtimesupersede"
	var frames, cpu []float64
	// The thread's CPU clock measures this goroutine only while it stays
	// on one thread.
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	for b.Loop() {
		h := newHarness(b, false)
		h.b.L().SetGlobal("R", lua.LString(root))
		fn, err := h.b.LoadString(`
			local q = ...
			local h = pmacs.workers.find_files{root = R, query = q, limit = 50, key = "picker"}
			for snap in h:batches() do
				local lines = {}
				for i, m in ipairs(snap) do
					local parts, last = {}, 0
					for _, p in ipairs(m.positions) do
						parts[#parts + 1] = m.path:sub(last + 1, p - 1) .. "[" .. m.path:sub(p, p) .. "]"
						last = p
					end
					parts[#parts + 1] = m.path:sub(last + 1)
					lines[i] = table.concat(parts)
				end
			end`, "picker.lua")
		require.NoError(b, err)
		start := time.Now()
		next := start
		keys := 0
		timer := time.NewTimer(time.Millisecond)
		for keys < 2*len(typed) || h.b.Busy() {
			require.Less(b, time.Since(start), 30*time.Second, "keys %d, tasks %d, jobs %d", keys, h.b.Stats().Tasks, h.b.Stats().Jobs)
			t0, c0 := time.Now(), threadCPU()
			if keys < 2*len(typed) && !t0.Before(next) {
				k := keys % len(typed)
				h.b.Spawn(fn, lua.LString(typed[:k+1]))
				keys++
				next = next.Add(50 * time.Millisecond)
			}
			h.b.Frame()
			frames = append(frames, float64(time.Since(t0))/float64(time.Millisecond))
			cpu = append(cpu, float64(threadCPU()-c0)/float64(time.Millisecond))
			timer.Reset(16 * time.Millisecond)
			select {
			case <-h.rt.Ready():
			case <-timer.C:
			}
		}
		timer.Stop()
	}
	b.ReportMetric(percentile(frames, 0.99), "ms-frame-p99")
	b.ReportMetric(median(frames), "ms-frame-median")
	b.ReportMetric(slices.Max(frames), "ms-frame-max")
	b.ReportMetric(percentile(cpu, 0.99), "ms-cpu-frame-p99")
	b.ReportMetric(slices.Max(cpu), "ms-cpu-frame-max")
}

func median(xs []float64) float64 { return percentile(xs, 0.5) }

func percentile(xs []float64, p float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}
