package workers

import "context"

// flightKey scopes sharing to one actor: the same key under two roots names
// two different things.
type flightKey struct {
	id  ActorID
	key string
}

// flight is one shared execution and the completions waiting on it.
type flight struct {
	waiters []func(Result)
}

// submitShared is Submit for a Task with a Key: golang.org/x/sync/
// singleflight's contract (Do with a key), built on the executor's own
// completion callback instead of that package, whose DoChan would park a
// goroutine per flight plus one per caller to forward the result, where the
// callback settles every waiter directly.
func (e *Executor) submitShared(ctx context.Context, t Task) {
	if t.Lane != LaneRead {
		deliver(t.Done, Result{Err: jobError(CodeInvalidArgument, t.Name,
			"was not run: a job with a Key runs in the read lane, not "+t.Lane.String())})
		return
	}
	k := flightKey{id: t.Actor, key: t.Key}

	e.flightMu.Lock()
	if f, ok := e.flights[k]; ok {
		if t.Done != nil {
			f.waiters = append(f.waiters, t.Done)
		}
		e.flightMu.Unlock()
		return
	}
	f := &flight{}
	if t.Done != nil {
		f.waiters = []func(Result){t.Done}
	}
	e.flights[k] = f
	e.flightMu.Unlock()

	e.submit(ctx, t.Actor, LaneRead, t.Name, t.Run, func(r Result) {
		e.flightMu.Lock()
		delete(e.flights, k)
		waiters := f.waiters
		f.waiters = nil
		e.flightMu.Unlock()
		for _, w := range waiters {
			w(r)
		}
	}, nil)
}
