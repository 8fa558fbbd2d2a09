//go:build linux

package procjob

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/proctest"
	"github.com/pmacs-go/pmacs-go/workers"
)

// TestTeardownWorstCase measures, for each misbehaviour of proctest.Cases,
// the worst time over PMACS_TEARDOWN_RUNS runs of runtime.Close with a
// spawn running the misbehaving program, and of a spawn's cancel (until
// its stream closes). Opt-in: scripts/teardown.sh runs it with the other
// components' tables and prints them together.
func TestTeardownWorstCase(t *testing.T) {
	runs := proctest.Runs(t)
	subreaper(t)
	for _, kind := range proctest.Cases {
		var closing, cancelling proctest.Timings
		for range runs {
			rt, err := New(Options{Executor: workers.Config{PoolSize: 2}})
			require.NoError(t, err)
			_, gc := hostileSpawn(t, rt, kind, DispatchOptions{})
			closing.Time(rt.Close)
			settle(t, kind, gc)
		}
		for range runs {
			rt := newRT(t, 2)
			id, gc := hostileSpawn(t, rt, kind, DispatchOptions{})
			cancelling.Time(func() {
				rt.Cancel(id)
				drainSpawn(t, rt, id)
			})
			settle(t, kind, gc)
			rt.Close()
		}
		proctest.Report(t, "runtime.Close (spawn job)", kind, closing)
		proctest.Report(t, "spawn job cancel", kind, cancelling)
	}
}

// settle checks that a run's grandchild is gone, or ends it when it was
// the escaped one, so that the runs do not pile up processes.
func settle(t *testing.T, kind string, gc proctest.Proc) {
	t.Helper()
	if kind == proctest.NeverClose {
		gc.Kill()
	}
	proctest.Gone(t, teardownBound, gc)
}
