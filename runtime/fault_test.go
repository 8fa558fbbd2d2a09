package runtime

import (
	"bytes"
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
	"github.com/pmacs-go/pmacs-go/workers"
)

// Fault tests (issue 8). Faults proved elsewhere, not repeated here:
//   - a handler that panics in each lane, and a mutating handler that panics
//     (actor fatal, later jobs refused): TestPanickingHandlersSettleWithClearErrors
//     in external_test.go;
//   - malformed envelopes injected on the bus: TestMalformedReplyIsDroppedNotPanicked
//     in runtime_test.go, and FuzzReplyDecode in wire_test.go;
//   - an external job that never completes and is cancelled:
//     TestExternalJobThatNeverCompletesIsCancelled in external_test.go.

// A worker whose handler sends malformed envelopes (garbage bytes, a reply
// of an unknown kind for a job nobody knows, a reply for an unknown job,
// items for a request/reply job) before its real reply: the main goroutine
// counts and drops the garbage, the job settles once with its real value,
// and the loop goes on serving other jobs. (An undecodable reply that names
// a running job fails that job: TestUndecodableReplyForAKnownJobFailsIt.)
func TestMalformedRepliesFromAWorkerNeverStopTheLoop(t *testing.T) {
	rt := newRT(t, 2)
	j := rt.newJob(KindComputeSum, "")
	rt.start(j, BuiltinActor, workers.LaneRead, func(ctx context.Context, w *Task) reply {
		_ = rt.wbus.SendEnvelope(busEnvelope([]byte{0xc1}))
		_ = rt.wbus.SendEnvelope(busEnvelope([]byte{0x92, 0xcd, 0x30, 0x39, 0x7f})) // job 12345
		_ = rt.wbus.SendEnvelope(busEnvelope(bytes.Repeat([]byte{0xdd, 0xff, 0xff, 0xff, 0xff}, 8)))
		_ = rt.wbus.Send(replyTopic, &reply{Job: 1 << 40, Kind: replySum, N: 1})
		_ = rt.wbus.Send(replyTopic, intsReply(w.ID(), 1, 2)) // items for a request/reply job
		return reply{Kind: replySum, N: 7}
	})
	var settles int
	tickUntil(t, rt, 2*time.Second, func(out TickOutcome) bool {
		for _, id := range out.Settled {
			require.Equal(t, j.id, id)
			settles++
		}
		return rt.IsComplete(j.id)
	})
	require.Equal(t, 1, settles)
	o, ok := rt.TakeResult(j.id)
	require.True(t, ok)
	require.Equal(t, Outcome{State: Complete, value: uint64(7)}, o)
	// The items count too: a request/reply kind has no codec to read them.
	require.Equal(t, uint64(4), rt.MalformedReplies())
	require.Equal(t, uint64(10), outcomeOf(t, rt, rt.DispatchSum(4, DispatchOptions{})).value, "the loop goes on")
	require.Zero(t, rt.PendingLen())
}

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

	rt, err := New(Options{Executor: workers.Config{PoolSize: 2}, StreamCredit: 500})
	require.NoError(t, err)
	defer rt.Close()
	_, err = rt.RegisterRoot(root)
	require.NoError(t, err)
	streams := map[JobID]bool{}
	ids := []JobID{
		rt.DispatchSleep(time.Hour, DispatchOptions{}),
		rt.DispatchSum(1<<62, DispatchOptions{}),
		dispatchKeptUntilCancelled(rt, DispatchOptions{}),
		rt.DispatchReadDir(root, fsops.PerEntry, DispatchOptions{}),
		rt.DispatchStat(root, DispatchOptions{}),
		rt.DispatchRename(filepath.Join(root, "f0.txt"), filepath.Join(root, "g.txt"), false, DispatchOptions{}),
	}
	for _, id := range []JobID{
		rt.DispatchEmitN(1<<40, DispatchOptions{}),
		rt.DispatchEmitN(1<<40, DispatchOptions{}),
		rt.DispatchGrep(grep.Spec{Root: root, Pattern: "needle"}, DispatchOptions{}),
	} {
		ids = append(ids, id)
		streams[id] = true
	}
	held := ids[len(ids)-2]
	rt.HoldStream(held, true) // nobody drains this one until after Close
	for range 20 {            // more than the pool: these wait in queues
		ids = append(ids, rt.DispatchSleep(time.Hour, DispatchOptions{}))
	}
	ext, extCtx := rt.RegisterExternal(kindReply, "hover")
	ids = append(ids, ext)

	// Let the jobs get going, taking some stream batches as an editor would.
	tickUntil(t, rt, 2*time.Second, func(TickOutcome) bool {
		rt.TakeStreamBatches()
		return len(rt.Snapshot().Active) == len(ids)
	})
	rt.Close()
	require.ErrorIs(t, extCtx.Err(), context.Canceled, "Close cancels the external job's context")
	rt.CompleteExternalCancelled(ext) // its owner gives up, as the context asks
	rt.HoldStream(held, false)        // and the held stream's consumer takes its closing batch

	settled := map[JobID]int{}
	states := map[JobID]Outcome{}
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
		waitReady(rt, time.Millisecond)
	}
	for _, id := range ids {
		require.Equal(t, 1, settled[id], "job %d settles exactly once", id)
		o := states[id]
		switch o.State {
		case Cancelled, Complete:
		case Failed:
			require.True(t, errors.Is(o.Err, workers.ErrShutdown), "job %d: %v", id, o.Err)
		default:
			t.Fatalf("job %d still %v", id, o.State)
		}
	}
	require.Zero(t, rt.PendingLen())
	require.Zero(t, rt.SupersedeLen())
	require.Zero(t, rt.Stats().Held)
}
