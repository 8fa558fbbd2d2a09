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

// The helpers below are kindtest's, which this package's own tests cannot
// import (kindtest imports runtime); the tests in package runtime_test use
// kindtest.

// newRT returns a runtime with a pool of the given size that is closed when
// the test ends.
func newRT(t testing.TB, pool int) *Runtime {
	t.Helper()
	rt, err := New(Options{Executor: workers.Config{PoolSize: pool}})
	require.NoError(t, err)
	t.Cleanup(rt.Close)
	return rt
}

// pumpUntil ticks until cond holds, failing after ten seconds: what it
// waits for takes milliseconds, but a loaded machine running the race
// detector has taken more than two.
func pumpUntil(t testing.TB, rt *Runtime, cond func() bool) {
	t.Helper()
	pumpFor(t, rt, 10*time.Second, cond)
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

// streamResult is what a stream delivered: its items and how it closed.
type streamResult struct {
	ints    []uint64
	matches []grep.Match
	outcome Outcome
}

// drainStream ticks until stream id closes, failing after limit; the other
// streams' batches are dropped.
func drainStream(t testing.TB, rt *Runtime, id JobID, limit time.Duration) streamResult {
	t.Helper()
	var res streamResult
	closed := false
	pumpFor(t, rt, limit, func() bool {
		for _, b := range rt.TakeStreamBatches() {
			if b.ID == id {
				res.ints = append(res.ints, intsOf(b)...)
				res.matches = append(res.matches, matchesOf(b)...)
				res.outcome, closed = b.Outcome, b.Closed
			}
		}
		return closed
	})
	return res
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
