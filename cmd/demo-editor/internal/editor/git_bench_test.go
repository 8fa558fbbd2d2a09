package editor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// Benchmark (env-gated: PMACS_EDITOR_BENCH=1): a keystroke in a
// 20,000-line file of a git work tree, to the git gutter marking its row
// (the 100 ms quiet time the gutter waits for included), through the real
// loop on a thread of its own; and the loop thread's CPU time over that
// span, beside the same keystroke in an editor whose workspace is not
// trusted (no git): the difference is what the gutter costs the main
// goroutine.
func TestGitGutterLatency(t *testing.T) {
	if os.Getenv("PMACS_EDITOR_BENCH") == "" {
		t.Skip("set PMACS_EDITOR_BENCH=1 to run the git gutter benchmark")
	}
	const nrows, keys = 20000, 100
	var sb strings.Builder
	for i := range nrows {
		if i%9 == 4 {
			sb.WriteString("\n")
			continue
		}
		fmt.Fprintf(&sb, "\tline %d of the notes, long enough to be a line of code\n", i)
	}
	repo := testenv.NewGitRepo(t)
	freshTrust(t)
	gitEnvForEditor(t, t.TempDir())
	path := filepath.Join(repo.Root, "notes.txt")
	require.NoError(t, os.WriteFile(path, []byte(sb.String()), 0o644))
	repo.Git("add", "notes.txt")
	repo.Git("commit", "-qm", "notes")
	defer reserveLoopProc()()

	run := func(trusted bool) (lat, cpu []time.Duration) {
		h := startEditorLocked(t, Options{Path: path}, 120, 40)
		h.until("the file", func(e *session) bool { return e.cur.path == path && !e.cur.loading })
		if trusted {
			h.runTask(`assert(pmacs.trust.allow())`, nil)
			h.until("the gutter", func(e *session) bool { _, ok := e.cur.signLayers["git"]; return ok })
		}
		for i := range keys {
			row := 100 + i*(nrows-200)/keys
			h.e.call(func() { h.e.cur.cursor = pos{Row: row}; h.e.cur.markDirty(0) })
			var c0 time.Duration
			t0 := time.Now()
			done := make(chan [2]time.Duration, 1)
			shown := func(e *session) bool {
				if !trusted {
					return strings.HasPrefix(e.cur.lines.row(row), "x")
				}
				s, ok := e.cur.rangeSign(row)
				return ok && s.text == "~"
			}
			h.e.call(func() {
				c0 = threadCPU()
				h.e.afterShow = func() {
					if shown(h.e) {
						h.e.afterShow = nil
						done <- [2]time.Duration{time.Since(t0), threadCPU() - c0}
					}
				}
			})
			t0 = time.Now()
			h.scr.InjectKey(tcell.KeyRune, 'x', tcell.ModNone)
			select {
			case d := <-done:
				lat, cpu = append(lat, d[0]), append(cpu, d[1])
			case <-time.After(waitTimeout):
				t.Fatalf("row %d never marked", row)
			}
			time.Sleep(20 * time.Millisecond)
		}
		return lat, cpu
	}
	gl, gc := run(true)
	bl, bc := run(false)
	t.Logf("keystroke to git gutter in a %d-row file (%d keys, 100 ms quiet time included): p50 %s, p99 %s, max %s; "+
		"loop thread CPU over that span p50 %s, p99 %s; without git (keystroke to screen) latency p50 %s, CPU p50 %s, p99 %s; load average %s",
		nrows, keys, ms(percentile(gl, .5)), ms(percentile(gl, .99)), ms(slicesMax(gl)), ms(percentile(gc, .5)), ms(percentile(gc, .99)),
		ms(percentile(bl, .5)), ms(percentile(bc, .5)), ms(percentile(bc, .99)), loadAverage())
}
