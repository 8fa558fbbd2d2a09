package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/fsops"
	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/kinds/demojob"
	"github.com/pmacs-go/pmacs-go/kinds/fsjob"
	"github.com/pmacs-go/pmacs-go/kinds/kindtest"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/workers"
)

// Close while every kind of job runs or waits in a queue: sleeps, sums,
// undrained and drained streams, a grep, a parse-like job, filesystem jobs and an
// external job. Every job settles exactly once at a later Tick (cancelled,
// failed with the shutdown code, or complete if it had finished), the tables
// empty, and no goroutine outlives the test (TestMain's goleak).
func TestCloseWhileJobsRunSettlesEveryJob(t *testing.T) {
	root := t.TempDir()
	var body []byte
	for i := range 2000 {
		body = fmt.Appendf(body, "line %d needle\n", i)
	}
	for i := range 20 {
		require.NoError(t, os.WriteFile(filepath.Join(root, fmt.Sprintf("f%d.txt", i)), body, 0o644))
	}

	rt, err := runtime.New(runtime.Options{Executor: workers.Config{PoolSize: 2}, StreamCredit: 500})
	require.NoError(t, err)
	defer rt.Close()
	_, err = rt.RegisterRoot(root)
	require.NoError(t, err)
	streams := map[runtime.JobID]bool{}
	ids := []runtime.JobID{
		demojob.DispatchSleep(rt, time.Hour, runtime.DispatchOptions{}),
		demojob.DispatchSum(rt, 1<<62, runtime.DispatchOptions{}),
		rt.DispatchKeptUntilCancelled(runtime.DispatchOptions{}),
		fsjob.ReadDir(rt, root, fsops.PerEntry, fsjob.Scope{}, runtime.DispatchOptions{}),
		fsjob.Stat(rt, root, fsjob.Scope{}, runtime.DispatchOptions{}),
		fsjob.Rename(rt, filepath.Join(root, "f0.txt"), filepath.Join(root, "g.txt"), false, fsjob.Scope{}, runtime.DispatchOptions{}),
	}
	for _, id := range []runtime.JobID{
		demojob.DispatchEmitN(rt, 1<<40, runtime.DispatchOptions{}),
		demojob.DispatchEmitN(rt, 1<<40, runtime.DispatchOptions{}),
		rt.DispatchGrep(grep.Spec{Root: root, Pattern: "needle"}, runtime.DispatchOptions{}),
	} {
		ids = append(ids, id)
		streams[id] = true
	}
	held := ids[len(ids)-2]
	rt.HoldStream(held, true) // nobody drains this one until after Close
	for range 20 {            // more than the pool: these wait in queues
		ids = append(ids, demojob.DispatchSleep(rt, time.Hour, runtime.DispatchOptions{}))
	}
	ext, extCtx := rt.RegisterExternal(kindExternal, "hover")
	ids = append(ids, ext)

	// Let the jobs get going, taking some stream batches as an editor would.
	kindtest.PumpUntil(t, rt, func() bool {
		rt.TakeStreamBatches()
		return len(rt.Snapshot().Active) == len(ids)
	})
	rt.Close()
	require.ErrorIs(t, extCtx.Err(), context.Canceled, "Close cancels the external job's context")
	rt.CompleteExternalCancelled(ext) // its owner gives up, as the context asks
	rt.HoldStream(held, false)        // and the held stream's consumer takes its closing batch

	settled := map[runtime.JobID]int{}
	states := map[runtime.JobID]runtime.Outcome{}
	deadline := time.Now().Add(5 * time.Second)
	for len(states) < len(ids) {
		if time.Now().After(deadline) {
			for _, id := range ids {
				if _, ok := states[id]; !ok {
					kind, st, _ := rt.Lookup(id)
					t.Logf("job %d (%v) still %v, settled %d times", id, kind, st, settled[id])
				}
			}
			t.Fatalf("%d of %d jobs settled after Close", len(states), len(ids))
		}
		for _, id := range rt.Tick().Settled {
			settled[id]++
		}
		for _, b := range rt.TakeStreamBatches() {
			if b.Closed {
				states[b.ID] = b.Outcome
			}
		}
		for _, id := range ids {
			if !streams[id] {
				if o, ok := rt.TakeResult(id); ok {
					states[id] = o
				}
			}
		}
		kindtest.WaitReady(rt, time.Millisecond)
	}
	for _, id := range ids {
		require.Equal(t, 1, settled[id], "job %d settles exactly once", id)
		o := states[id]
		switch o.State {
		case runtime.Cancelled, runtime.Complete:
		case runtime.Failed:
			require.True(t, errors.Is(o.Err, workers.ErrShutdown), "job %d: %v", id, o.Err)
		default:
			t.Fatalf("job %d still %v", id, o.State)
		}
	}
	require.Zero(t, rt.PendingLen())
	require.Zero(t, rt.SupersedeLen())
	require.Zero(t, rt.Stats().Held)
}
