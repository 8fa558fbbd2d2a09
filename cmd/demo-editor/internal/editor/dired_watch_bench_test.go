package editor

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkIdleDiredFollowing measures what an idle editor showing a
// directory view costs, with and without following the disk (f): the
// process's CPU time over 3 s without input, as a percentage of one core.
// Following keeps a task parked on the watch's stream, and the loop frames
// at the frame target while a task is alive; this is what made following
// opt-in.
func BenchmarkIdleDiredFollowing(b *testing.B) {
	for _, follow := range []bool{false, true} {
		name := "not-following"
		if follow {
			name = "following"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "a.txt"), nil, 0o644); err != nil {
				b.Fatal(err)
			}
			h := startEditor(b, Options{Path: dir})
			h.waitText("a.txt")
			if follow {
				h.typeText("f")
				h.until("the watch has scanned the tree", func(e *session) bool {
					_, ready := watchesRunning(e)
					return ready == 1
				})
			}
			cpu := func() time.Duration {
				var ru syscall.Rusage
				if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
					b.Fatal(err)
				}
				return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			}
			for b.Loop() {
				c0, w0 := cpu(), time.Now()
				time.Sleep(3 * time.Second) // the measurement: the editor idles
				b.ReportMetric(100*(cpu()-c0).Seconds()/time.Since(w0).Seconds(), "%cpu-idle")
			}
		})
	}
}
