package luabind

import (
	"runtime"
	"slices"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// BenchmarkSpawnChildEmpty measures pmacs.async.run of an empty function
// from inside a task: each is a child, joined by its parent's tree.
func BenchmarkSpawnChildEmpty(b *testing.B) {
	h := newHarness(b, false)
	fn, err := h.b.LoadString(`
		local n = ...
		local run, empty = pmacs.async.run, function() end
		for i = 1, n do run(empty) end
	`, "spawn.lua")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	t := h.b.Spawn(fn, lua.LNumber(b.N))
	b.StopTimer()
	if t.Err() != nil {
		b.Fatal(t.Err())
	}
}

// BenchmarkAwaitSettled measures h:await() of a job handle that has
// already settled, in a task: the cost of a wait that need not park.
func BenchmarkAwaitSettled(b *testing.B) {
	h := newHarness(b, false)
	prep := h.run(b, `settled = pmacs.workers.sleep(0); settled:await()`)
	if prep.Err() != nil {
		b.Fatal(prep.Err())
	}
	fn, err := h.b.LoadString(`
		local n, h = ..., settled
		for i = 1, n do h:await() end
	`, "await.lua")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	t := h.b.Spawn(fn, lua.LNumber(b.N))
	b.StopTimer()
	if t.Err() != nil {
		b.Fatal(t.Err())
	}
}

// BenchmarkCancelTree10k measures cancelling a tree of 10,000 tasks, each
// waiting on a job it owns, until every job has settled and every task has
// ended: sleeps (settled by the binding's timers) and worker jobs (sums
// of 2^53 terms that check for cancellation every 1024: a few run on the
// workers, the rest wait in their lane).
func BenchmarkCancelTree10k(b *testing.B) {
	for _, tc := range []struct{ name, job string }{
		{"sleep", `pmacs.workers.sleep(3600 * 1000):await()`},
		{"worker", `pmacs.workers.sum(2^53):await()`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			const tasks = 10_000
			h := newHarness(b, false)
			fn, err := h.b.LoadString(`
				local a = pmacs.async
				for i = 1, `+itoa(tasks)+` do a.run(function() `+tc.job+` end) end
				a.sleep(3600 * 1000)
			`, "tree.lua")
			if err != nil {
				b.Fatal(err)
			}
			var total time.Duration
			for b.Loop() {
				root := h.b.Spawn(fn)
				// Let the jobs start: the streams' workers have sent a batch.
				for range 5 {
					h.b.Frame()
					time.Sleep(time.Millisecond)
				}
				start := time.Now()
				h.b.CancelTasks([]*Task{root}, "bench")
				for h.b.Stats().Jobs > 0 || h.b.Stats().Tasks > 0 {
					select {
					case <-h.rt.Ready():
					case <-time.After(time.Millisecond):
					}
					h.b.Frame()
				}
				total += time.Since(start)
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/cancel-to-settled")
		})
	}
}

// BenchmarkSleeps100k measures 100,000 tasks parked in pmacs.async.sleep:
// the memory each costs and the main goroutine's time per frame while none
// is due (goal: p99 at most 1 ms), then the frames that wake them all.
func BenchmarkSleeps100k(b *testing.B) {
	const tasks = 100_000
	h := newHarness(b, false)
	fn, err := h.b.LoadString(`
		local a = pmacs.async
		for i = 1, `+itoa(tasks)+` do a.run(function() a.sleep(3000) end) end
	`, "sleeps.lua")
	if err != nil {
		b.Fatal(err)
	}
	var frames []time.Duration
	var heap uint64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		root := h.b.Spawn(fn)
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap += after.HeapAlloc - before.HeapAlloc
		for !root.Done() {
			start := time.Now()
			fs := h.b.Frame()
			if fs.Resumed == 0 {
				frames = append(frames, time.Since(start))
			}
			time.Sleep(time.Millisecond)
		}
	}
	slices.Sort(frames)
	if len(frames) > 0 {
		b.ReportMetric(float64(frames[len(frames)*99/100].Microseconds())/1000, "ms/p99-idle-frame")
	}
	b.ReportMetric(float64(heap)/float64(b.N*tasks), "B/sleeping-task")
	b.ReportMetric(float64(h.rt.Stats().Pending), "pending-jobs")
}
