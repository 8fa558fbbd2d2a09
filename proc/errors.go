package proc

import (
	"context"
	"errors"
	"fmt"
	"syscall"
)

var (
	// ErrEmptyCommand is the cause of a start failure for an empty argv.
	ErrEmptyCommand = errors.New("proc: empty command")
	// ErrInvalidArg is the cause of a start failure for an argument,
	// environment entry or directory holding a NUL byte, which no program
	// could receive.
	ErrInvalidArg = errors.New("proc: invalid argument")
	// ErrTimeout is the cause of the error Wait returns when Spec.Timeout
	// ended the program. It is not context.DeadlineExceeded: a timeout is
	// the program's failure, not the caller's cancellation.
	ErrTimeout = errors.New("proc: timed out")
	// ErrUnsupported is the cause of a start failure on platforms where
	// proc cannot own a process group the way it promises to.
	ErrUnsupported = errors.New("proc: process groups not supported on this platform")
)

// Error is a failure to start a program, or a timeout. It keeps its cause,
// so errors.Is(err, fs.ErrNotExist) holds for a missing program or working
// directory, errors.Is(err, fs.ErrPermission) for a program that is not
// executable, and errors.Is(err, ErrTimeout) for a timeout.
type Error struct {
	// Op is "spawn" for start failures, "wait" for a timeout.
	Op string
	// Prog is argv[0] as given ("" for an empty command).
	Prog string
	// Code is the luv-style errno name: "ENOENT", "EACCES", "ENOTDIR",
	// "EINVAL", "ETIMEDOUT", ...
	Code string
	// Err is the cause.
	Err error
}

// Error reads like `spawn "prog": no such file or directory`; without a
// program to name (an empty argv, a stdin write) like `spawn: empty command`.
func (e *Error) Error() string {
	if e.Prog == "" && (e.Op != "spawn" || e.Err == ErrEmptyCommand) {
		return e.Op + ": " + e.Err.Error()
	}
	return fmt.Sprintf("%s %q: %s", e.Op, e.Prog, e.Err.Error())
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// errnoCause is a cause that reads as its errno but also unwraps to the
// error the os or exec package gave (an *exec.Error, an *fs.PathError), so
// neither identity is lost.
type errnoCause struct {
	errno syscall.Errno
	cause error
}

func (c *errnoCause) Error() string   { return c.errno.Error() }
func (c *errnoCause) Unwrap() []error { return []error{c.errno, c.cause} }

// Code returns the luv-style code of err: the Code of an *Error, the name
// of a syscall.Errno found in its chain, "ETIMEDOUT" for a timeout and
// "ECANCELED" for a cancelled context; "" when none applies.
func Code(err error) string {
	var pe *Error
	if errors.As(err, &pe) && pe.Code != "" {
		return pe.Code
	}
	switch {
	case errors.Is(err, ErrTimeout):
		return "ETIMEDOUT"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "ECANCELED"
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errnoName(errno)
	}
	return ""
}
