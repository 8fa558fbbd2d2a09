package runtime

import (
	"context"
	"errors"
	"fmt"

	"github.com/pmacs-go/pmacs-go/workers"
)

// CodeMalformedReply is the code of a job whose reply reached Tick but
// could not be decoded. Its message names the job and the decoder's reason.
const CodeMalformedReply = "malformed_reply"

// Reasons a job's context ends other than Runtime.Cancel. Each wraps
// context.Canceled, so errors.Is(err, context.Canceled) holds for every
// cancelled job; context.Cause(jobCtx) and a cancelled Outcome's Err say
// which it was.
var (
	// ErrSuperseded ends a job whose key a newer dispatch took.
	ErrSuperseded = fmt.Errorf("runtime: superseded: %w", context.Canceled)
	// ErrClosed ends the jobs still running when the Runtime closes.
	ErrClosed = fmt.Errorf("runtime: closed: %w", context.Canceled)
)

// JobError is why a job failed. Code is machine-readable: the errno name of
// a filesystem failure ("ENOENT", "EEXIST", ...), the executor's code
// ("internal_error", "actor_fatal", "actor_not_registered", "shutdown"),
// CodeMalformedReply, a protocol error name for an external job, or empty.
// Message is a sentence for a person and always names what failed.
//
// Err is the handler's own error when the job ran in this process (a
// *fs.PathError from fsops, grep.ErrBadPattern, an *exec.Error from proc,
// the error an external job was failed with), so errors.Is and errors.As
// see through a JobError to it. It is nil when all that survived was the
// message and code (a panic, a reply that could not be decoded).
type JobError struct {
	Message string
	Code    string
	Err     error
}

func (e *JobError) Error() string { return e.Message }

// Unwrap returns the handler's error, if the job kept it.
func (e *JobError) Unwrap() error { return e.Err }

// Is lets errors.Is match a failure against the executor's sentinels, e.g.
// errors.Is(outcome.Err, workers.ErrActorFatal), by code.
func (e *JobError) Is(target error) bool {
	var we *workers.Error
	return errors.As(target, &we) && we.Code == e.Code && e.Code != ""
}

// Outcome is a settled job's result.
//
// Err is nil when the job completed. A failed job's Err is a *JobError
// (match it with errors.As for the code, with errors.Is for the handler's
// error it wraps); a cancelled job's Err is its context's cause:
// context.Canceled after Runtime.Cancel, ErrSuperseded, or ErrClosed.
//
// The value a job completed with is read with the accessor of its kind's
// package, each of which reports false for an outcome of another kind or
// one that did not complete (fsjob.ListingOf, procjob.ResultOf,
// findjob.RankingOf, demojob.SumOf, parsejob.ResultOf); they read it with
// Value. An external job's value (lsp_request, mcp_request, ...) is read
// with External. grep completes with no value.
type Outcome struct {
	State    State
	Err      error
	value    any
	external bool // value came from CompleteExternalOK or CompleteExternalOwned
}

// OK reports whether the job completed.
func (o Outcome) OK() bool { return o.State == Complete }

// Value is the value a job completed with, for its kind's package to read
// (parsejob.ResultOf, ...); false for an outcome that did not complete and
// for an external job's (see External).
func (o Outcome) Value() (any, bool) {
	return o.value, o.State == Complete && !o.external
}

// External is the value an external job was completed with
// (Runtime.CompleteExternalOK, CompleteExternalOwned), as it came back
// from MessagePack: maps as map[string]any, arrays as []any, integers in
// the smallest Go integer type that holds them. It reports false for an outcome that did not complete or
// that is not an external job's.
func (o Outcome) External() (any, bool) {
	if !o.external || o.State != Complete {
		return nil, false
	}
	return o.value, true
}

// as is the typed read behind the accessors. An external job's value is
// never one of the built-in results, even when it has the same Go type
// (a uint64 an LSP server sent is not a compute_sum's sum).
func as[T any](o Outcome) (T, bool) {
	v, ok := o.value.(T)
	return v, ok && o.State == Complete && !o.external
}
