package editor

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkIdleEditorFollowingTheDisk measures what an idle editor costs
// while it follows the disk (the project watch, and a directory view shown
// on it): the process's CPU time over 3 s without input, as a percentage
// of one core. A task parked on the watch's stream used to make the loop
// frame at the frame target (about 1.8 % of a core); it now sleeps until a
// change arrives.
func BenchmarkIdleEditorFollowingTheDisk(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	h := startEditor(b, Options{Path: dir})
	h.waitText("a.txt")
	h.until("the watch has scanned the tree", func(e *session) bool {
		_, ready := watchesRunning(e)
		return ready == 1
	})
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
}
