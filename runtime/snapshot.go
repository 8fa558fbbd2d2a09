package runtime

import (
	"cmp"
	"slices"
	"time"
)

// completedSlot is one entry of the completion ring. It keeps the outcome's
// state and error, and its value only as a result summary: small values
// themselves, large ones by shape and size, so the ring never pins a large
// result (a 100,000-entry listing) in memory.
type completedSlot struct {
	id           JobID
	kind         Kind
	state        State
	key          string
	err          error
	result       resultSummary
	dispatchedAt mono
	settledAt    mono
}

// completionRing holds the newest CompletedRingCap completions.
type completionRing struct {
	slots [CompletedRingCap]completedSlot
	head  int // index of the newest slot
	n     int
}

// next makes the oldest slot the newest and returns it for the caller to
// fill in; it still holds the completion it held before.
func (r *completionRing) next() *completedSlot {
	r.head = (r.head + 1) % CompletedRingCap
	r.n = min(r.n+1, CompletedRingCap)
	return &r.slots[r.head]
}

// newestFirst calls f for each slot from the newest to the oldest.
func (r *completionRing) newestFirst(f func(*completedSlot)) {
	for i := range r.n {
		f(&r.slots[(r.head-i+CompletedRingCap)%CompletedRingCap])
	}
}

// ActiveJob is a row of the *workers* view's active section.
type ActiveJob struct {
	ID              JobID
	Kind            Kind
	Age             time.Duration
	Key             string
	CancelRequested bool
	Stream          bool
	// Progress is the job's last progress line (SetExternalProgress), ""
	// when none was set.
	Progress string
	// For a stream: Queued counts the items waiting for TakeStreamBatches,
	// QueuedWeight the credit they hold, and InFlight the credit its
	// producer holds in all (those items, and those still on their way).
	Queued, QueuedWeight, InFlight int
}

// CompletedJob is a row of the *workers* view's recent-completions section.
type CompletedJob struct {
	ID         JobID
	Kind       Kind
	Duration   time.Duration // dispatch to settle
	SettledAge time.Duration // settle to snapshot
	Key        string
	State      State
	Err        error // a failed job's *JobError; nil otherwise
	// Result says what a completed job returned, in a short line: the
	// value itself when it is small ("55", a string of up to 60 bytes),
	// else its kind and size ("listing of 1204 entries",
	// "array of 70000 items", "string of 4194304 bytes", "1000 items" for a
	// stream). Empty for jobs that return nothing, and for failed and
	// cancelled jobs (Err says why).
	Result string
}

// WorkersSnapshot is a point-in-time copy of the job tables. A job is in at
// most one of the two lists.
type WorkersSnapshot struct {
	Active    []ActiveJob    // running jobs, oldest first
	Completed []CompletedJob // recent settles, newest first, at most CompletedRingCap
	Fatal     []FatalRoot    // roots refusing jobs after a mutation panicked, in registration order
}

// Snapshot copies the job tables for the *workers* view. It is O(pending
// jobs) and meant to be called once per frame at most, while the view shows.
func (rt *Runtime) Snapshot() WorkersSnapshot {
	now := monoNow()
	var snap WorkersSnapshot
	for j := range rt.pending.all() {
		if j.state != Running {
			continue
		}
		a := ActiveJob{
			ID: j.t.id, Kind: j.kind, Age: now.sub(j.dispatchedAt), Key: j.key,
			CancelRequested: j.t.ctx.Err() != nil, Stream: j.stream != nil, Progress: j.progressLine(),
		}
		if s := j.stream; s != nil {
			a.Queued, a.QueuedWeight, a.InFlight = s.len(), s.units(), s.credit.InFlight()
		}
		snap.Active = append(snap.Active, a)
	}
	// Ids grow with dispatch time, so ascending id is oldest first and
	// stable even when two jobs share a clock reading.
	slices.SortFunc(snap.Active, func(a, b ActiveJob) int { return cmp.Compare(a.ID, b.ID) })
	snap.Completed = make([]CompletedJob, 0, rt.ring.n)
	rt.ring.newestFirst(func(s *completedSlot) {
		snap.Completed = append(snap.Completed, CompletedJob{
			ID: s.id, Kind: s.kind, Duration: s.settledAt.sub(s.dispatchedAt),
			SettledAge: now.sub(s.settledAt), Key: s.key, State: s.state, Err: s.err,
			Result: s.result.String(),
		})
	})
	snap.Fatal = rt.fatalRoots()
	return snap
}
