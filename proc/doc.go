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
// # Process group and cancellation
//
// The program runs with Setpgid, as the leader of a new group. Cancelling
// the context, Spec.Timeout, or an error from the Lines callback sends
// SIGTERM to the whole group and SIGKILL after Spec.KillGrace (default 2 s);
// Process.Kill sends SIGKILL at once. When the program exits, proc waits at
// most Spec.WaitDelay for the pipes to close, then sends SIGKILL to what is
// left of the group (background grandchildren) and only then reaps the
// program: until it is reaped its pid, which is the group id, cannot be
// recycled, so proc never signals a stranger. A program that moved itself
// out of the group (setsid) is out of reach by design; its pipes are then
// abandoned after WaitDelay of silence so Wait still returns.
//
// Killed grandchildren are reparented by the kernel to pid 1 or to the
// nearest subreaper. Under an init that does not reap, call BecomeSubreaper
// once at program start: proc then reaps its groups' orphans itself.
//
// # Concurrency
//
// Start returns once the program runs. Each output pipe is read and split
// on a goroutine of its own; a third goroutine (plus one blocked in waitid)
// watches the context, the timer and the program's exit. The Lines callback
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
// goroutine of its own. Wait, Done and Kill are safe from any goroutine.
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
