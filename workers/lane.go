package workers

import "strconv"

// Lane says how a job is admitted and which side of its actor's gate it runs on.
type Lane uint8

const (
	// LaneRead is pure read work: up to ReadCap at once per actor, under the
	// actor's read gate.
	LaneRead Lane = iota
	// LaneSerial is work that must not overlap itself within an actor (LSP
	// requests, status queries): one at a time per actor, under the read gate.
	LaneSerial
	// LaneHeavy is expensive construction (parses, indexes): it needs one of the
	// process-wide heavy permits, runs outside the actor's gate, then takes a
	// short write gate before it settles so readers that were in flight when it
	// finished have drained.
	LaneHeavy
	// LaneMutating is a writer barrier: once it reaches the head of its actor's
	// queue no later job of that actor starts until it has finished, it waits
	// for the actor's in-flight reads to drain, and it runs under the write gate.
	LaneMutating
	// LaneStream is a producer that feeds a consumer outside the executor
	// (a search streaming matches, a generator): it is admitted like a read,
	// in submission order after every mutating job submitted before it, but it
	// runs holding no gate, so a mutating job submitted after it has started
	// does not wait for it. It is the lane for work that parks (see
	// Actor.Park) on a consumer that may itself wait for a later mutation.
	LaneStream
)

// String returns "read", "serial", "heavy", "mutating" or "stream" (or
// "Lane(n)" for a value outside the enumeration).
func (l Lane) String() string {
	switch l {
	case LaneRead:
		return "read"
	case LaneSerial:
		return "serial"
	case LaneHeavy:
		return "heavy"
	case LaneMutating:
		return "mutating"
	case LaneStream:
		return "stream"
	}
	return "Lane(" + strconv.Itoa(int(l)) + ")"
}

func (l Lane) valid() bool { return l <= LaneStream }
