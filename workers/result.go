package workers

// Result is a job's outcome: the job's own return values, or an *Error from
// the executor (with a nil Value) when the job could not run or failed inside
// the executor.
type Result struct {
	Value any
	Err   error
}
