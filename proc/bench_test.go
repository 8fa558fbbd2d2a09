//go:build linux

package proc

import (
	"bytes"
	"context"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

const benchOutput = 150 << 20

// BenchmarkReadSplit150MiB measures proc's worker-side path: read 150 MiB
// of 80-byte lines from a real program's pipe and split them (goal: at
// least 100 MiB/s). The producer is `yes | head`, whose own cost is in the
// figure too; BenchmarkSplitOnly is the split alone.
func BenchmarkReadSplit150MiB(b *testing.B) {
	line := string(bytes.Repeat([]byte("0123456789"), 8)[:79])
	argv := sh("yes '" + line + "' | head -c " + strconv.Itoa(benchOutput))
	b.SetBytes(benchOutput)
	for b.Loop() {
		var n int
		_, err := Run(context.Background(), Spec{Argv: argv, Lines: func(ls []Line) error {
			n += len(ls)
			return nil
		}})
		if err != nil {
			b.Fatal(err)
		}
		if n != benchOutput/80 {
			b.Fatalf("%d lines, want %d", n, benchOutput/80)
		}
	}
}

// BenchmarkSplitOnly splits 150 MiB of 80-byte lines from memory: the
// splitter's own ceiling, without pipes or a producer.
func BenchmarkSplitOnly(b *testing.B) {
	data := bytes.Repeat(append(bytes.Repeat([]byte("0123456789"), 8)[:79], '\n'), benchOutput/80)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var n int
		sp := newSplitter(Stdout, DefaultMaxLine, func(ls []Line) error { n += len(ls); return nil })
		if err := sp.run(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
		if n != benchOutput/80 {
			b.Fatalf("%d lines", n)
		}
	}
}

// BenchmarkSpawnTrue compares spawn-to-exit of `true` through proc (own
// group, both pipes read and split, group kill and reap) with a bare
// exec.Command("true").Run() in the same run (goal: at most 1.2x).
func BenchmarkSpawnTrue(b *testing.B) {
	b.Run("exec", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("proc", func(b *testing.B) {
		spec := Spec{Argv: []string{"true"}, Lines: func([]Line) error { return nil }}
		for b.Loop() {
			if _, err := Run(context.Background(), spec); err != nil {
				b.Fatal(err)
			}
		}
	})
	// paired alternates the two in one loop, so a machine whose load drifts
	// weighs on both alike, and reports proc's time over exec's.
	b.Run("paired", func(b *testing.B) {
		spec := Spec{Argv: []string{"true"}, Lines: func([]Line) error { return nil }}
		var te, tp time.Duration
		for b.Loop() {
			t0 := time.Now()
			if err := exec.Command("true").Run(); err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			if _, err := Run(context.Background(), spec); err != nil {
				b.Fatal(err)
			}
			te, tp = te+t1.Sub(t0), tp+time.Since(t1)
		}
		b.ReportMetric(float64(te.Microseconds())/float64(b.N), "us/exec")
		b.ReportMetric(float64(tp.Microseconds())/float64(b.N), "us/proc")
		b.ReportMetric(float64(tp)/float64(te), "proc/exec")
	})
	b.Run("proc-no-output", func(b *testing.B) {
		spec := Spec{Argv: []string{"true"}}
		for b.Loop() {
			if _, err := Run(context.Background(), spec); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkTreeScan is what finding a program's tree costs on the monitor
// goroutine each time a program ends or is stopped: a /proc listing, every
// process's stat, and the environment of the processes of this user that
// started after the program. It reports the processes listed.
func BenchmarkTreeScan(b *testing.B) {
	p, err := Start(context.Background(), Spec{Argv: []string{"sleep", "60"}})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { p.Kill(); _, _ = p.Wait() }()
	t := newTree(p.Pid(), func(e []byte) bool { return bytes.Equal(e, []byte(p.cookie)) })
	for b.Loop() {
		t.scan()
	}
	b.ReportMetric(float64(len(t.sc.list())), "procs")
}

// BenchmarkRunTrue is a whole short program, start to Wait, the tree's end
// included: the cost a build of many small commands pays per command.
func BenchmarkRunTrue(b *testing.B) {
	for b.Loop() {
		if _, err := Run(context.Background(), Spec{Argv: []string{"true"}, Lines: func([]Line) error { return nil }}); err != nil {
			b.Fatal(err)
		}
	}
}
