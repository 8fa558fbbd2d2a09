package workers

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// parkedJob returns a job that parks until release is closed, counting the
// jobs inside their parking section in parked.
func parkedJob(parked *atomic.Int64, release <-chan struct{}, v any) Job {
	return func(_ context.Context, a Actor) (any, error) {
		a.Park(func() {
			parked.Add(1)
			defer parked.Add(-1)
			<-release
		})
		return v, nil
	}
}

// requireSettledBooks checks that every slot a job took has come back: no
// job in flight on the actors, every worker slot free and the pool back to
// its size.
func requireSettledBooks(t *testing.T, e *Executor, ids ...ActorID) {
	t.Helper()
	waitFor(t, "the pool to settle back to its size", func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		return e.sched.idle == e.cfg.PoolSize && e.goroutines == e.cfg.PoolSize && len(e.idle) == e.cfg.PoolSize
	})
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, id := range ids {
		a := e.actors[id]
		require.Zero(t, a.inflight, "actor %s", id)
		require.Zero(t, a.reads, "actor %s", id)
		require.False(t, a.writer, "actor %s", id)
		require.False(t, a.serial, "actor %s", id)
	}
	require.Equal(t, e.cfg.HeavyPermits, e.sched.heavyFree)
}

// Acceptance (issue 11, defect 1): a stream job parked on its consumer does
// not hold back a mutating job of its actor submitted after it started; the
// mutation settles while the stream is still parked.
func TestParkedStreamJobDoesNotBlockLaterMutatingJob(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 4}, "a")
	var parked atomic.Int64
	hold, release := holdJobs(t)
	stream := submit(e, "a", LaneStream, "grep", parkedJob(&parked, hold, "stream"))
	waitFor(t, "the stream to park", func() bool { return parked.Load() == 1 })

	rename := submit(e, "a", LaneMutating, "rename", value("renamed"))
	require.Equal(t, "renamed", recv(t, rename).Value)
	_, settled := settledWithin(stream, 0)
	require.False(t, settled, "the stream is still parked")

	release()
	require.Equal(t, "stream", recv(t, stream).Value)
	requireSettledBooks(t, e, "a")
}

// Acceptance: a stream job runs holding no gate, parked or not: a mutating
// job submitted after the stream started runs while the stream computes.
func TestStreamJobHoldsNoGateWhileRunning(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 4}, "a")
	started := make(chan struct{}, 1)
	hold, release := holdJobs(t)
	stream := submit(e, "a", LaneStream, "emit", blocker(started, hold, "stream"))
	<-started
	require.Equal(t, "renamed", recv(t, submit(e, "a", LaneMutating, "rename", value("renamed"))).Value)
	release()
	require.Equal(t, "stream", recv(t, stream).Value)
}

// Acceptance: a stream starts only after every mutating job of its actor
// submitted before it has finished, like a read.
func TestStreamStartsAfterEarlierMutatingJobs(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 4}, "a")
	shared := 0 // written under the write gate, read by the stream after it
	started := make(chan struct{}, 1)
	hold, release := holdJobs(t)
	write := submit(e, "a", LaneMutating, "write", func(context.Context, Actor) (any, error) {
		started <- struct{}{}
		<-hold
		shared = 1
		return nil, nil
	})
	<-started
	stream := submit(e, "a", LaneStream, "grep", func(context.Context, Actor) (any, error) { return shared, nil })
	e.mu.Lock()
	queued := e.actors["a"].queue.n
	e.mu.Unlock()
	require.Equal(t, 1, queued, "the stream waits in the queue behind the write")
	release()
	require.NoError(t, recv(t, write).Err)
	require.Equal(t, 1, recv(t, stream).Value)
}

// Acceptance (issue 11, defect 1): parked jobs give up their ActorCap and
// worker slots. More parked stream jobs than the actor cap and the whole pool
// do not stop a read and a mutation of the same actor, nor another actor's
// work; substitutes run them, and the pool shrinks back to its size after.
func TestParkedJobsFillingActorCapAndPoolDoNotStopOtherWork(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 2}, "a", "b") // ActorCap 1
	var parked atomic.Int64
	hold, release := holdJobs(t)
	var streams []pending
	for i := range 5 {
		streams = append(streams, submit(e, "a", LaneStream, "stream", parkedJob(&parked, hold, i)))
	}
	waitFor(t, "five streams parked", func() bool { return parked.Load() == 5 })

	require.Equal(t, "read", recv(t, submit(e, "a", LaneRead, "read", value("read"))).Value)
	require.Equal(t, "write", recv(t, submit(e, "a", LaneMutating, "write", value("write"))).Value)
	require.Equal(t, "other", recv(t, submit(e, "b", LaneSerial, "other", value("other"))).Value)

	release()
	for i, h := range streams {
		require.Equal(t, i, recv(t, h).Value)
	}
	requireSettledBooks(t, e, "a", "b")
}

// Acceptance: several goroutines of one read job may park at once. The job
// gives up its read gate while any of them is parked, so a mutating job can
// run meanwhile, and takes it back when the last one leaves.
func TestConcurrentParksOfOneReadJobGiveUpTheGateOnce(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 4}, "a")
	var parked atomic.Int64
	hold, release := holdJobs(t)
	const fanout = 8
	shared := 0 // guarded by the actor's gate
	read := submit(e, "a", LaneRead, "grep", func(_ context.Context, a Actor) (any, error) {
		var wg sync.WaitGroup
		for range fanout {
			wg.Go(func() {
				a.Park(func() {
					parked.Add(1)
					<-hold
				})
			})
		}
		wg.Wait()
		return shared, nil // back under the gate: after the write
	})
	waitFor(t, "every fanout goroutine parked", func() bool { return parked.Load() == fanout })
	write := submit(e, "a", LaneMutating, "write", func(context.Context, Actor) (any, error) {
		shared = 1
		return nil, nil
	})
	require.NoError(t, recv(t, write).Err)
	release()
	require.Equal(t, 1, recv(t, read).Value)
	requireSettledBooks(t, e, "a")
}

// Acceptance: a job that returns while a goroutine it started is still
// parked, or a goroutine that parks after its job returned, leaves the books
// balanced: the job's slots come back exactly once and a late Park just
// runs its wait.
func TestParkOutlivingItsJobKeepsBooksBalanced(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 2}, "a")
	hold, release := holdJobs(t)
	var left sync.WaitGroup
	late := make(chan Actor, 1)
	for _, lane := range []Lane{LaneRead, LaneSerial, LaneHeavy, LaneStream} {
		entered := make(chan struct{})
		r := recv(t, submit(e, "a", lane, "leaves", func(_ context.Context, a Actor) (any, error) {
			left.Go(func() {
				a.Park(func() {
					close(entered)
					<-hold
				})
			})
			<-entered
			return "returned", nil
		}))
		require.Equal(t, "returned", r.Value)
		release()
		left.Wait()
		hold, release = holdJobs(t)
	}
	require.NoError(t, recv(t, submit(e, "a", LaneRead, "escapes", func(_ context.Context, a Actor) (any, error) {
		late <- a
		return nil, nil
	})).Err)
	ran := false
	(<-late).Park(func() { ran = true })
	require.True(t, ran)
	var outside Actor
	outside.Park(func() { ran = false })
	require.False(t, ran)

	require.Equal(t, "after", recv(t, submit(e, "a", LaneMutating, "after", value("after"))).Value)
	requireSettledBooks(t, e, "a")
}

// Acceptance: a panic inside a parking section closes the section and
// settles the job internal_error; the books stay balanced.
func TestPanicInsideParkSettlesAndBalancesBooks(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 2}, "a")
	for _, lane := range []Lane{LaneRead, LaneSerial, LaneHeavy, LaneStream} {
		r := recv(t, submit(e, "a", lane, "boom", func(_ context.Context, a Actor) (any, error) {
			a.Park(func() { panic("consumer gone") })
			return nil, nil
		}))
		requireCode(t, r.Err, ErrInternal, "boom")
	}
	requireSettledBooks(t, e, "a")
}

// Acceptance: a parked mutating job keeps its actor's write gate and barrier
// (a later read of that actor waits) but gives up its worker slot: with the
// whole pool parked in mutating jobs, another actor's job still runs.
func TestParkedMutatingJobKeepsBarrierButFreesItsWorker(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 2}, "a", "b", "c")
	var parked atomic.Int64
	hold, release := holdJobs(t)
	wa := submit(e, "a", LaneMutating, "wa", parkedJob(&parked, hold, "a"))
	wb := submit(e, "b", LaneMutating, "wb", parkedJob(&parked, hold, "b"))
	waitFor(t, "both writers parked", func() bool { return parked.Load() == 2 })

	readA := submit(e, "a", LaneRead, "read-a", value("read-a"))
	require.Equal(t, "c", recv(t, submit(e, "c", LaneRead, "c", value("c"))).Value)
	_, settled := settledWithin(readA, 0)
	require.False(t, settled, "a read ran past a parked writer's barrier")

	release()
	require.Equal(t, "a", recv(t, wa).Value)
	require.Equal(t, "b", recv(t, wb).Value)
	require.Equal(t, "read-a", recv(t, readA).Value)
	requireSettledBooks(t, e, "a", "b", "c")
}

// Acceptance: a parked serial job lets a mutating job of its actor run, but
// stays the actor's one serial job: a second serial job waits for it.
func TestParkedSerialJobLetsAWriterRunButNotAnotherSerialJob(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 4}, "a")
	var parked atomic.Int64
	hold, release := holdJobs(t)
	first := submit(e, "a", LaneSerial, "lsp-1", parkedJob(&parked, hold, 1))
	waitFor(t, "the serial job to park", func() bool { return parked.Load() == 1 })
	write := submit(e, "a", LaneMutating, "write", value("w"))
	require.Equal(t, "w", recv(t, write).Value)
	second := submit(e, "a", LaneSerial, "lsp-2", value(2))
	e.mu.Lock()
	queued := e.actors["a"].queue.n
	e.mu.Unlock()
	require.Equal(t, 1, queued, "two serial jobs of one actor overlapped")
	release()
	require.Equal(t, 1, recv(t, first).Value)
	require.Equal(t, 2, recv(t, second).Value)
	requireSettledBooks(t, e, "a")
}
