// Package kindtest holds what the tests of the kind packages and the
// runtime's external tests share: a runtime closed with the test, the loop
// that pumps it until a job settles, stream draining, and a best of three
// for timing bounds. It is for tests only.
package kindtest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/workers"
)

// New returns a runtime with a pool of the given size that is closed when
// the test ends.
func New(t testing.TB, pool int) *runtime.Runtime {
	t.Helper()
	return NewWith(t, runtime.Options{Executor: workers.Config{PoolSize: pool}})
}

// NewWith returns a runtime made with opts, closed when the test ends.
func NewWith(t testing.TB, opts runtime.Options) *runtime.Runtime {
	t.Helper()
	rt, err := runtime.New(opts)
	require.NoError(t, err)
	t.Cleanup(rt.Close)
	return rt
}

// PumpUntil ticks until cond holds, failing after two seconds.
func PumpUntil(t testing.TB, rt *runtime.Runtime, cond func() bool) {
	t.Helper()
	PumpFor(t, rt, 2*time.Second, cond)
}

// PumpFor ticks until cond holds, failing after limit.
func PumpFor(t testing.TB, rt *runtime.Runtime, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		require.True(t, time.Now().Before(deadline), "runtime tick deadline exceeded")
		rt.Tick()
		WaitReady(rt, time.Millisecond)
	}
}

// WaitReady waits up to d for the runtime to have replies waiting.
func WaitReady(rt *runtime.Runtime, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-rt.Ready():
	case <-t.C:
	}
}

// Outcome pumps until id settles and takes its outcome.
func Outcome(t testing.TB, rt *runtime.Runtime, id runtime.JobID) runtime.Outcome {
	t.Helper()
	PumpUntil(t, rt, func() bool { return rt.IsComplete(id) })
	o, ok := rt.TakeResult(id)
	require.True(t, ok)
	return o
}

// IsCancelled reports whether a job settled Cancelled (not merely whether
// cancel was requested).
func IsCancelled(rt *runtime.Runtime, id runtime.JobID) bool {
	_, st, ok := rt.Lookup(id)
	return ok && st == runtime.Cancelled
}

// JobErr is a failed outcome's *runtime.JobError, failing the test if err is
// not one.
func JobErr(t testing.TB, err error) *runtime.JobError {
	t.Helper()
	var je *runtime.JobError
	require.ErrorAs(t, err, &je)
	return je
}

// Stream is what Drain collected of a stream.
type Stream struct {
	// Items are the stream's batches' items, in order (nil when none came).
	Items    runtime.Items
	Batches  int
	MaxLen   int // the largest batch
	Progress uint64
	Detail   any
	Outcome  runtime.Outcome
}

// Add records one batch and reports whether it was the closing one.
func (r *Stream) Add(b *runtime.StreamBatch) bool {
	r.Batches++
	r.MaxLen = max(r.MaxLen, b.Len())
	if b.Items != nil {
		if r.Items == nil {
			r.Items = b.Items
		} else {
			r.Items = r.Items.Append(b.Items)
		}
	}
	if b.Closed {
		r.Outcome, r.Progress, r.Detail = b.Outcome, b.Progress, b.Detail
	}
	return b.Closed
}

// Drain ticks at the given frame cadence until stream id closes, failing
// after limit.
func Drain(t testing.TB, rt *runtime.Runtime, id runtime.JobID, frame, limit time.Duration) Stream {
	t.Helper()
	var res Stream
	deadline := time.Now().Add(limit)
	for {
		require.True(t, time.Now().Before(deadline), "stream %d did not close in time", id)
		rt.Tick()
		for _, b := range rt.TakeStreamBatches() {
			if b.ID == id && res.Add(&b) {
				return res
			}
		}
		WaitReady(rt, frame)
		if frame > time.Millisecond {
			time.Sleep(frame) // a frame cadence: replies pile up between drains
		}
	}
}

// DrainAll collects several streams until every one has closed.
func DrainAll(t testing.TB, rt *runtime.Runtime, limit time.Duration, ids ...runtime.JobID) map[runtime.JobID]*Stream {
	t.Helper()
	res := make(map[runtime.JobID]*Stream, len(ids))
	for _, id := range ids {
		res[id] = &Stream{}
	}
	open := len(ids)
	deadline := time.Now().Add(limit)
	for open > 0 {
		require.True(t, time.Now().Before(deadline), "%d streams did not close in time", open)
		rt.Tick()
		for _, b := range rt.TakeStreamBatches() {
			if r := res[b.ID]; r != nil && r.Add(&b) {
				open--
			}
		}
		WaitReady(rt, time.Millisecond)
	}
	return res
}

// BestOfThree runs attempt up to three times and returns the shortest time
// it measured, stopping as soon as one attempt is within bound. Under the
// race detector on a loaded two-core machine one attempt can wait a long
// time for a core; a cancel that did not work would miss the bound in all
// three.
func BestOfThree(bound time.Duration, attempt func() time.Duration) time.Duration {
	best := time.Duration(1<<63 - 1)
	for range 3 {
		best = min(best, attempt())
		if best < bound {
			break
		}
	}
	return best
}
