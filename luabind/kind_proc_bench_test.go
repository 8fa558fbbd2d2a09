//go:build linux

package luabind

import (
	"bufio"
	"context"
	"os"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
	"golang.org/x/sys/unix"

	"github.com/pmacs-go/pmacs-go/proc"
)

// rss reads this process's resident set size in bytes (0 if unknown).
func rss() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// threadCPU returns the CPU time of the calling thread: the main
// goroutine's own work, which a loaded machine's scheduling does not
// inflate the way it inflates wall time.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

const yesFor = 2 * time.Second

// BenchmarkSpawnYesIntoLua runs `yes` for 2 s into a Lua task that drains
// it, with the editor loop's shape (wait for replies or the 16 ms frame
// deadline, then one Frame). It reports lines per second delivered to Lua,
// the main goroutine's work per frame (p99, goal at most 4 ms, and max; as
// thread CPU time, and as wall time, which on a loaded machine includes
// time the thread was not running) and
// how RSS moved between the first and the last second. "proc-only" is the
// baseline in the same run: `yes` read and split by proc into a counting
// callback, no runtime, bus or Lua.
func BenchmarkSpawnYesIntoLua(b *testing.B) {
	b.Run("lua", func(b *testing.B) {
		for b.Loop() {
			benchYesLua(b)
		}
	})
	b.Run("proc-only", func(b *testing.B) {
		for b.Loop() {
			ctx, cancel := context.WithTimeout(context.Background(), yesFor)
			var n int
			start := time.Now()
			_, err := proc.Run(ctx, proc.Spec{Argv: []string{"yes"}, Lines: func(ls []proc.Line) error {
				n += len(ls)
				return nil
			}})
			cancel()
			if err == nil {
				b.Fatal("yes ended by itself")
			}
			b.ReportMetric(float64(n)/time.Since(start).Seconds(), "lines/s")
		}
	})
}

func benchYesLua(b *testing.B) {
	h := newHarness(b, false)
	fn, err := h.b.LoadString(`
		local h = pmacs.workers.spawn{cmd = {"yes"}}
		local n = 0
		for batch in h:batches() do
			n = n + #batch
			if STOP then break end
		end
		h:cancel()
		local _, err = h:await()
		assert(err == "cancelled", err)
		return n
	`, "yes.lua")
	if err != nil {
		b.Fatal(err)
	}
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	task := h.b.Spawn(fn)
	var frames, cpus []time.Duration
	start := time.Now()
	var rssEarly uint64
	timer := time.NewTimer(h.rt.FrameTarget())
	for h.b.Busy() {
		if time.Since(start) > yesFor {
			h.b.L().SetGlobal("STOP", lua.LTrue)
		}
		if rssEarly == 0 && time.Since(start) > yesFor/2 {
			rssEarly = rss()
		}
		timer.Reset(h.rt.FrameTarget())
		select {
		case <-h.rt.Ready():
		case <-timer.C:
		}
		t0, c0 := time.Now(), threadCPU()
		h.b.Frame()
		cpus = append(cpus, threadCPU()-c0)
		frames = append(frames, time.Since(t0))
	}
	elapsed := time.Since(start)
	rssLate := rss()
	if task.Err() != nil {
		b.Fatal(task.Err())
	}
	lines := float64(task.Results()[0].(lua.LNumber))
	slices.Sort(frames)
	slices.Sort(cpus)
	msOf := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(lines/elapsed.Seconds(), "lines/s")
	b.ReportMetric(msOf(cpus[len(cpus)*99/100]), "ms/frame-cpu-p99")
	b.ReportMetric(msOf(cpus[len(cpus)-1]), "ms/frame-cpu-max")
	b.ReportMetric(msOf(frames[len(frames)*99/100]), "ms/frame-wall-p99")
	b.ReportMetric(msOf(frames[len(frames)-1]), "ms/frame-wall-max")
	b.ReportMetric(float64(len(frames))/elapsed.Seconds(), "frames/s")
	b.ReportMetric((float64(rssLate)-float64(rssEarly))/(1<<20), "MiB-rss-growth-2nd-second")
}
