package luabind

import (
	goruntime "runtime"
	"slices"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// BenchmarkWatchStormFrames measures the main goroutine's frames while a
// watched repository switches between two branches that differ in 12,500
// files: every frame is a Frame of the binding (Tick, the batch taken and
// converted to Lua tables, the consuming task resumed, which notes each
// change's directory as dired does), paced at the default frame target as
// the editor's loop runs. It reports the frames' p50, p99 and longest
// wall time, their p99 and longest CPU time on the frame's thread, and how
// many frames and changes a checkout took. "budget=2ms" runs the frames
// under the demo editor's frame budget.
func BenchmarkWatchStormFrames(b *testing.B) {
	g := testenv.NewGitStorm(b, 10_000)
	b.Run("unbudgeted", func(b *testing.B) { benchWatchStorm(b, g, 0) })
	b.Run("budget=2ms", func(b *testing.B) { benchWatchStorm(b, g, 2*time.Millisecond) })
}

func benchWatchStorm(b *testing.B, g *testenv.GitStorm, budget time.Duration) {
	h := newHarness(b, false)
	h.b.budget = budget
	L := h.b.L()
	L.SetGlobal("R", lua.LString(g.Root))
	fn, err := h.b.LoadString(`
		local w = pmacs.workers
		H = w.watch{root = R}
		N = 0
		while H:progress() == 0 do w.sleep(1):await() end
		READY = true
		for batch in H:batches() do
			local dirs = {}
			for _, c in ipairs(batch) do
				dirs[c.path:match("^(.*)/[^/]*$")] = true
				N = N + 1
			end
		end`, "storm.lua")
	if err != nil {
		b.Fatal(err)
	}
	h.b.Spawn(fn)
	deadline := time.Now().Add(30 * time.Second)
	for L.GetGlobal("READY") != lua.LTrue {
		if time.Now().After(deadline) {
			b.Fatalf("the watch did not start: %s", h.stderr.String())
		}
		h.b.Frame()
		time.Sleep(time.Millisecond)
	}
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	var walls, cpus []time.Duration
	var frames, changes int
	branch := "two"
	for b.Loop() {
		done := make(chan error, 1)
		go func() { done <- g.Checkout(branch) }()
		n0 := int(L.GetGlobal("N").(lua.LNumber))
		last, lastChange, finished := n0, time.Now(), false
		for !finished || time.Since(lastChange) < 300*time.Millisecond {
			cpu0, start := threadCPU(), time.Now()
			h.b.Frame()
			d := time.Since(start)
			walls, cpus = append(walls, d), append(cpus, threadCPU()-cpu0)
			frames++
			if n := int(L.GetGlobal("N").(lua.LNumber)); n != last {
				last, lastChange = n, time.Now()
			}
			select {
			case err := <-done:
				if err != nil {
					b.Fatal(err)
				}
				finished = true
			default:
			}
			time.Sleep(runtime.DefaultFrameTarget - d)
		}
		changes += last - n0
		branch = map[string]string{"one": "two", "two": "one"}[branch]
	}
	// Back at "one" for the next run.
	if branch == "one" {
		if err := g.Checkout("one"); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cancel, err := h.b.LoadString(`H:cancel(); H:await()`, "cancel.lua")
	if err != nil {
		b.Fatal(err)
	}
	h.b.Spawn(cancel)
	h.drive(b, 20*time.Second)
	slices.Sort(walls)
	slices.Sort(cpus)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(walls[len(walls)/2]), "ms/p50-frame")
	b.ReportMetric(ms(walls[len(walls)*99/100]), "ms/p99-frame")
	b.ReportMetric(ms(walls[len(walls)-1]), "ms/longest-frame")
	b.ReportMetric(ms(cpus[len(cpus)*99/100]), "ms/p99-frame-cpu")
	b.ReportMetric(ms(cpus[len(cpus)-1]), "ms/longest-frame-cpu")
	b.ReportMetric(float64(frames)/float64(b.N), "frames/checkout")
	b.ReportMetric(float64(changes)/float64(b.N), "changes/checkout")
}
