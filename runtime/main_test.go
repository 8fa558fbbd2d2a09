package runtime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/workers"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newRT returns a runtime with a pool of the given size that is closed when
// the test ends.
func newRT(t testing.TB, pool int) *Runtime {
	t.Helper()
	rt, err := New(Options{Executor: workers.Config{PoolSize: pool}})
	require.NoError(t, err)
	t.Cleanup(rt.Close)
	return rt
}

// pumpUntil ticks until cond holds, failing after two seconds.
func pumpUntil(t testing.TB, rt *Runtime, cond func() bool) {
	t.Helper()
	pumpFor(t, rt, 2*time.Second, cond)
}

func pumpFor(t testing.TB, rt *Runtime, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		require.True(t, time.Now().Before(deadline), "runtime tick deadline exceeded")
		rt.Tick()
		waitReady(rt, time.Millisecond)
	}
}

// waitReady blocks until replies are waiting or d passes: the loop shape an
// editor uses instead of sleeping.
func waitReady(rt *Runtime, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-rt.Ready():
	case <-t.C:
	}
}

// outcomeOf pumps until id settles and takes its outcome.
func outcomeOf(t testing.TB, rt *Runtime, id JobID) Outcome {
	t.Helper()
	pumpUntil(t, rt, func() bool { return rt.IsComplete(id) })
	o, ok := rt.TakeResult(id)
	require.True(t, ok)
	return o
}

// streamResult collects a stream until its closing batch.
type streamResult struct {
	ints     []uint64
	matches  []grep.Match
	batches  int
	maxLen   int
	progress uint64
	skipped  grep.SkipCounts
	outcome  Outcome
}

// add records one batch and reports whether it was the closing one.
func (r *streamResult) add(b *StreamBatch) bool {
	r.batches++
	r.maxLen = max(r.maxLen, b.Len())
	r.ints = append(r.ints, intsOf(*b)...)
	r.matches = append(r.matches, matchesOf(*b)...)
	if b.Closed {
		r.outcome, r.progress = b.Outcome, b.Progress
		r.skipped, _ = b.Detail.(grep.SkipCounts)
	}
	return b.Closed
}

// drainStream ticks at the given frame cadence until stream id closes.
func drainStream(t testing.TB, rt *Runtime, id JobID, frame time.Duration, limit time.Duration) streamResult {
	t.Helper()
	var res streamResult
	deadline := time.Now().Add(limit)
	for {
		require.True(t, time.Now().Before(deadline), "stream %d did not close in time", id)
		rt.Tick()
		for _, b := range rt.TakeStreamBatches() {
			if b.ID == id && res.add(&b) {
				return res
			}
		}
		waitReady(rt, frame)
		if frame > time.Millisecond {
			time.Sleep(frame) // a frame cadence: replies pile up between drains
		}
	}
}

// tickUntil ticks until done, given every TickOutcome, returns true.
func tickUntil(t testing.TB, rt *Runtime, limit time.Duration, done func(TickOutcome) bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !done(rt.Tick()) {
		require.True(t, time.Now().Before(deadline), "runtime tick deadline exceeded")
		waitReady(rt, time.Millisecond)
	}
}
