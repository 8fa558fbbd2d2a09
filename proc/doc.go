// Package proc runs external programs for an editor: each in a process
// group of its own, its output split into lines as it arrives, and the whole
// group killed when the caller is done with it, so that neither a flood of
// output, a program that ignores SIGTERM, nor a grandchild that holds a
// pipe open can freeze, leak or orphan anything. It knows nothing of jobs;
// the runtime builds its spawn jobs on it.
//
// # Lines
//
// "\n" and "\r\n" end a line; a lone "\r" is part of the line. A last line
// without a newline is delivered at EOF with Partial set. Bytes are kept as
// written: NUL bytes and invalid UTF-8 pass through. A line longer than
// Spec.MaxLine (default 1 MiB) is delivered once, cut to MaxLine bytes with
// Truncated set, and the rest of it up to its newline is discarded (not
// delivered as a continuation: a consumer that wants whole lines is better
// served by a marked cut than by fragments it has to reassemble within a
// limit). Each stream's buffer is thus at most MaxLine plus one 64 KiB read.
//
// # Process group, tree and cancellation
//
// The program runs with Setpgid, as the leader of a new group, and its
// environment carries a cookie, TreeEnv=<pid of this process>.<sequence>,
// one per program (the technique of Jenkins' ProcessTreeKiller with
// BUILD_ID). Its tree is the group, every descendant reached through the
// parent chain while the program runs, and every process of this user
// whose /proc/<pid>/environ carries the cookie, which descendants inherit
// however they leave the group (setsid, a double fork). Cancelling the
// context, Spec.Timeout, an error from the Lines callback or Terminate send
// SIGTERM to the tree and SIGKILL after Spec.KillGrace (default 1 s);
// Process.Kill sends SIGKILL at once. When the program exits, proc waits at
// most Spec.WaitDelay for the pipes to close, then ends the tree: SIGKILL to
// the group and to each member, and rescans /proc until none is left
// (within 500 ms), reaping the members that became this process's
// children. The pipes are then read for at most WaitDelay more, so even a
// process that escaped the tree and keeps writing cannot hold Wait. Only
// then is the program reaped: until it is, its pid, which is the group id,
// cannot be recycled, so proc never signals a stranger; a member outside
// the group is signalled through a pidfd opened before its start time is
// checked again, for the same reason. Last, the group's members that
// became this process's children are reaped, waiting at most 500 ms for
// one still exiting: a member stuck in the kernel is left to EndAll or
// ReapOrphans rather than hold Wait.
//
// The scan runs on the monitor goroutine, never the caller's: about 4 µs a
// process listed (BenchmarkTreeScan: 0.3 to 0.4 ms with 85 processes on
// the 2-core CI machine), and a whole `true` from Start to Wait costs
// 0.3 ms more than it did without it (BenchmarkRunTrue). Only processes
// that started after the program have their environment read.
//
// A process that both clears its environment and double-forks escapes the
// tree: it has no cookie and its parent chain no longer leads to the
// program. Under a subreaper it is reparented to this process, and EndAll,
// called at exit, ends it with every other child. A member owned by
// another user (a setuid program) cannot be signalled.
//
// Killed descendants are reparented by the kernel to pid 1 or to the
// nearest subreaper. Under an init that does not reap, call BecomeSubreaper
// once at program start: proc then reaps its trees' orphans itself. A
// subreaper is also given the orphans that exit on their own while their
// program runs (gopls's detached telemetry helper): a program that starts
// every child through proc calls ReapOrphans too, which reaps them as they
// exit. A program about to exit calls EndAll last, so that nothing it
// started outlives it, running or as a zombie.
//
// # Why not cgroups
//
// A cgroup per program (cgroup.kill, Linux 5.14) would find every
// descendant without a scan, but creating one needs a writable, delegated
// cgroup v2 subtree: a desktop session under systemd has one only in a
// scope the program itself asked systemd for, and a terminal, container or
// CI job usually has none (/sys/fs/cgroup is read-only or owned by root).
// Where it was checked (the CI machine runs as root on a hybrid hierarchy,
// so its /sys/fs/cgroup/unified was writable there) it would have worked
// for root only. The cookie and the parent chain need no privilege and
// work the same everywhere, so proc uses them and no cgroup.
//
// # Concurrency
//
// Start returns once the program runs. Each output pipe is read and split
// on a goroutine of its own; a third goroutine (plus one blocked in waitid)
// watches the context, the timer and the program's exit, and scans /proc
// for the tree. The Lines callback
// is called from the reader goroutines, never two calls at once, so it
// needs no lock of its own; stdout lines keep their order and stderr lines
// theirs. The callback may block: that is the backpressure. While it blocks
// no pipe is read, the program blocks on its next write to a full pipe, and
// memory stays bounded, so a consumer that takes credit from a bounded
// queue inside Lines throttles the program to the consumer's pace. Text
// aliases proc's buffer and must be copied before the callback returns if
// it is kept.
//
// Process.Stdin is an *os.File: writes block while the pipe is full, so a
// caller that must not block (an editor's main loop) writes from a
// goroutine of its own. Wait, Done, Kill and Terminate are safe from any
// goroutine, and so is EndAll.
// Every goroutine proc starts for a Process ends once the program has exited
// and its output has been delivered (or discarded after a callback error).
//
// # Errors
//
// A program that cannot start gives an *Error that reads like
// `spawn "prog": no such file or directory`, carries the errno name in Code
// ("ENOENT", "EACCES", "ENOTDIR", "EINVAL") and keeps its cause, so
// errors.Is(err, fs.ErrNotExist) and errors.Is(err, fs.ErrPermission) work.
// A bad working directory is reported as a *fs.PathError with Op "chdir" in
// the chain, distinct from a missing program. Code maps any error of this
// package to its luv-style name. A non-zero exit is not an error: it is in
// Exit.Code, and a deadly signal in Exit.Signal.
//
// # Platforms
//
// Linux only: Start fails with ErrUnsupported elsewhere.
package proc
