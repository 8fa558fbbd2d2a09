package workers

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// runGated submits jobs that each enter g, wait for one token, and leave. It
// waits until want jobs are inside at once, then hands out the tokens one by
// one, so a job that broke its bound would be sitting inside, inflating the
// peak, while the tokens trickle out.
func runGated(t *testing.T, e *Executor, g *gauge, want int, submits []func(Job) pending) {
	t.Helper()
	tokens := make(chan struct{})
	abandon, _ := holdJobs(t)
	handles := make([]pending, 0, len(submits))
	for _, submit := range submits {
		handles = append(handles, submit(func(context.Context, Actor) (any, error) {
			g.enter()
			defer g.leave()
			select {
			case <-tokens:
			case <-abandon:
			}
			return nil, nil
		}))
	}
	waitFor(t, "the bound to fill", func() bool { return g.cur.Load() == int64(want) })
	for i := range submits {
		select {
		case tokens <- struct{}{}:
		case <-time.After(5 * time.Second):
			t.Fatalf("token %d of %d found no job waiting for it: a queued job was never admitted", i+1, len(submits))
		}
	}
	for _, h := range handles {
		require.NoError(t, recv(t, h).Err)
	}
	require.Equal(t, int64(want), g.peak.Load())
}

func submitN(e *Executor, n int, id ActorID, lane Lane) []func(Job) pending {
	out := make([]func(Job) pending, n)
	for i := range out {
		out[i] = func(j Job) pending { return submit(e, id, lane, "job", j) }
	}
	return out
}

// Acceptance: read cap: at most ReadCap reads of one actor run at once, and
// the cap is reached.
func TestReadLaneRespectsReadCap(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 8, ReadCap: 2}, "a")
	var g gauge
	runGated(t, e, &g, 2, submitN(e, 10, "a", LaneRead))
}

// Acceptance: the serial lane runs one job at a time per actor, while two
// actors' serial jobs may overlap.
func TestSerialLaneRunsOneAtATimePerActor(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 8}, "a", "b")
	var g gauge
	runGated(t, e, &g, 1, submitN(e, 6, "a", LaneSerial))

	var both gauge
	runGated(t, e, &both, 2, append(submitN(e, 3, "a", LaneSerial), submitN(e, 3, "b", LaneSerial)...))
}

// Acceptance: heavy permit bound: heavy jobs across all actors never exceed
// HeavyPermits.
func TestHeavyPermitsBoundHeavyJobsAcrossActors(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 8, HeavyPermits: 2}, "a", "b", "c")
	var submits []func(Job) pending
	for _, id := range []ActorID{"a", "b", "c"} {
		submits = append(submits, submitN(e, 4, id, LaneHeavy)...)
	}
	var g gauge
	runGated(t, e, &g, 2, submits)
}

// Acceptance: actor cap: one actor never has more than ActorCap jobs in
// flight whatever the lane mix.
func TestActorCapBoundsEveryLaneTogether(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 8, ActorCap: 3, ReadCap: 2, HeavyPermits: 4}, "a")
	var submits []func(Job) pending
	for range 3 {
		submits = append(submits, submitN(e, 2, "a", LaneRead)...)
		submits = append(submits, submitN(e, 1, "a", LaneSerial)...)
		submits = append(submits, submitN(e, 2, "a", LaneHeavy)...)
	}
	var g gauge
	runGated(t, e, &g, 3, submits)
}

// Acceptance: writer barrier: a write waits for earlier in-flight reads to
// drain, is held in the queue (not parked on a worker) meanwhile, and reads
// queued after it see its effect.
func TestWriterBarrierDrainsEarlierReadsAndOrdersLaterOnes(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 8}, "a")
	shared := 0 // guarded by the actor's gate: the race detector checks it
	var readers gauge
	hold, release := holdJobs(t)

	var early []pending
	for range 3 {
		early = append(early, submit(e, "a", LaneRead, "early", func(context.Context, Actor) (any, error) {
			readers.enter()
			defer readers.leave()
			<-hold
			return shared, nil
		}))
	}
	waitFor(t, "three reads in flight", func() bool { return readers.cur.Load() == 3 })

	write := submit(e, "a", LaneMutating, "write", func(context.Context, Actor) (any, error) {
		seen := readers.cur.Load()
		shared = 1
		return seen, nil
	})
	var late []pending
	for range 3 {
		late = append(late, submit(e, "a", LaneRead, "late", func(context.Context, Actor) (any, error) { return shared, nil }))
	}

	e.mu.Lock()
	inflight, queued := e.actors["a"].inflight, e.actors["a"].queue.n
	e.mu.Unlock()
	require.Equal(t, 3, inflight, "the writer and later reads must wait in the queue")
	require.Equal(t, 4, queued)

	release()
	require.Equal(t, int64(0), recv(t, write).Value, "writer started while reads were in flight")
	for _, h := range early {
		require.Equal(t, 0, recv(t, h).Value)
	}
	for _, h := range late {
		require.Equal(t, 1, recv(t, h).Value)
	}
}

// Acceptance: filesystem mutations under one root execute in dispatch order,
// even with room for several jobs of the actor in flight.
func TestMutatingJobsRunOneAtATimeInSubmissionOrder(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 8}, "a")
	var order []int // guarded by the write gate
	var g gauge
	var handles []pending
	for i := range 50 {
		handles = append(handles, submit(e, "a", LaneMutating, "rename", func(context.Context, Actor) (any, error) {
			g.enter()
			defer g.leave()
			order = append(order, i)
			return nil, nil
		}))
		if i%10 == 0 {
			handles = append(handles, submit(e, "a", LaneRead, "read", value(nil)))
		}
	}
	for _, h := range handles {
		require.NoError(t, recv(t, h).Err)
	}
	want := make([]int, 50)
	for i := range want {
		want[i] = i
	}
	require.Equal(t, want, order)
	require.Equal(t, int64(1), g.peak.Load())
}

// Acceptance: a heavy job builds outside the actor's gate (it runs while a
// mutating job holds the gate) and settles only after its install point, a
// short write gate, which waits for that mutating job.
func TestHeavyJobBuildsOutsideGateAndInstallsUnderWriteGate(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 8}, "a")
	started := make(chan struct{}, 1)
	hold, release := holdJobs(t)
	write := submit(e, "a", LaneMutating, "write", blocker(started, hold, "w"))
	<-started

	built := make(chan struct{})
	heavy := submit(e, "a", LaneHeavy, "parse", func(context.Context, Actor) (any, error) {
		close(built)
		return "tree", nil
	})
	select {
	case <-built:
	case <-time.After(5 * time.Second):
		t.Fatal("heavy job did not build while the write gate was held")
	}
	_, settled := settledWithin(heavy, 20*time.Millisecond)
	require.False(t, settled, "heavy job settled before its install point")

	release()
	require.Equal(t, "w", recv(t, write).Value)
	require.Equal(t, "tree", recv(t, heavy).Value)
}

// Acceptance: the job sees its actor's ID; a second RegisterActor reports
// false and keeps the actor's queue.
func TestJobSeesItsActorAndReRegisterKeepsTheQueue(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 2}, "a")
	started := make(chan struct{}, 1)
	hold, release := holdJobs(t)
	running := submit(e, "a", LaneMutating, "hold", blocker(started, hold, nil))
	<-started
	queued := submit(e, "a", LaneRead, "who", func(_ context.Context, a Actor) (any, error) { return a.ID, nil })
	require.False(t, e.RegisterActor("a"))
	release()
	require.NoError(t, recv(t, running).Err)
	require.Equal(t, ActorID("a"), recv(t, queued).Value)
}

// Acceptance: many goroutines submitting to many actors at once all settle
// exactly once (run under -race).
func TestConcurrentSubmittersAllSettleOnce(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 4}, "a", "b", "c")
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[int]int{}
	lanes := []Lane{LaneRead, LaneSerial, LaneHeavy, LaneMutating}
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			done := make(chan Result, 100)
			for i := range 100 {
				id := ActorID([]string{"a", "b", "c"}[(g+i)%3])
				n := g*100 + i
				e.Submit(context.Background(), Task{Actor: id, Lane: lanes[i%4], Name: "n", Run: value(n),
					Done: func(r Result) { done <- r }})
			}
			for range 100 {
				r := <-done
				mu.Lock()
				seen[r.Value.(int)]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	require.Len(t, seen, 800)
	for n, c := range seen {
		require.Equal(t, 1, c, "job %d", n)
	}
}

// TestWorkerIdleLastRunsTheNextJob covers the idle stack: a job submitted
// to a quiet pool runs on the worker that went idle last, whose stack and
// caches are warm, rather than on the one idle longest.
func TestWorkerIdleLastRunsTheNextJob(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 4}, "a")
	ranOn := func() *worker {
		r := recv(t, submit(e, "a", LaneRead, "which", func(_ context.Context, a Actor) (any, error) {
			return a.run, nil
		}))
		require.NoError(t, r.Err)
		waitFor(t, "the pool idle again", func() bool {
			e.mu.Lock()
			defer e.mu.Unlock()
			return e.sched.idle == e.cfg.PoolSize
		})
		return r.Value.(*worker)
	}
	first := ranOn()
	for range 5 {
		require.Same(t, first, ranOn())
	}
}
