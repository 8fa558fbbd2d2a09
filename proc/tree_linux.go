package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pmacs-go/pmacs-go/internal/eintr"
)

// TreeEnv names the environment variable every program proc starts
// carries: "PMACS_PROC_TREE=<pid of this process>.<sequence>", one value per
// program. Its descendants inherit it whatever they do to their process
// group or session, so proc finds them under /proc when the program ends.
const TreeEnv = "PMACS_PROC_TREE"

// endTreeBound bounds one ending of a tree: the SIGKILLs, the rescans for
// what forked meanwhile and the reaping of what became this process's
// children. A process killed with SIGKILL is gone within microseconds
// unless it is stuck in the kernel (uninterruptible I/O), which this bound
// does not wait out.
const endTreeBound = 500 * time.Millisecond

var (
	selfPid    = os.Getpid()
	treeSeq    atomic.Uint64
	treePrefix = TreeEnv + "=" + strconv.Itoa(selfPid) + "."
)

// newCookie returns the TreeEnv entry of a new program.
func newCookie() string { return treePrefix + strconv.FormatUint(treeSeq.Add(1), 10) }

// withCookie returns env (nil: this process's environment) without any
// TreeEnv entry it inherited, plus cookie.
func withCookie(env []string, cookie string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, TreeEnv+"=") {
			out = append(out, kv)
		}
	}
	return append(out, cookie)
}

// procStat is what proc reads of a process in /proc/<pid>/stat.
type procStat struct {
	pid, ppid int
	pgrp      int // process group id
	state     byte
	// start is the start time in clock ticks after boot: with the pid it
	// names one process, whatever later takes its pid.
	start uint64
}

// scanner reads /proc with one reusable buffer. Not goroutine-safe: each
// monitor (and EndAll) has its own.
type scanner struct {
	buf   []byte
	names []string
}

// read reads a whole /proc file into s.buf (environ may be large).
func (s *scanner) read(path string) ([]byte, bool) {
	fd, err := eintrOpen(path)
	if err != nil {
		return nil, false
	}
	defer unix.Close(fd)
	if s.buf == nil {
		s.buf = make([]byte, 4096)
	}
	n := 0
	for {
		if n == len(s.buf) {
			s.buf = append(s.buf, make([]byte, len(s.buf))...)
		}
		m, err := unix.Read(fd, s.buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, false
		}
		if m == 0 {
			return s.buf[:n], true
		}
		n += m
	}
}

func eintrOpen(path string) (int, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// stat reads one process's stat; false when it is gone.
func (s *scanner) stat(pid int) (procStat, bool) {
	b, ok := s.read("/proc/" + strconv.Itoa(pid) + "/stat")
	if !ok {
		return procStat{}, false
	}
	return parseStat(pid, b)
}

// parseStat reads state, ppid and start time from a stat line. The command
// name may hold spaces and parentheses: the fields start after the last ')'.
func parseStat(pid int, b []byte) (procStat, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return procStat{}, false
	}
	b = b[i+2:]
	st := procStat{pid: pid}
	// Fields after comm: 1 state, 2 ppid, 3 pgrp, ... 20 starttime
	// (stat(5) numbers them from pid as 1: these are 3, 4, 5 and 22).
	for f := 1; f <= 20 && len(b) > 0; f++ {
		j := bytes.IndexByte(b, ' ')
		if j < 0 {
			j = len(b)
		}
		field := b[:j]
		switch f {
		case 1:
			st.state = field[0]
		case 2:
			st.ppid, _ = strconv.Atoi(string(field))
		case 3:
			st.pgrp, _ = strconv.Atoi(string(field))
		case 20:
			st.start, _ = strconv.ParseUint(string(bytes.TrimSpace(field)), 10, 64)
			return st, st.state != 0
		}
		if j == len(b) {
			break
		}
		b = b[j+1:]
	}
	return procStat{}, false
}

// list returns every process in /proc.
func (s *scanner) list() []procStat {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	s.names, err = d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil
	}
	out := make([]procStat, 0, len(s.names))
	for _, name := range s.names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if st, ok := s.stat(pid); ok {
			out = append(out, st)
		}
	}
	return out
}

// environHas reports whether pid's environment has an entry match accepts
// and the process belongs to this process's user. A zombie's environment
// reads empty, and another user's cannot be read (unless this process is
// root, hence the uid check).
func (s *scanner) environHas(pid int, match func(entry []byte) bool) bool {
	b, ok := s.read("/proc/" + strconv.Itoa(pid) + "/environ")
	if !ok {
		return false
	}
	found := false
	for len(b) > 0 && !found {
		j := bytes.IndexByte(b, 0)
		if j < 0 {
			j = len(b)
		}
		found = match(b[:j])
		if j == len(b) {
			break
		}
		b = b[j+1:]
	}
	if !found {
		return false
	}
	var st unix.Stat_t
	return unix.Stat("/proc/"+strconv.Itoa(pid), &st) == nil && st.Uid == uint32(os.Geteuid())
}

// tree finds and ends the processes that belong to a root: its descendants
// through the parent chain, the processes whose environment match accepts
// and their descendants. It remembers every member it has seen, so one
// found while its parent chain was intact is still found once the chain is
// broken (its parent died and it was reparented). Owned by one goroutine.
type tree struct {
	root  int
	since uint64 // the root's start time: no member started before it
	match func(entry []byte) bool
	known map[int]uint64 // pid -> start time of the members seen
	sc    scanner
}

func newTree(root int, match func([]byte) bool) *tree {
	t := &tree{root: root, match: match, known: make(map[int]uint64)}
	if st, ok := t.sc.stat(root); ok {
		t.since = st.start
	}
	return t
}

// scan returns the members present now, zombies included, and whether the
// root itself still runs.
func (t *tree) scan() (members []procStat, rootAlive bool) {
	all := t.sc.list()
	kids := make(map[int][]int, len(all))
	byPid := make(map[int]int, len(all))
	in := make(map[int]bool)
	var queue []int
	add := func(pid int) {
		if !in[pid] && pid != t.root && pid != selfPid {
			in[pid] = true
			queue = append(queue, pid)
		}
	}
	for i, p := range all {
		byPid[p.pid] = i
		kids[p.ppid] = append(kids[p.ppid], p.pid)
		if p.pid == t.root {
			rootAlive = p.state != 'Z'
		}
	}
	for _, p := range all {
		switch {
		case p.pid == t.root || p.pid == selfPid:
		case t.known[p.pid] == p.start && p.start != 0:
			add(p.pid)
		case p.start >= t.since && p.state != 'Z' && t.match != nil && t.sc.environHas(p.pid, t.match):
			add(p.pid)
		}
	}
	for _, k := range kids[t.root] {
		add(k)
	}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, k := range kids[pid] {
			add(k)
		}
	}
	for pid := range in {
		p := all[byPid[pid]]
		t.known[pid] = p.start
		members = append(members, p)
	}
	return members, rootAlive
}

// signal sends sig to every member running now (a graceful stop's SIGTERM).
// The scan comes first, while the root still runs and the parent chain
// still leads to it; then calls then (which signals the root's group, so the
// root and its group get the signal at once); then signals the members
// outside that group. Signalling the group's members one by one before the
// root would let a shell see its children die and exit with a status
// instead of the signal.
func (t *tree) signal(sig unix.Signal, then func()) {
	members, _ := t.scan()
	if then != nil {
		then()
	}
	for _, m := range members {
		if m.state != 'Z' && (then == nil || m.pgrp != t.root) {
			t.sc.signal(m, sig)
		}
	}
}

// end sends SIGKILL to every member, calls then after the first scan (to
// kill the group), and rescans until no member runs and none waits to be
// reaped by this process, reaping those that became its children (orphans
// reparented to a subreaper). skip names the zombies it must leave to
// someone else (a program's leader, which its monitor reaps). It gives up
// at deadline and reports whether the tree was ended.
func (t *tree) end(deadline time.Time, then func(), skip func(pid int) bool) bool {
	delay := 500 * time.Microsecond
	for {
		members, rootAlive := t.scan()
		alive := make(map[int]bool, len(members))
		for _, m := range members {
			alive[m.pid] = m.state != 'Z'
		}
		pending := 0
		for _, m := range members {
			switch {
			case m.state != 'Z':
				t.sc.signal(m, unix.SIGKILL)
				pending++
			case m.ppid == selfPid:
				if skip == nil || !skip(m.pid) {
					t.sc.reap(m)
				}
			case alive[m.ppid], m.ppid == t.root && rootAlive:
				// Its parent is being killed: it will be reparented, to
				// this process if it is a subreaper.
				pending++
			}
		}
		if then != nil {
			then()
			then = nil
			continue
		}
		if pending == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(delay)
		delay = min(2*delay, 10*time.Millisecond)
	}
}

// signal sends sig to the process m names, and to no other: through a
// pidfd opened before its start time is checked again, so a pid that was
// recycled since the scan is never signalled. Kernels without pidfds
// (before 5.3) get the same check before a plain kill.
func (s *scanner) signal(m procStat, sig unix.Signal) {
	fd, err := unix.PidfdOpen(m.pid, 0)
	if err != nil {
		if errors.Is(err, unix.ENOSYS) {
			if st, ok := s.stat(m.pid); ok && st.start == m.start {
				_ = unix.Kill(m.pid, sig)
			}
		}
		return
	}
	defer unix.Close(fd)
	if st, ok := s.stat(m.pid); ok && st.start == m.start {
		_ = unix.PidfdSendSignal(fd, sig, nil, 0)
	}
}

// reap reaps m if it is still this process's zombie child. A zombie's pid
// cannot be taken by another process before it is reaped, so the check
// holds until the wait.
func (s *scanner) reap(m procStat) {
	st, ok := s.stat(m.pid)
	if !ok || st.start != m.start || st.ppid != selfPid || st.state != 'Z' {
		return
	}
	var ws unix.WaitStatus
	_ = eintr.Retry(func() error {
		_, err := unix.Wait4(m.pid, &ws, unix.WNOHANG, nil)
		return err
	})
}

// live is the set of programs whose monitor runs: EndAll stops them and
// waits for them, and a tree's end leaves their leaders to them.
var live = struct {
	sync.Mutex
	procs   map[*Process]struct{}
	leaders map[int]bool
	// starting counts the Starts between fork and register.
	starting int
}{procs: map[*Process]struct{}{}, leaders: map[int]bool{}}

func starting(n int) {
	live.Lock()
	live.starting += n
	live.Unlock()
}

func register(p *Process) {
	live.Lock()
	live.procs[p] = struct{}{}
	live.leaders[p.pid] = true
	live.Unlock()
}

func unregister(p *Process) {
	live.Lock()
	delete(live.procs, p)
	delete(live.leaders, p.pid)
	live.Unlock()
}

// isLeader reports whether pid is the leader of a program whose monitor
// runs: only that monitor may reap it.
func isLeader(pid int) bool {
	live.Lock()
	defer live.Unlock()
	return live.leaders[pid]
}

func liveProcesses() []*Process {
	live.Lock()
	defer live.Unlock()
	out := make([]*Process, 0, len(live.procs))
	for p := range live.procs {
		out = append(out, p)
	}
	return out
}

// EndAll ends everything this process started, for a program about to
// exit: it kills every program proc still runs (as Kill does), every
// process carrying a TreeEnv cookie of this process, and every descendant
// of this process however it was started, then reaps its children until
// none is left. A program's monitor is given the chance to reap its own
// leader, so the programs' Wait still report how they ended. It returns
// once nothing is left, or at ctx's end with an error saying what is left;
// call it last, after closing what started the programs, with a deadline.
//
// Run under a subreaper (BecomeSubreaper), EndAll also ends the orphans
// that escaped every tree (a process that cleared its environment and
// double-forked): they were reparented to this process.
func EndAll(ctx context.Context) error {
	for _, p := range liveProcesses() {
		p.Kill()
	}
	t := &tree{root: selfPid, known: make(map[int]uint64),
		match: func(e []byte) bool { return bytes.HasPrefix(e, []byte(treePrefix)) }}
	if st, ok := t.sc.stat(selfPid); ok {
		t.since = st.start
	}
	delay := time.Millisecond
	for {
		step, cancel := context.WithTimeout(ctx, endTreeBound)
		dl, _ := step.Deadline()
		cancel()
		ended := t.end(dl, nil, isLeader)
		running := len(liveProcesses())
		if running == 0 {
			// Every monitor has reaped its leader: what is left is
			// this process's to reap.
			left := reapAll()
			if ended && !left {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			members, _ := t.scan()
			return fmt.Errorf("proc: end all: %d program(s) still running, %d process(es) left: %w",
				running, len(members), context.Cause(ctx))
		case <-time.After(delay):
		}
		delay = min(2*delay, 20*time.Millisecond)
	}
}

// reapAll reaps this process's exited children and reports whether some
// are still running.
func reapAll() bool {
	var ws unix.WaitStatus
	for {
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		switch {
		case err == unix.EINTR:
		case err != nil: // ECHILD: no child at all
			return false
		case pid == 0:
			return true
		}
	}
}

// ReapOrphans reaps, until ctx ends, the children of this process that are
// not programs proc runs: the orphans a subreaper (BecomeSubreaper) is
// given, such as the detached helper a language server starts and that
// exits on its own while the server runs (gopls's telemetry), which would
// otherwise stay zombies until EndAll. It returns at once; the reaping runs
// on a goroutine of its own, woken by SIGCHLD (and every few seconds, in
// case a signal was coalesced). It is for a program that starts every
// child through proc, as the demo editor does: a child started otherwise
// (os/exec) would be reaped from under its Wait.
func ReapOrphans(ctx context.Context) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, unix.SIGCHLD)
	go func() {
		defer signal.Stop(sigs)
		tick := time.NewTicker(5 * time.Second)
		defer tick.Stop()
		var sc scanner
		for {
			select {
			case <-ctx.Done():
				return
			case <-sigs:
			case <-tick.C:
			}
			reapOrphans(&sc)
		}
	}()
}

// reapOrphans reaps every zombie child that is not the leader of a program
// whose monitor runs (that one is cmd.Wait's). It does nothing while a
// program is starting: its leader may have exited before it was
// registered, and the next round comes soon enough.
func reapOrphans(sc *scanner) {
	live.Lock()
	defer live.Unlock()
	if live.starting > 0 {
		return
	}
	for _, p := range sc.list() {
		if p.ppid == selfPid && p.state == 'Z' && !live.leaders[p.pid] {
			var ws unix.WaitStatus
			_ = eintr.Retry(func() error {
				_, err := unix.Wait4(p.pid, &ws, unix.WNOHANG, nil)
				return err
			})
		}
	}
}
