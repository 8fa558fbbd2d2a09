package proc

import (
	"context"
	"io"
	"time"
)

// Stream names the output a line came from.
type Stream uint8

// The two output streams.
const (
	Stdout Stream = 1
	Stderr Stream = 2
)

// String returns "stdout" or "stderr".
func (s Stream) String() string {
	switch s {
	case Stdout:
		return "stdout"
	case Stderr:
		return "stderr"
	}
	return "stream(?)"
}

// Line is one line of a program's output.
type Line struct {
	Stream Stream
	// Text is the line without its "\n" or "\r\n", bytes as written (NUL
	// bytes and invalid UTF-8 included). It aliases proc's read buffer: it
	// is valid only until the Lines callback returns, so copy what you keep.
	Text []byte
	// Partial marks a last line the output ended without a newline.
	Partial bool
	// Truncated marks a line cut to Spec.MaxLine bytes; the rest of it, up
	// to its newline or the end of the output, was discarded. A cut line
	// is never also Partial.
	Truncated bool
}

// Defaults for the zero values of Spec.
const (
	DefaultMaxLine = 1 << 20
	MaxMaxLine     = 1 << 30 // Spec.MaxLine is clamped to this
	// DefaultKillGrace is 1 s so that a stop's worst case (SIGTERM
	// ignored, then SIGKILL, then the pipes an escaped process holds read
	// for WaitDelay) stays within the 3 s every teardown is bounded by.
	DefaultKillGrace = time.Second
	DefaultWaitDelay = time.Second
)

// Spec describes a program to run.
type Spec struct {
	// Argv is the program and its arguments. A program name without a
	// slash is looked up in PATH (the caller's, not Env's); a relative
	// path with a slash is relative to Dir.
	Argv []string
	// Dir is the working directory; "" means the caller's.
	Dir string
	// Env is the complete environment as "KEY=value" entries (a later
	// duplicate key wins); nil means the caller's environment. Either way
	// proc sets TreeEnv in it (see the package doc).
	Env []string
	// Stdin feeds the program's standard input; nil means /dev/null.
	// Ignored when StdinPipe is set.
	Stdin io.Reader
	// StdinPipe makes Process.Stdin a pipe the caller writes and closes.
	StdinPipe bool
	// Lines receives the output, a batch of at most BatchLines lines of one
	// stream per call. Calls never overlap; stdout and stderr each keep
	// their order, and a line is delivered in the order the reads that
	// completed it returned. Lines may block: while it does, proc reads
	// neither pipe further, so a program that keeps writing blocks once
	// the pipe is full. An error from Lines stops the program as a
	// cancellation does (the output is then read and discarded so it
	// cannot block) and Wait returns that error. nil discards the output
	// without reading it (the program writes to /dev/null).
	Lines func([]Line) error
	// Output, an alternative to Lines, receives each read's bytes as they
	// came, unsplit (for a caller that keeps the output whole). The same
	// rules apply: calls never overlap, chunk aliases proc's buffer and is
	// valid only during the call, blocking is backpressure and an error
	// stops the program. Setting both Lines and Output is an error.
	Output func(s Stream, chunk []byte) error
	// MaxLine caps a line's Text; 0 means DefaultMaxLine, and it is
	// clamped to MaxMaxLine. A longer line is
	// delivered cut to MaxLine bytes with Truncated set, and the rest of
	// it is discarded.
	MaxLine int
	// Timeout, when positive, stops the program as a cancellation does
	// once it has run that long; Wait then returns an *Error with Code
	// "ETIMEDOUT" wrapping ErrTimeout.
	Timeout time.Duration
	// KillGrace is how long a stopped program has between SIGTERM and
	// SIGKILL to its tree; 0 means DefaultKillGrace.
	KillGrace time.Duration
	// WaitDelay bounds how long Wait waits for the pipes to close after
	// the program exited (a background grandchild may hold them open); 0
	// means DefaultWaitDelay. Once it has passed, the program's tree is
	// killed and the pipes are read for at most WaitDelay more (what is
	// left in them then is dropped). It is also the exec.Cmd.WaitDelay of
	// the copy from a Stdin reader.
	WaitDelay time.Duration
}

// Exit is how a program ended.
type Exit struct {
	// Code is the exit status, or 128 plus the signal number when a signal
	// ended the program (the shell's convention).
	Code int
	// Signal names the signal that ended the program ("SIGTERM"), or "".
	Signal string
}

// Run starts the program and waits for it. See Start and Process.Wait.
func Run(ctx context.Context, spec Spec) (Exit, error) {
	p, err := Start(ctx, spec)
	if err != nil {
		return Exit{Code: -1}, err
	}
	return p.Wait()
}
