package runtime

import "fmt"

// JobID names a job for its whole life; ids are never reused by a Runtime.
type JobID uint64

// Kind is the handler a job runs; its label is what the *workers* view shows.
type Kind uint8

// State is where a job is in its life.
type State uint8

// Job states. Running is the only non-terminal one.
const (
	Running State = iota
	Complete
	Cancelled
	Failed
)

// String returns "running", "complete", "cancelled" or "failed".
func (s State) String() string {
	switch s {
	case Running:
		return "running"
	case Complete:
		return "complete"
	case Cancelled:
		return "cancelled"
	case Failed:
		return "failed"
	}
	return fmt.Sprintf("state(%d)", uint8(s))
}
