//go:build linux

// Package proctest helps tests check that the processes a program started
// are really gone: neither running nor left as zombies. A test script
// writes a descendant's pid to a file; Track reads it and remembers the
// process by its pid and start time, so a recycled pid is never mistaken
// for the process, and Gone polls /proc until it has disappeared.
//
// Everything here reads /proc and is safe from any goroutine.
package proctest

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// T is the part of testing.TB the helpers use.
type T interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
	Skipf(format string, args ...any)
	Logf(format string, args ...any)
}

// Info is what /proc/<pid>/stat says about a process.
type Info struct {
	Pid, Ppid, Pgid, Sid int
	// State is the one-letter state: 'Z' for a zombie.
	State byte
	// Start is the start time in clock ticks after boot: with the pid it
	// names one process, whatever later takes its pid.
	Start uint64
	Comm  string
}

// Stat reads /proc/<pid>/stat; false when there is no such process.
func Stat(pid int) (Info, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Info{}, false
	}
	// comm may hold spaces and parens: the fields start after the last ')'.
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open || end+2 > len(b) {
		return Info{}, false
	}
	f := strings.Fields(string(b[end+2:]))
	if len(f) < 20 {
		return Info{}, false
	}
	n := func(i int) int { v, _ := strconv.Atoi(f[i]); return v }
	start, _ := strconv.ParseUint(f[19], 10, 64)
	return Info{Pid: pid, Ppid: n(1), Pgid: n(2), Sid: n(3), State: f[0][0], Start: start,
		Comm: string(b[open+1 : end])}, true
}

// Proc is one process a test follows.
type Proc struct {
	Pid   int
	Start uint64
}

func (p Proc) String() string { return fmt.Sprintf("pid %d", p.Pid) }

// State returns the process's state letter ('R', 'S', 'Z', ...), or 0 once
// it is gone (reaped, so its pid is free or taken by another process).
func (p Proc) State() byte {
	in, ok := Stat(p.Pid)
	if !ok || in.Start != p.Start {
		return 0
	}
	return in.State
}

// Alive reports whether the process runs (exists and is not a zombie).
func (p Proc) Alive() bool {
	s := p.State()
	return s != 0 && s != 'Z'
}

// Track waits (10 s at most) until path holds a pid followed by a newline,
// as `echo $! > path` writes it, and returns that process. The process is
// killed when the test ends, so a failing test leaves nothing running.
func Track(t T, path string) Proc {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if s := string(b); err == nil && strings.HasSuffix(s, "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || pid <= 0 {
				t.Fatalf("%s holds %q, not a pid", path, s)
			}
			return Follow(t, pid)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid was written to %s", path)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// Follow returns the running process pid; it is killed when the test ends.
func Follow(t T, pid int) Proc {
	t.Helper()
	in, ok := Stat(pid)
	if !ok {
		t.Fatalf("pid %d: no such process", pid)
	}
	p := Proc{Pid: pid, Start: in.Start}
	t.Cleanup(func() {
		if p.Alive() {
			_ = syscall.Kill(p.Pid, syscall.SIGKILL)
		}
	})
	return p
}

// Kill sends SIGKILL to the process if it still runs (a test ends an
// escaped process it meant to leave behind), and reaps it if it is this
// process's child (an orphan reparented to a subreaper test binary).
func (p Proc) Kill() {
	if p.Alive() {
		_ = syscall.Kill(p.Pid, syscall.SIGKILL)
	}
	if in, ok := Stat(p.Pid); ok && in.Start == p.Start && in.Ppid == os.Getpid() {
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(p.Pid, &ws, 0, nil)
	}
}

// Gone waits until every process in ps is gone (neither running nor a
// zombie) and fails the test, naming what is left, if one is still there
// after within.
func Gone(t T, within time.Duration, ps ...Proc) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var left []string
		for _, p := range ps {
			if s := p.State(); s != 0 {
				left = append(left, fmt.Sprintf("pid %d (state %c)", p.Pid, s))
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still there %v after the teardown: %s", within, strings.Join(left, ", "))
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// WaitFor polls the process until cond holds for its stat (10 s at most),
// failing the test otherwise: a script's `setsid prog &` has written its
// pid before the child has left the group or exec'd prog.
func (p Proc) WaitFor(t T, what string, cond func(Info) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if in, ok := Stat(p.Pid); ok && in.Start == p.Start && cond(in) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d: timed out waiting for %s", p.Pid, what)
		}
		time.Sleep(time.Millisecond)
	}
}

// Detached is WaitFor's condition for a process that has become a session
// leader (setsid) running comm.
func Detached(comm string) func(Info) bool {
	return func(in Info) bool { return in.Sid == in.Pid && in.Comm == comm }
}

// The ways a program's tree misbehaves at teardown that Hostile scripts.
const (
	// Grandchild: a setsid grandchild holds the program's stdout open.
	Grandchild = "grandchild"
	// IgnoreTerm: the program and its setsid grandchild ignore SIGTERM
	// (a Go program must also call signal.Ignore itself: the Go runtime
	// installs its own SIGTERM handler whatever it inherits).
	IgnoreTerm = "ignoreterm"
	// FullPipe: a setsid grandchild writes to the program's stdout without
	// end, so the pipe is full whenever nobody reads it.
	FullPipe = "fullpipe"
	// NeverClose: a grandchild that escaped the tree (it cleared its
	// environment and double-forked: no cookie, no parent chain to the
	// program) holds stdout open and never closes it. Only the bounds hold
	// for it; it is the exit's EndAll that ends it.
	NeverClose = "neverclose"
)

// Cases lists the misbehaviours, in the order the teardown table shows.
var Cases = []string{Grandchild, IgnoreTerm, FullPipe, NeverClose}

// Hostile returns a shell fragment to run before a program (which the
// script then execs) that makes its tree misbehave as kind says and writes
// the misbehaving descendant's pid to pidFile; Comm is what that process
// runs once it is in place (see Detached).
func Hostile(kind, pidFile string) (script, comm string) {
	sleep, yes := lookPath("sleep"), lookPath("yes")
	switch kind {
	case Grandchild:
		return "setsid " + sleep + " 1000 & echo $! > " + pidFile + "; ", "sleep"
	case IgnoreTerm:
		return "trap '' TERM; setsid " + sleep + " 1000 & echo $! > " + pidFile + "; ", "sleep"
	case FullPipe:
		// A moment's wait lets a protocol server finish its handshake
		// before the flood.
		return "setsid sh -c 'sleep 0.2; exec " + yes + "' & echo $! > " + pidFile + "; ", "yes"
	case NeverClose:
		return "(setsid env -i " + sleep + " 1000 & echo $! > " + pidFile + "); ", "sleep"
	}
	panic("proctest: unknown kind " + kind)
}

func lookPath(prog string) string {
	for _, dir := range strings.Split(os.Getenv("PATH"), ":") {
		p := dir + "/" + prog
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return prog
}

// RunsEnv names the variable that turns the teardown tables on: the number
// of runs per case (scripts/teardown.sh sets it).
const RunsEnv = "PMACS_TEARDOWN_RUNS"

// Runs returns how many runs per case a teardown table makes, and skips
// the test when RunsEnv is not set: the tables time real processes for
// minutes, so they are opt-in.
func Runs(t T) int {
	t.Helper()
	n, err := strconv.Atoi(os.Getenv(RunsEnv))
	if err != nil || n <= 0 {
		t.Skipf("set %s=100 to measure the worst teardown times (scripts/teardown.sh)", RunsEnv)
	}
	return n
}

// Timings collects the durations of one case's runs.
type Timings []time.Duration

// Time runs f and records how long it took.
func (ts *Timings) Time(f func()) {
	start := time.Now()
	f()
	*ts = append(*ts, time.Since(start))
}

// Report logs the case's worst and median time and prints it as a line
// scripts/teardown.sh gathers into its table:
// "TEARDOWN<TAB>what<TAB>case<TAB>runs<TAB>worst ms<TAB>median ms".
func Report(t T, what, kind string, ts Timings) {
	t.Helper()
	if len(ts) == 0 {
		return
	}
	sorted := append(Timings(nil), ts...)
	slices.Sort(sorted)
	ms := func(d time.Duration) string {
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 0, 64)
	}
	worst, median := sorted[len(sorted)-1], sorted[len(sorted)/2]
	t.Logf("%s, %s: %d runs, worst %s ms, median %s ms", what, kind, len(ts), ms(worst), ms(median))
	fmt.Printf("TEARDOWN\t%s\t%s\t%d\t%s\t%s\n", what, kind, len(ts), ms(worst), ms(median))
}
