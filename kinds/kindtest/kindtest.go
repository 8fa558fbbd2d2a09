// Package kindtest holds what the tests of the kind packages share: a
// runtime closed with the test, and the loop that pumps it until a job
// settles. It is for tests only.
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
