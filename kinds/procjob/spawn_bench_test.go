//go:build linux

package procjob

import (
	"os/exec"
	"testing"
	"time"

	"github.com/pmacs-go/pmacs-go/proc"
)

// BenchmarkSpawnTrueSettle measures dispatch-to-settle of `true` as a
// spawn stream (its closing batch taken on the main goroutine, the loop
// waking on Ready) beside a bare exec.Command("true").Run() in the same run
// (goal: at most 1.2x), and the same for system.
func BenchmarkSpawnTrueSettle(b *testing.B) {
	b.Run("exec", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("spawn", func(b *testing.B) {
		rt := newRT(b, 2)
		spec := proc.Spec{Argv: []string{"true"}}
		for b.Loop() {
			id := rt.DispatchSpawn(spec, DispatchOptions{})
			for closed := false; !closed; {
				<-rt.Ready()
				rt.Tick()
				for _, sb := range rt.TakeStreamBatches() {
					if sb.ID == id && sb.Closed {
						if sb.Outcome.State != Complete {
							b.Fatal(sb.Outcome)
						}
						closed = true
					}
				}
			}
		}
	})
	// paired alternates exec and spawn in one loop, so a machine whose
	// load drifts weighs on both alike, and reports the ratio.
	b.Run("paired", func(b *testing.B) {
		rt := newRT(b, 2)
		spec := proc.Spec{Argv: []string{"true"}}
		var te, ts time.Duration
		for b.Loop() {
			t0 := time.Now()
			if err := exec.Command("true").Run(); err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			id := rt.DispatchSpawn(spec, DispatchOptions{})
			for closed := false; !closed; {
				<-rt.Ready()
				rt.Tick()
				for _, sb := range rt.TakeStreamBatches() {
					closed = closed || (sb.ID == id && sb.Closed)
				}
			}
			te, ts = te+t1.Sub(t0), ts+time.Since(t1)
		}
		b.ReportMetric(float64(te.Microseconds())/float64(b.N), "us/exec")
		b.ReportMetric(float64(ts.Microseconds())/float64(b.N), "us/spawn")
		b.ReportMetric(float64(ts)/float64(te), "spawn/exec")
	})
	b.Run("system", func(b *testing.B) {
		rt := newRT(b, 2)
		spec := proc.Spec{Argv: []string{"true"}}
		for b.Loop() {
			id := rt.DispatchSystem(spec, 0, DispatchOptions{})
			for !rt.IsComplete(id) {
				<-rt.Ready()
				rt.Tick()
			}
			if o, _ := rt.TakeResult(id); o.State != Complete {
				b.Fatal(o)
			}
		}
	})
}
