package fsops

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// The error taxonomy. Every error an operation returns is a *PathError naming
// the operation and path(s); its chain ends in one of these sentinels or in
// the OS error (a syscall.Errno), so errors.Is works against both the
// sentinels below and fs.ErrNotExist, fs.ErrExist, fs.ErrPermission, and
// errors.As finds the standard *fs.PathError (or, for a rename, the
// *os.LinkError) as well as the *PathError. Each sentinel's message starts
// with "fsops: ".
var (
	// ErrCancelled marks an operation stopped by its context. The same
	// error also matches the context's own error (context.Canceled or
	// context.DeadlineExceeded).
	ErrCancelled = errors.New("fsops: cancelled")
	// ErrEmptyPath refuses "", which the OS would read as the current
	// directory for some calls and as ENOENT for others.
	ErrEmptyPath = errors.New("fsops: empty path")
	// ErrNULInPath refuses a path with a NUL byte: the kernel would see a
	// different, shorter path than the one the caller named.
	ErrNULInPath = errors.New("fsops: path contains a NUL byte")
	// ErrNonUTF8Path refuses a path that is not valid UTF-8 (it could not
	// round-trip through Lua and MessagePack strings unchanged), and marks
	// directory entries whose names are not valid UTF-8.
	ErrNonUTF8Path = errors.New("fsops: path is not valid UTF-8")
	// ErrEscapesRoot is Confine's refusal of a path outside every root.
	ErrEscapesRoot = errors.New("fsops: path escapes the permitted roots")
	// ErrBadMode refuses a Chmod mode with bits outside 07777.
	ErrBadMode = errors.New("fsops: mode has bits outside 07777")
)

// PathError is the error every operation returns: which operation, on which
// path (and, for rename, to which destination), and why.
type PathError struct {
	Op   string
	Path string
	// Path2 is the rename destination; empty for every other operation.
	Path2 string
	// Err is the cause: a syscall.Errno (possibly with a clearer message
	// wrapped around it) or one of the package's sentinels.
	Err error
}

// Error names the operation and the path(s), quoted so that control bytes
// and invalid UTF-8 stay visible, e.g. `rename "a" -> "b": destination exists`.
func (e *PathError) Error() string {
	if e.Path2 != "" {
		return fmt.Sprintf("%s %q -> %q: %v", e.Op, e.Path, e.Path2, e.Err)
	}
	return fmt.Sprintf("%s %q: %v", e.Op, e.Path, e.Err)
}

// Unwrap exposes the cause, so fs.ErrNotExist and friends match.
func (e *PathError) Unwrap() error { return e.Err }

// As lets errors.As see e as the standard library's error for the same
// failure: a rename as an *os.LinkError (Old and New are the two paths),
// every other operation as an *fs.PathError. The message stays e's own.
func (e *PathError) As(target any) bool {
	switch t := target.(type) {
	case **fs.PathError:
		if e.Op == "rename" {
			return false
		}
		*t = &fs.PathError{Op: e.Op, Path: e.Path, Err: e.Err}
		return true
	case **os.LinkError:
		if e.Op != "rename" {
			return false
		}
		*t = &os.LinkError{Op: e.Op, Old: e.Path, New: e.Path2, Err: e.Err}
		return true
	}
	return false
}

// explained replaces an errno's generic text with what it means for this
// operation ("destination exists" rather than "file exists") while keeping
// the errno in the chain for errors.Is and Errno.
type explained struct {
	msg string
	err error
}

func (e *explained) Error() string { return e.msg }
func (e *explained) Unwrap() error { return e.err }

// cancelled carries the context's error so that both ErrCancelled and
// context.Canceled (or DeadlineExceeded) match.
type cancelled struct{ cause error }

func (e *cancelled) Error() string        { return ErrCancelled.Error() }
func (e *cancelled) Unwrap() []error      { return []error{ErrCancelled, e.cause} }
func (e *cancelled) Is(target error) bool { return target == ErrCancelled }

// checkCancel returns a *PathError wrapping ErrCancelled once ctx is done.
func checkCancel(ctx context.Context, op, path, path2 string) error {
	if err := ctx.Err(); err != nil {
		return &PathError{Op: op, Path: path, Path2: path2, Err: &cancelled{cause: err}}
	}
	return nil
}

// Errno names the failure for the Lua binding, which follows luv's
// (nil, message, name) convention: the name of the innermost syscall.Errno in
// err's chain ("ENOENT", "EEXIST", "EACCES", "ENOTEMPTY", "ENOTDIR", ...), a
// fixed name for the package's sentinels (ErrEmptyPath, ErrNULInPath and
// ErrBadMode: "EINVAL"; ErrNonUTF8Path: "EILSEQ"; ErrEscapesRoot: "EACCES", as
// the caller is denied access to that path; cancellation: "ECANCELED", or
// "ETIMEDOUT" when the context's deadline passed), or "" when err carries
// none of these (including nil).
func Errno(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrCancelled):
		if errors.Is(err, context.DeadlineExceeded) {
			return "ETIMEDOUT"
		}
		return "ECANCELED"
	case errors.Is(err, ErrEmptyPath), errors.Is(err, ErrNULInPath), errors.Is(err, ErrBadMode):
		return "EINVAL"
	case errors.Is(err, ErrNonUTF8Path):
		return "EILSEQ"
	case errors.Is(err, ErrEscapesRoot):
		return "EACCES"
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errnoName(errno)
	}
	return ""
}
