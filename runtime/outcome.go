package runtime

import (
	"errors"

	"github.com/pmacs-go/pmacs-go/workers"
)

// CodeMalformedReply is the code of a job whose reply reached Tick but
// could not be decoded. Its message names the job and the decoder's reason.
const CodeMalformedReply = "malformed_reply"

// JobError is why a job failed. Code is machine-readable: the errno name of
// a filesystem failure ("ENOENT", "EEXIST", ...), the executor's code
// ("internal_error", "actor_fatal", "actor_not_registered", "shutdown"),
// CodeMalformedReply, or empty. Message is a sentence for a person and
// always names what failed.
type JobError struct {
	Message string
	Code    string
}

func (e *JobError) Error() string { return e.Message }

// Is lets errors.Is match a failure against the executor's sentinels, e.g.
// errors.Is(outcome.Err, workers.ErrActorFatal).
func (e *JobError) Is(target error) bool {
	var we *workers.Error
	return errors.As(target, &we) && we.Code == e.Code && e.Code != ""
}

// Outcome is a settled job's result.
//
// Value depends on the kind: nil for sleep, streams and fs mutations; uint64
// for compute_sum; *ParseResult for parse; fsops.Listing for read_dir;
// fsops.Entry for stat; for external jobs the value as it came back from
// MessagePack (maps as map[string]any, arrays as []any, integers in the
// smallest Go integer type that holds them);
// SpawnResult for spawn and system.
type Outcome struct {
	State State
	Value any
	Err   *JobError // set when State is Failed
}

// OK reports whether the job completed.
func (o Outcome) OK() bool { return o.State == Complete }
