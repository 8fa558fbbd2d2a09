package workers

// Codes the executor itself settles a job with. They are stable strings so they
// can cross a wire (the runtime forwards them to Lua) unchanged.
const (
	CodeActorNotRegistered = "actor_not_registered"
	CodeInternal           = "internal_error"
	CodeActorFatal         = "actor_fatal"
	CodeShutdown           = "shutdown"
	CodeInvalidArgument    = "invalid_argument"
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
	// ErrInvalidArgument: the submit named an unknown lane or a nil job.
	ErrInvalidArgument error = &Error{Code: CodeInvalidArgument, Message: "invalid submit argument"}
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
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Is reports whether target is an *Error with the same Code, so that
// errors.Is(err, ErrActorFatal) holds for every actor_fatal settlement.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t != nil && t.Code == e.Code
}

func jobError(code, job, message string) *Error {
	return &Error{Code: code, Job: job, Message: "job '" + job + "' " + message}
}
