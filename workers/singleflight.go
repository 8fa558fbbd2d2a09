package workers

// flightKey scopes sharing to one actor: the same key under two roots names
// two different things.
type flightKey struct {
	id  ActorID
	key string
}

// flight is one shared execution and the handles waiting on it.
type flight struct {
	waiters []*Handle
}

// SubmitShared runs job on the read lane, unless a job with the same actor
// and key is already queued or running: then the caller joins it and gets the
// same Result (its name and job are unused). Once that execution settles the
// key is free again, so a later call runs the job anew. Callers share
// Result.Value and must treat it as read-only.
//
// This is golang.org/x/sync/singleflight's contract (Do with a key), built on
// the executor's own completion callback instead of that package: DoChan
// would park a goroutine per flight on the job's Handle plus one per caller to
// forward into a Handle, where the callback settles every waiter directly.
func (e *Executor) SubmitShared(id ActorID, key string, name string, job Job) *Handle {
	h := newHandle()
	k := flightKey{id: id, key: key}

	e.flightMu.Lock()
	if f, ok := e.flights[k]; ok {
		f.waiters = append(f.waiters, h)
		e.flightMu.Unlock()
		return h
	}
	f := &flight{waiters: []*Handle{h}}
	e.flights[k] = f
	e.flightMu.Unlock()

	e.SubmitFunc(id, LaneRead, name, job, func(r Result) {
		e.flightMu.Lock()
		delete(e.flights, k)
		waiters := f.waiters
		f.waiters = nil
		e.flightMu.Unlock()
		for _, w := range waiters {
			w.settle(r)
		}
	})
	return h
}
