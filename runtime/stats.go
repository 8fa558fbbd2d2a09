package runtime

// Stats counts what a Runtime holds. A *workers* view shows it as its header
// line; a test or a soak run checks that everything but MalformedReplies is
// back to zero once every job has been taken.
type Stats struct {
	// Pending counts jobs not yet taken: running, or settled and waiting for
	// TakeResult or their closing batch.
	Pending int
	// Streams counts the pending jobs that are streams.
	Streams int
	// SupersedeKeys counts the supersede keys bound to a job.
	SupersedeKeys int
	// Held counts what kinds keep for their callers beyond the pending
	// table (their states' Held).
	Held int
	// MalformedReplies counts the envelopes Tick could not decode and
	// dropped since the runtime started.
	MalformedReplies uint64
}

// Stats returns the runtime's current counts. It walks the pending table to
// count streams, so it costs time in proportion to the pending jobs, like
// Snapshot; call it once a frame at most.
func (rt *Runtime) Stats() Stats {
	s := Stats{
		Pending:          rt.pending.len(),
		SupersedeKeys:    len(rt.supersede),
		MalformedReplies: rt.malformed,
	}
	rt.eachState(func(st any) {
		if h, ok := st.(interface{ Held() int }); ok {
			s.Held += h.Held()
		}
	})
	for j := range rt.pending.all() {
		if j.stream != nil {
			s.Streams++
		}
	}
	return s
}
