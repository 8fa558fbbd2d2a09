package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pmacs-go/pmacs-go/internal/eintr"
)

// Process is a started program. Its tree (its group and every descendant
// proc can find, see the package doc) is stopped when ctx ends, when
// Spec.Timeout passes, when Lines fails or when Terminate or Kill is called,
// and killed in any case once the program itself has exited (so nothing it
// left behind keeps running). Its goroutines end on their own once the program
// has exited and its output has been read; Wait and Done tell when. A
// Process nobody waits for therefore leaks nothing, but its exit status is
// then lost.
type Process struct {
	cmd   *exec.Cmd
	pid   int
	prog  string
	stdin *os.File // the write end, if StdinPipe

	grace     time.Duration
	waitDelay time.Duration
	timeout   time.Duration

	outs      []*os.File    // the read ends
	readersN  atomic.Int32  // readers still running
	readersCh chan struct{} // closed when every reader returned

	emitMu sync.Mutex
	lines  func([]Line) error
	output func(Stream, []byte) error
	cbErr  error         // guarded by emitMu
	failed chan struct{} // closed on the first Lines error
	failMu sync.Once

	killCh   chan struct{}
	killOnce sync.Once
	termCh   chan struct{}
	termOnce sync.Once

	cookie string // its TreeEnv entry
	tree   *tree  // what belongs to it; the monitor's

	done chan struct{}
	exit Exit
	err  error
}

// Start starts the program in a process group of its own and returns once
// it runs. A program that cannot start is an *Error whose Code is the errno
// name (see Error); nothing is left running then.
func Start(ctx context.Context, spec Spec) (*Process, error) {
	cookie := newCookie()
	cmd, prog, err := command(spec, cookie)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := &Process{
		cmd:       cmd,
		prog:      prog,
		grace:     orDefault(spec.KillGrace, DefaultKillGrace),
		waitDelay: orDefault(spec.WaitDelay, DefaultWaitDelay),
		timeout:   spec.Timeout,
		lines:     spec.Lines,
		output:    spec.Output,
		readersCh: make(chan struct{}),
		failed:    make(chan struct{}),
		killCh:    make(chan struct{}),
		termCh:    make(chan struct{}),
		done:      make(chan struct{}),
		cookie:    cookie,
	}
	cmd.WaitDelay = p.waitDelay
	maxLine := spec.MaxLine
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	maxLine = min(maxLine, MaxMaxLine)

	// The child's ends of the pipes, closed in the parent once it started.
	var childEnds []*os.File
	closeAll := func() {
		for _, f := range childEnds {
			_ = f.Close()
		}
		for _, f := range p.outs {
			_ = f.Close()
		}
		if p.stdin != nil {
			_ = p.stdin.Close()
		}
	}
	if spec.StdinPipe {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, startError(prog, err)
		}
		childEnds = append(childEnds, r)
		p.stdin = w
		cmd.Stdin = r
	} else {
		cmd.Stdin = spec.Stdin
	}
	var streams []Stream
	if spec.Lines != nil || spec.Output != nil {
		for _, s := range []Stream{Stdout, Stderr} {
			r, w, err := os.Pipe()
			if err != nil {
				closeAll()
				return nil, startError(prog, err)
			}
			childEnds = append(childEnds, w)
			p.outs = append(p.outs, r)
			streams = append(streams, s)
			if s == Stdout {
				cmd.Stdout = w
			} else {
				cmd.Stderr = w
			}
		}
	}
	// Until the program is registered, ReapOrphans must not reap a zombie
	// child: it could be this program, already exited, that cmd.Wait reaps.
	starting(1)
	if err := cmd.Start(); err != nil {
		starting(-1)
		closeAll()
		return nil, startError(prog, err)
	}
	for _, f := range childEnds {
		_ = f.Close()
	}
	p.pid = cmd.Process.Pid
	// Read now, while the program surely runs: its start time bounds
	// which processes can belong to it.
	cookieB := []byte(cookie)
	p.tree = newTree(p.pid, func(e []byte) bool { return bytes.Equal(e, cookieB) })
	register(p)
	starting(-1)

	p.readersN.Store(int32(len(p.outs)))
	if len(p.outs) == 0 {
		close(p.readersCh)
	}
	for i, f := range p.outs {
		if p.lines != nil {
			go p.read(newSplitter(streams[i], maxLine, p.emit), f)
		} else {
			go p.readRaw(streams[i], f)
		}
	}
	go p.monitor(ctx)
	return p, nil
}

// command validates spec and builds the exec.Cmd, whose environment
// carries cookie.
func command(spec Spec, cookie string) (*exec.Cmd, string, error) {
	if len(spec.Argv) == 0 {
		return nil, "", &Error{Op: "spawn", Code: "EINVAL", Err: ErrEmptyCommand}
	}
	prog := spec.Argv[0]
	if spec.Lines != nil && spec.Output != nil {
		return nil, prog, &Error{Op: "spawn", Prog: prog, Code: "EINVAL",
			Err: fmt.Errorf("%w: both Lines and Output are set", ErrInvalidArg)}
	}
	bad := func(what string) error {
		return &Error{Op: "spawn", Prog: prog, Code: "EINVAL", Err: fmt.Errorf("%w: %s contains a NUL byte", ErrInvalidArg, what)}
	}
	for i, a := range spec.Argv {
		if strings.IndexByte(a, 0) >= 0 {
			return nil, prog, bad(fmt.Sprintf("argument %d", i))
		}
	}
	for _, kv := range spec.Env {
		if strings.IndexByte(kv, 0) >= 0 {
			k, _, _ := strings.Cut(kv, "=")
			return nil, prog, bad(fmt.Sprintf("environment entry %q", k))
		}
	}
	if spec.Dir != "" {
		if strings.IndexByte(spec.Dir, 0) >= 0 {
			return nil, prog, bad("the working directory")
		}
		// The child would fail its chdir with the same errno as a missing
		// program (exec reports both as fork/exec errors), so look first:
		// a bad directory must be told apart.
		fi, err := os.Stat(spec.Dir)
		if err == nil && !fi.IsDir() {
			err = syscall.ENOTDIR
		}
		if err != nil {
			var errno syscall.Errno
			if !errors.As(err, &errno) {
				errno = syscall.EINVAL
			}
			return nil, prog, &Error{Op: "spawn", Prog: prog, Code: errnoName(errno),
				Err: &fs.PathError{Op: "chdir", Path: spec.Dir, Err: errno}}
		}
	}
	if prog == "" {
		return nil, prog, &Error{Op: "spawn", Prog: prog, Code: "ENOENT",
			Err: &errnoCause{errno: syscall.ENOENT, cause: ErrEmptyCommand}}
	}
	cmd := exec.Command(prog, spec.Argv[1:]...)
	if cmd.Err != nil {
		return nil, prog, startError(prog, cmd.Err)
	}
	cmd.Dir = spec.Dir
	cmd.Env = withCookie(spec.Env, cookie)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd, prog, nil
}

// startError turns an os or exec start failure into an *Error that reads
// as its errno and keeps the original error in its chain.
func startError(prog string, err error) error {
	var errno syscall.Errno
	switch {
	case errors.As(err, &errno):
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		errno = syscall.ENOENT
	case errors.Is(err, fs.ErrPermission), errors.Is(err, exec.ErrDot):
		errno = syscall.EACCES
	default:
		return &Error{Op: "spawn", Prog: prog, Code: "EINVAL", Err: err}
	}
	return &Error{Op: "spawn", Prog: prog, Code: errnoName(errno), Err: &errnoCause{errno: errno, cause: err}}
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Pid returns the program's process id, which is also its process group id.
func (p *Process) Pid() int { return p.pid }

// Stdin returns the write end of the program's standard input when
// Spec.StdinPipe was set, else nil. Writes block while the pipe is full;
// Close ends the program's input. Wait closes it if the caller did not, and
// a write after the program exited fails with EPIPE.
func (p *Process) Stdin() io.WriteCloser {
	if p.stdin == nil {
		return nil
	}
	return p.stdin
}

// Kill ends the program's whole tree at once, without the grace a
// cancellation gives: SIGKILL to its group and to every process that
// belongs to it (see the package doc). Wait still reports the exit. Safe
// from any goroutine, any number of times.
func (p *Process) Kill() { p.killOnce.Do(func() { close(p.killCh) }) }

// Terminate stops the program as a cancellation does (SIGTERM to its tree,
// SIGKILL KillGrace later), but Wait reports no error for it: the Exit
// says how the program ended. Safe from any goroutine, any number of times.
func (p *Process) Terminate() { p.termOnce.Do(func() { close(p.termCh) }) }

// Done is closed once Wait's result is ready.
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait waits until the program has exited, its output has been delivered
// and its group has been killed, and returns how it ended. A non-zero exit
// is not an error. The error is, in order of precedence: the timeout
// (*Error wrapping ErrTimeout), ctx's error if it ended first, or the error
// Lines returned; the Exit is reported in every case. Safe to call from
// several goroutines.
func (p *Process) Wait() (Exit, error) {
	<-p.done
	return p.exit, p.err
}

// emit serialises the two readers' calls into Lines and latches its first
// error.
func (p *Process) emit(lines []Line) error {
	p.emitMu.Lock()
	defer p.emitMu.Unlock()
	if p.cbErr != nil {
		return p.cbErr
	}
	if err := p.lines(lines); err != nil {
		p.cbErr = err
		p.failMu.Do(func() { close(p.failed) })
		return err
	}
	return nil
}

// read runs one pipe's splitter, then drains the pipe if the consumer
// failed, so the program is never left blocked on a write. Once the tree
// has been killed, the monitor's read deadline ends the reads.
func (p *Process) read(sp *splitter, f *os.File) {
	if err := sp.run(f); err != nil && p.emitFailed() {
		drain(f)
	}
	p.readerDone(f)
}

// readRaw is read for Spec.Output: each read's bytes go out as they came.
func (p *Process) readRaw(s Stream, f *os.File) {
	buf := make([]byte, readChunk)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			if p.emitRaw(s, buf[:n]) != nil {
				drain(f)
				break
			}
		}
		if err != nil {
			break
		}
	}
	p.readerDone(f)
}

// readerDone closes a reader's pipe; the last one to finish says so.
func (p *Process) readerDone(f *os.File) {
	_ = f.Close()
	if p.readersN.Add(-1) == 0 {
		close(p.readersCh)
	}
}

func (p *Process) emitRaw(s Stream, chunk []byte) error {
	p.emitMu.Lock()
	defer p.emitMu.Unlock()
	if p.cbErr != nil {
		return p.cbErr
	}
	if err := p.output(s, chunk); err != nil {
		p.cbErr = err
		p.failMu.Do(func() { close(p.failed) })
		return err
	}
	return nil
}

func (p *Process) emitFailed() bool {
	select {
	case <-p.failed:
		return true
	default:
		return false
	}
}

func (p *Process) signalGroup(sig syscall.Signal) {
	// The leader is not reaped before the last signal (see monitor), so
	// its pid, which is the group id, cannot have been recycled.
	_ = syscall.Kill(-p.pid, sig)
}

// terminateTree sends SIGTERM to the tree: its members outside the group,
// found while the leader still runs, then the group.
func (p *Process) terminateTree() {
	p.tree.signal(syscall.SIGTERM, func() { p.signalGroup(syscall.SIGTERM) })
}

// killTree ends the tree: SIGKILL to its members and its group, then
// rescans (at most endTreeBound) until none is left, reaping the members
// that became this process's children. The leader is left to cmd.Wait.
func (p *Process) killTree() {
	p.tree.end(time.Now().Add(endTreeBound), func() { p.signalGroup(syscall.SIGKILL) },
		func(pid int) bool { return pid == p.pid || isLeader(pid) })
}

// monitor owns the program's life: it turns cancellation, timeout, a Lines
// failure, Terminate and Kill into signals to the tree, and once the
// program exits it bounds the wait for the pipes, kills what is left of the
// tree and only then reaps the program.
func (p *Process) monitor(ctx context.Context) {
	defer close(p.done)
	defer unregister(p)
	leaderExited := make(chan struct{})
	go func() {
		waitExited(p.pid)
		close(leaderExited)
	}()

	var (
		stopping  bool
		killed    bool // the tree has had its SIGKILL
		cause     error
		graceC    <-chan time.Time
		timeoutC  <-chan time.Time
		graceTm   *time.Timer
		timeoutTm *time.Timer
	)
	if p.timeout > 0 {
		timeoutTm = time.NewTimer(p.timeout)
		timeoutC = timeoutTm.C
	}
	stop := func(c error) {
		if stopping {
			return
		}
		stopping, cause = true, c
		p.terminateTree()
		graceTm = time.NewTimer(p.grace)
		graceC = graceTm.C
	}
	ctxDone, failed, killC, termC := ctx.Done(), p.failed, p.killCh, p.termCh
wait:
	for {
		select {
		case <-leaderExited:
			break wait
		case <-ctxDone:
			ctxDone = nil
			stop(ctx.Err())
		case <-timeoutC:
			timeoutC = nil
			stop(&Error{Op: "wait", Prog: p.prog, Code: "ETIMEDOUT",
				Err: fmt.Errorf("%w after %v", ErrTimeout, p.timeout)})
		case <-failed:
			failed = nil
			stop(nil)
		case <-termC:
			termC = nil
			stop(nil)
		case <-killC:
			killC, graceC = nil, nil
			stopping, killed = true, true
			p.killTree()
		case <-graceC:
			graceC = nil
			killed = true
			p.killTree()
		}
	}
	if timeoutTm != nil {
		timeoutTm.Stop()
	}
	if graceTm != nil {
		graceTm.Stop()
	}

	// The program has exited. Its output may still be in the pipes (a
	// slow consumer): give the readers WaitDelay to reach EOF, then kill
	// the tree, which ends any descendant holding a pipe open. From then
	// on the pipes are read for at most WaitDelay, in case a process that
	// escaped the tree holds one and keeps writing. A tree already killed
	// has nobody left to wait for, and a Kill now ends the wait (Close
	// after a cancel whose SIGTERM ended the program first).
	select {
	case <-p.readersCh:
	default:
		if killed {
			break
		}
		t := time.NewTimer(p.waitDelay)
		select {
		case <-p.readersCh:
		case <-t.C:
		case <-p.killCh:
		}
		t.Stop()
	}
	p.killTree()
	end := time.Now().Add(p.waitDelay)
	for _, f := range p.outs {
		_ = f.SetReadDeadline(end)
	}
	<-p.readersCh

	werr := p.cmd.Wait()
	reapGroup(p.pid, endTreeBound)
	if p.stdin != nil {
		_ = p.stdin.Close()
	}
	p.exit = exitOf(p.cmd.ProcessState)
	var ee *exec.ExitError
	switch {
	case cause != nil:
		p.err = cause
	case p.cbErr != nil:
		p.err = p.cbErr
	case werr != nil && !errors.As(werr, &ee) && !errors.Is(werr, exec.ErrWaitDelay):
		p.err = werr
	}
}

func exitOf(ps *os.ProcessState) Exit {
	if ps == nil {
		return Exit{Code: -1}
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		sig := ws.Signal()
		return Exit{Code: 128 + int(sig), Signal: unix.SignalName(sig)}
	}
	return Exit{Code: ps.ExitCode()}
}

// waitExited blocks until pid has exited, without reaping it: as long as it
// is a zombie its pid, and so its group id, cannot be reused.
func waitExited(pid int) {
	var info unix.Siginfo
	_ = eintr.Retry(func() error { return unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil) })
}

// reapGroup reaps members of the killed group that have become this
// process's children: orphans reparented to it when it is a subreaper (see
// BecomeSubreaper). Every member was sent SIGKILL, so they exit within
// microseconds, unless one is stuck in the kernel (uninterruptible I/O) or
// joined the group after the kill: a blocking wait would then hold Wait,
// and every Close behind it, for as long. So it polls without blocking and
// gives up after within (a member left then is reaped by EndAll, or by
// ReapOrphans once it exits). It returns at once with ECHILD when no
// member is this process's child.
func reapGroup(pgid int, within time.Duration) {
	deadline := time.Now().Add(within)
	pause := 100 * time.Microsecond
	var ws unix.WaitStatus
	for {
		pid, err := unix.Wait4(-pgid, &ws, unix.WNOHANG, nil)
		switch {
		case err == unix.EINTR:
		case err != nil: // ECHILD: none left
			return
		case pid > 0: // one reaped; look again at once
		case !time.Now().Before(deadline):
			return
		default: // members run still, none has exited yet
			time.Sleep(min(pause, time.Until(deadline)))
			pause = min(2*pause, 20*time.Millisecond)
		}
	}
}

// BecomeSubreaper makes this process the reaper of orphaned descendants
// (prctl PR_SET_CHILD_SUBREAPER). When a program proc started dies and
// leaves children, the kernel gives them to the nearest subreaper or to
// pid 1; an init that does not reap (some containers) then collects zombies
// forever. Once this process is a subreaper, proc reaps the members of each
// group it killed when the program ends. It affects the whole process, so
// it is the program's choice (an editor's main), not a library's: orphans
// of children started by other means are then reparented here too and are
// nobody's to reap.
func BecomeSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}
