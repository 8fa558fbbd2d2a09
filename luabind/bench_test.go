package luabind

import (
	"fmt"
	goruntime "runtime"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/internal/idlegc"
	"github.com/pmacs-go/pmacs-go/lsp"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// BenchmarkFrame10kSettles measures frames in which 10,000 tasks each have
// their job settle: Tick decoding 10,000 replies, converting each result,
// and resuming each task to its end. Goal: at most 5 ms per frame. The jobs
// are external jobs completed from Go, so all 10,000 replies are on the bus
// before the first frame. "unbudgeted" does it all in one frame; "budget"
// runs with Options.FrameBudget and reports its longest frame and how many
// frames the 10,000 resumptions took. Beside each wall time it reports the
// frame's CPU time on its thread (Linux; 0 elsewhere): the frame's own
// work, which preemption by other processes or by the collector's workers
// does not inflate.
//
// "editor-loop" runs the budgeted frames as the demo editor runs its loop:
// the collector at GOGC=400, a spare P for the loop (GOMAXPROCS one above
// the cores), and one frame per frame target (16 ms) with the goroutine
// asleep in between, as the loop is in its select. "over-budget" counts
// the frames, per thousand, that took longer than the budget plus 1 ms by
// the wall clock. Those are the collector's, not the frame's work (their
// CPU time stays within the budget; GOGC=off removes them): a cycle that
// scans the frame goroutine's stack preempts it, and its P can go to a
// fractional mark worker for a few ms; and the collector's and sweeper's
// threads compete with it for the cores. Back to back, with a P per core,
// the frame goroutine runs for the whole round, so every cycle meets a
// frame.
func BenchmarkFrame10kSettles(b *testing.B) {
	for _, budget := range []time.Duration{0, 4 * time.Millisecond} {
		name := "unbudgeted"
		if budget > 0 {
			name = "budget=" + budget.String()
		}
		b.Run(name, func(b *testing.B) { benchFrame10k(b, budget, 0, new(idlegc.Collector)) })
	}
	b.Run("budget=4ms,no-idle-gc", func(b *testing.B) { benchFrame10k(b, 4*time.Millisecond, 0, nil) })
	b.Run("budget=4ms,editor-loop", func(b *testing.B) {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
		defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(goruntime.NumCPU() + 1))
		benchFrame10k(b, 4*time.Millisecond, runtime.DefaultFrameTarget, new(idlegc.Collector))
	})
}

// benchFrame10k runs rounds of 10,000 settles. With pace > 0 a frame starts
// every pace, and the goroutine sleeps until then. With idle set, each
// round starts from a loop that was idle, as a loop is before a burst: it
// calls idle.Idle (see internal/idlegc), and the round's spawning runs
// while a collection it started may still be marking.
func benchFrame10k(b *testing.B, budget, pace time.Duration, idle *idlegc.Collector) {
	const tasks = 10_000
	h := newHarness(b, false)
	h.b.budget = budget
	fn, err := h.b.LoadString(`local h = ...; local v = h:await(); return v`, "bench.lua")
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]runtime.JobID, tasks)
	var total, longest time.Duration
	var frames, over int
	// Every frame's time, for percentiles: on a loaded machine the longest
	// frame of a run is often a preemption or a GC pause, not the frame's
	// own work, so the run also reports the 99th percentile and the median
	// of each round's longest frame.
	var all, roundLongest, cpus []time.Duration
	// Locked, so the thread's CPU clock measures this goroutine alone.
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	// One round first, not counted, as the other benchmarks warm their
	// pools: the first burst grows the thread pool, the job tables and the
	// queues to their size (the live heap from about 31 to 50 MB), and a
	// collection that growth starts meets its frames.
	spawnSettled(b, h, fn, ids)
	for h.b.Stats().Tasks > 0 {
		h.b.Frame()
	}
	// Per round of 10,000 settles; the spawning, with the timer stopped,
	// is not counted.
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		if idle != nil {
			idle.Idle()
		}
		spawnSettled(b, h, fn, ids)
		b.StartTimer()
		var round time.Duration
		for h.b.Stats().Tasks > 0 {
			cpu0 := threadCPU()
			start := time.Now()
			h.b.Frame()
			d := time.Since(start)
			cpus = append(cpus, threadCPU()-cpu0)
			total += d
			longest = max(longest, d)
			round = max(round, d)
			all = append(all, d)
			frames++
			if budget > 0 && d > budget+time.Millisecond {
				over++
			}
			if pace > 0 {
				time.Sleep(pace - d)
			}
		}
		roundLongest = append(roundLongest, round)
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	slices.Sort(all)
	slices.Sort(roundLongest)
	slices.Sort(cpus)
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N*tasks), "ns/task")
	b.ReportMetric(ms(longest), "ms/longest-frame")
	b.ReportMetric(ms(all[len(all)*99/100]), "ms/p99-frame")
	b.ReportMetric(ms(roundLongest[len(roundLongest)/2]), "ms/median-round-longest")
	b.ReportMetric(float64(frames)/float64(b.N), "frames")
	b.ReportMetric(ms(cpus[len(cpus)-1]), "ms/longest-frame-cpu")
	b.ReportMetric(ms(cpus[len(cpus)*99/100]), "ms/p99-frame-cpu")
	if budget > 0 {
		b.ReportMetric(float64(over)*1000/float64(frames), "over-budget/1k-frames")
	}
}

// BenchmarkSpawnEmpty measures pmacs.async.run of an empty function, called
// from Lua in a loop. Goal: at most 5 us per task.
func BenchmarkSpawnEmpty(b *testing.B) {
	h := newHarness(b, false)
	fn, err := h.b.LoadString(`
		local n = ...
		local run, empty = pmacs.async.run, function() end
		for i = 1, n do run(empty) end
	`, "spawn.lua")
	if err != nil {
		b.Fatal(err)
	}
	L := h.b.L()
	b.ReportAllocs()
	b.ResetTimer()
	if err := L.CallByParam(lua.P{Fn: fn, NRet: 0, Protect: true}, lua.LNumber(b.N)); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSpawnEmptyFromGo measures Binding.Spawn of an empty function.
func BenchmarkSpawnEmptyFromGo(b *testing.B) {
	h := newHarness(b, false)
	fn, err := h.b.LoadString(`return`, "empty.lua")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		h.b.Spawn(fn)
	}
}

// spawnSettled starts one task of fn per element of ids, each given the
// handle of a new external job to await, then completes every job: the
// replies wait on the bus for the next frames. ids receives the jobs.
func spawnSettled(b *testing.B, h *harness, fn *lua.LFunction, ids []runtime.JobID) {
	for i := range ids {
		id, _ := h.rt.RegisterExternal(lsp.RequestKind, "")
		handle, err := h.b.Adopt(id)
		if err != nil {
			b.Fatal(err)
		}
		h.b.Spawn(fn, handle)
		ids[i] = id
	}
	for i, id := range ids {
		if err := h.rt.CompleteExternalOK(id, int64(i)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSpawnBurst10k measures a burst of 10,000 tasks alive at once:
// each is spawned, parks on an external job, and ends when the job is
// completed and the frames resume it. Bursts repeat, so from the second on
// the tasks run on the pooled threads of the one before. ns/task counts
// spawning and frames together; B/op and allocs/op are a whole burst's.
func BenchmarkSpawnBurst10k(b *testing.B) {
	const tasks = 10_000
	h := newHarness(b, false)
	fn, err := h.b.LoadString(`local h = ...; return h:await()`, "burst.lua")
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]runtime.JobID, tasks)
	b.ReportAllocs()
	for b.Loop() {
		spawnSettled(b, h, fn, ids)
		for h.b.Stats().Tasks > 0 {
			h.b.Frame()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*tasks), "ns/task")
}

// BenchmarkStreamDelivery measures items per second through h:batches()
// with max_batch 4096: a task iterates an emit_n stream of a million
// integers while frames are driven as fast as replies arrive.
func BenchmarkStreamDelivery(b *testing.B) {
	for _, maxBatch := range []int{4096} {
		b.Run(fmt.Sprintf("max_batch=%d", maxBatch), func(b *testing.B) {
			const items = 1_000_000
			h := newHarness(b, false)
			fn, err := h.b.LoadString(`
				local n, max_batch = ...
				local h = pmacs.workers.emit_n(n, {max_batch = max_batch})
				local got = 0
				for batch in h:batches() do got = got + #batch end
				assert(got == n and h:await())
			`, "stream.lua")
			if err != nil {
				b.Fatal(err)
			}
			var elapsed time.Duration
			for b.Loop() {
				start := time.Now()
				task := h.b.Spawn(fn, lua.LNumber(items), lua.LNumber(maxBatch))
				h.drive(b, time.Minute)
				elapsed += time.Since(start)
				if task.Err() != nil {
					b.Fatal(task.Err())
				}
			}
			b.ReportMetric(float64(items*b.N)/elapsed.Seconds(), "items/s")
		})
	}
}

// BenchmarkGrepDelivery measures grep matches per second converted to Lua
// tables through h:batches() with max_batch 4096.
func BenchmarkGrepDelivery(b *testing.B) {
	dir := b.TempDir()
	writeGrepCorpus(b, dir, 200, 500)
	h := newHarness(b, false)
	fn, err := h.b.LoadString(`
		local root = ...
		local h = pmacs.workers.grep{root = root, pattern = "needle", max_batch = 4096}
		local got = 0
		for batch in h:batches() do got = got + #batch end
		assert(h:await())
		return got
	`, "grep.lua")
	if err != nil {
		b.Fatal(err)
	}
	var elapsed time.Duration
	var matches int
	for b.Loop() {
		start := time.Now()
		task := h.b.Spawn(fn, lua.LString(dir))
		h.drive(b, time.Minute)
		elapsed += time.Since(start)
		if task.Err() != nil {
			b.Fatal(task.Err())
		}
		matches = int(task.Results()[0].(lua.LNumber))
	}
	b.ReportMetric(float64(matches*b.N)/elapsed.Seconds(), "matches/s")
}

// BenchmarkYieldResume measures one frame that resumes a task parked in a
// bare coroutine.yield, with a call site that takes two values: the cost
// of a wait's round trip through the frame driver, including recording the
// call site's result count and padding the resume values to it.
func BenchmarkYieldResume(b *testing.B) {
	h := newHarness(b, false)
	fn, err := h.b.LoadString(`while true do local a, b = coroutine.yield() end`, "yield.lua")
	if err != nil {
		b.Fatal(err)
	}
	h.b.Spawn(fn)
	b.ReportAllocs()
	for b.Loop() {
		h.b.Frame()
	}
}
