package editor

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// Benchmark (env-gated: PMACS_EDITOR_BENCH=1): how long from another
// program's write to the reloaded text on screen, over n writes; the
// figure is the median (and the worst) of the time from the write's
// return to the first screen that shows the new first row.
func TestBenchExternalWriteToScreen(t *testing.T) {
	if os.Getenv("PMACS_EDITOR_BENCH") == "" {
		t.Skip("set PMACS_EDITOR_BENCH=1 to run the reload latency benchmark")
	}
	const n = 30
	h, path := startOnFile(t, "a.txt", "version 0\n"+strings.Repeat("text\n", 500))
	var want atomic.Pointer[string]
	seen := make(chan time.Time, 1)
	h.e.call(func() {
		h.e.afterShow = func() {
			w := want.Load()
			if w == nil {
				return
			}
			cells, width, _ := h.scr.GetContents()
			var sb strings.Builder
			for x := range min(width, len(*w)) {
				if r := cells[x].Runes; len(r) > 0 {
					sb.WriteRune(r[0])
				}
			}
			if sb.String() == *w && want.CompareAndSwap(w, nil) {
				seen <- time.Now()
			}
		}
	})
	var lat []time.Duration
	for i := 1; i <= n; i++ {
		text := fmt.Sprintf("version %d", i)
		want.Store(&text)
		require.NoError(t, os.WriteFile(path, []byte(text+"\n"+strings.Repeat("text\n", 500)), 0o644))
		t0 := time.Now()
		select {
		case at := <-seen:
			lat = append(lat, at.Sub(t0))
		case <-time.After(waitTimeout):
			t.Fatalf("write %d never showed", i)
		}
	}
	sorted := slices.Clone(lat)
	slices.Sort(sorted)
	t.Logf("external write to reloaded text on screen, %d writes: median %v, p90 %v, max %v",
		n, sorted[n/2].Round(100*time.Microsecond), sorted[n*9/10].Round(100*time.Microsecond), sorted[n-1].Round(100*time.Microsecond))
}

// Benchmark (env-gated: PMACS_EDITOR_BENCH=1): the main goroutine's frames
// while git checks out another branch of a 10,000-file tree under the
// editor (a directory view of the root shown, four files open), for
// several sizes of the project watch's batches (ctx.watch.batch_size, set
// from a user init file): frames counted from the checkout until every
// changed buffer shows the other branch and the watch has gone quiet.
func TestBenchCheckoutStormFrames(t *testing.T) {
	if os.Getenv("PMACS_EDITOR_BENCH") == "" {
		t.Skip("set PMACS_EDITOR_BENCH=1 to run the checkout storm benchmark")
	}
	var report []string
	for _, size := range []int{1024, 256} {
		cfg := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(cfg, "pmacs"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(cfg, "pmacs", "init.lua"),
			[]byte(fmt.Sprintf("local ctx = ...\nctx.watch.batch_size = %d\n", size)), 0o644))
		t.Setenv("XDG_CONFIG_HOME", cfg)
		r := testenv.NewGitStorm(t, 10_000)
		changed := []string{testenv.StormFile(1), testenv.StormFile(2550), testenv.StormFile(9999)}
		// Locked, so the thread's CPU clock measures the loop alone: the
		// frames' CPU time tells their own work from preemption.
		h := startEditorLocked(t, Options{Path: r.Root}, 80, 24)
		h.waitText("d00")
		for _, p := range changed {
			h.e.call(func() { _, _ = h.e.openFile(filepath.Join(r.Root, p)) })
		}
		h.until("the project watched", func(e *session) bool {
			_, ready := watchesRunning(e)
			return ready == 1
		})
		stop := recordFrames(h)
		start := time.Now()
		r.Git("checkout", "-q", "two")
		checkout := time.Since(start)
		for _, p := range changed {
			abs := filepath.Join(r.Root, p)
			h.untilWithin(60*time.Second, p+" reloaded", func(e *session) bool {
				b := e.findBuffer(abs)
				return b != nil && !b.loading && b.lines.row(0) == "two"
			})
		}
		h.until("the watch quiet", func(e *session) bool { return !e.frameWanted() })
		reloaded := time.Since(start)
		got, gotCPU := stop()
		row := fmt.Sprintf("batch %5d: %4d frames, p50 %6v p99 %6v max %6v (CPU p99 %6v max %6v); checkout %v, buffers reloaded and quiet after %v",
			size, len(got), percentile(slices.Clone(got), 0.5).Round(10*time.Microsecond),
			percentile(slices.Clone(got), 0.99).Round(10*time.Microsecond), slicesMax(got).Round(10*time.Microsecond),
			percentile(slices.Clone(gotCPU), 0.99).Round(10*time.Microsecond), slicesMax(gotCPU).Round(10*time.Microsecond),
			checkout.Round(time.Millisecond), reloaded.Round(time.Millisecond))
		report = append(report, row)
		h.key(tcell.KeyCtrlQ)
	}
	t.Logf("checkout storm, main-goroutine frame times:\n%s", strings.Join(report, "\n"))
}
