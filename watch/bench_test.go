package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// processCPU is the CPU time the whole process has used, user and system.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkIdleWatch100kFiles measures what a watch of a 100,000-file tree
// (1,000 directories of 100 files) costs once its first scan is over and
// nothing changes: the process's CPU time over 5 s idle, as a percentage of
// one core (goal: under 1 %). It also reports the first scan's time and the
// kernel watches it took.
func BenchmarkIdleWatch100kFiles(b *testing.B) {
	const dirs, perDir = 1000, 100
	root := b.TempDir()
	for d := range dirs {
		dir := filepath.Join(root, fmt.Sprintf("d%02d", d/100), fmt.Sprintf("e%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range perDir {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.txt", f)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	const idle = 5 * time.Second
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		ready := make(chan Stats, 1)
		done := make(chan error, 1)
		start := time.Now()
		go func() {
			done <- Watch(ctx, root, Options{Ready: func(s Stats) { ready <- s }}, func([]Event) error { return nil })
		}()
		st := <-ready
		scan := time.Since(start)
		cpu0, wall0 := processCPU(b), time.Now()
		time.Sleep(idle) // the measurement: the process idles with the watch in place
		cpu, wall := processCPU(b)-cpu0, time.Since(wall0)
		cancel()
		<-done
		b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "%cpu-idle")
		b.ReportMetric(float64(scan.Milliseconds()), "ms/first-scan")
		b.ReportMetric(float64(st.Watched), "watches")
	}
}
