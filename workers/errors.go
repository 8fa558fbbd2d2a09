package workers

import (
	"context"
	"errors"
	"fmt"
)

// Codes the executor itself settles a job with. They are stable strings so they
// can cross a wire (the runtime forwards them to Lua) unchanged.
const (
	CodeActorNotRegistered = "actor_not_registered"
	CodeInternal           = "internal_error"
	CodeActorFatal         = "actor_fatal"
	CodeShutdown           = "shutdown"
	CodeInvalidArgument    = "invalid_argument"
	// CodeCanceled: the job's context had ended when a worker would have
	// started it.
	CodeCanceled = "canceled"
	// CodeActorNotFatal and CodeActorBusy are ResetActor's refusals.
	CodeActorNotFatal = "actor_not_fatal"
	CodeActorBusy     = "actor_busy"
)

// Sentinels for errors.Is: an *Error matches the sentinel with the same Code.
var (
	// ErrActorNotRegistered: the job named an actor that is not (or no longer)
	// registered.
	ErrActorNotRegistered error = &Error{Code: CodeActorNotRegistered, Message: "actor is not registered"}
	// ErrInternal: the job panicked or called runtime.Goexit.
	ErrInternal error = &Error{Code: CodeInternal, Message: "job failed inside the executor"}
	// ErrActorFatal: the actor is fatal after one of its mutating jobs panicked.
	ErrActorFatal error = &Error{Code: CodeActorFatal, Message: "actor is fatal after a mutating job panicked"}
	// ErrShutdown: the executor was closed before the job ran.
	ErrShutdown error = &Error{Code: CodeShutdown, Message: "executor is shut down"}
	// ErrInvalidArgument: the submit named an unknown lane, a nil job or a
	// nil context, or gave a Key with a lane other than LaneRead.
	ErrInvalidArgument error = &Error{Code: CodeInvalidArgument, Message: "invalid submit argument"}
	// ErrCanceled: the job was not run because its context had ended. The
	// *Error also matches the context's error (context.Canceled or
	// context.DeadlineExceeded) and its cause.
	ErrCanceled error = &Error{Code: CodeCanceled, Message: "job was not run: its context ended"}
	// ErrActorNotFatal: ResetActor was asked to reset an actor that is not
	// fatal.
	ErrActorNotFatal error = &Error{Code: CodeActorNotFatal, Message: "actor is not fatal"}
	// ErrActorBusy: ResetActor was asked to reset a fatal actor whose jobs
	// have not all ended yet.
	ErrActorBusy error = &Error{Code: CodeActorBusy, Message: "actor still has jobs running"}
)

// Error is what the executor settles a job with when the job's own code did
// not produce the outcome. Match it with errors.Is against the sentinels above
// or with errors.As to read the job's name.
type Error struct {
	Code    string // one of the Code constants
	Job     string // the name the job was submitted with; empty for ResetActor
	Message string // a full sentence that names the job
	// Err is the error underneath, which Unwrap returns: for CodeCanceled
	// the context's error, wrapping its cause when that is another error;
	// nil for every other code.
	Err error
}

func (e *Error) Error() string { return "workers: " + e.Code + ": " + e.Message }

// Unwrap returns e.Err, so that errors.Is(err, context.Canceled) and a
// match against the context's cause work on a CodeCanceled settlement.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error with the same Code, so that
// errors.Is(err, ErrActorFatal) holds for every actor_fatal settlement.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t != nil && t.Code == e.Code
}

func jobError(code, job, message string) *Error {
	return &Error{Code: code, Job: job, Message: "job '" + job + "' " + message}
}

// canceledError settles a job that was not run because ctx had ended. It
// wraps the cause when that already is (or wraps) ctx's error, as a cause
// given to context.WithCancelCause often does; otherwise it wraps both, so
// that errors.Is finds context.Canceled or context.DeadlineExceeded as well
// as the cause.
func canceledError(ctx context.Context, job string) *Error {
	err := ctx.Err()
	under := err
	switch cause := context.Cause(ctx); {
	case cause == nil || cause == err:
	case errors.Is(cause, err):
		under = cause
	default:
		under = fmt.Errorf("%w: %w", err, cause)
	}
	return &Error{Code: CodeCanceled, Job: job, Message: "job '" + job + "' was not run: " + under.Error(), Err: under}
}
