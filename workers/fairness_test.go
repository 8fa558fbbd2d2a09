package workers

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// startLog records the order in which jobs are admitted. Once attached to an
// executor it logs admissions from the scheduler itself; unattached, its jobs
// log when they start, which under CPU load also measures the Go scheduler.
type startLog struct {
	mu       sync.Mutex
	order    []ActorID
	attached bool
}

// attach makes the log record e's admissions, in the scheduler's order.
func (l *startLog) attach(e *Executor) {
	l.attached = true
	e.mu.Lock()
	e.sched.onAdmit = func(id ActorID) {
		l.mu.Lock()
		l.order = append(l.order, id)
		l.mu.Unlock()
	}
	e.mu.Unlock()
}

func (l *startLog) job(id ActorID) Job {
	return l.jobFor(id, 0)
}

// jobFor returns a job that logs its start and then works for d. A job that
// lasts far longer than a goroutine hand-off makes the order of starts the
// order of admission, which is what the scheduler decides; with no-op jobs a
// worker that keeps picking its next job can run several before a freshly
// woken one gets a core, and the start order would measure the Go scheduler.
func (l *startLog) jobFor(id ActorID, d time.Duration) Job {
	return func(context.Context, Actor) (any, error) {
		if !l.attached {
			l.mu.Lock()
			l.order = append(l.order, id)
			l.mu.Unlock()
		}
		if d > 0 {
			time.Sleep(d)
		}
		return nil, nil
	}
}

const fairJobTime = 200 * time.Microsecond

// occupy fills every worker with a blocked job on the given actors, so that
// work submitted next queues up whole before anything is admitted.
func occupy(t *testing.T, e *Executor, release <-chan struct{}, ids ...ActorID) []pending {
	t.Helper()
	started := make(chan struct{}, len(ids))
	var hs []pending
	for _, id := range ids {
		hs = append(hs, submit(e, id, LaneRead, "occupy", blocker(started, release, nil)))
	}
	for range ids {
		<-started
	}
	return hs
}

func countIn(order []ActorID, id ActorID) int {
	n := 0
	for _, o := range order {
		if o == id {
			n++
		}
	}
	return n
}

// Acceptance: fairness: with two workers and three busy actors, deficit round
// robin gives each actor a third of the starts; a scheduler that always served
// the first actor with admissible work would never start the third actor's
// jobs until the first two ran dry.
func TestRoundRobinDoesNotStarveThirdActor(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 2}, "x", "y", "a", "b", "c")
	release, open := holdJobs(t)
	busy := occupy(t, e, release, "x", "y")

	var log startLog
	log.attach(e)
	var hs []pending
	for _, id := range []ActorID{"a", "b", "c"} {
		for range 30 {
			hs = append(hs, submit(e, id, LaneRead, "work", log.jobFor(id, fairJobTime)))
		}
	}
	open()
	for _, h := range append(busy, hs...) {
		require.NoError(t, recv(t, h).Err)
	}
	first := log.order[:30]
	for _, id := range []ActorID{"a", "b", "c"} {
		require.InDelta(t, 10, countIn(first, id), 2, "starts of %s among the first 30: %v", id, first)
	}
}

// Acceptance: fairness between two busy actors: even though either actor
// could fill three of the four workers, starts interleave close to evenly
// instead of going to whichever actor queued first.
func TestTwoBusyActorsInterleaveEvenly(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 4}, "x", "y", "a", "b")
	release, open := holdJobs(t)
	busy := occupy(t, e, release, "x", "x", "x", "y")

	var log startLog
	log.attach(e)
	var hs []pending
	for _, id := range []ActorID{"a", "b"} {
		for range 200 {
			hs = append(hs, submit(e, id, LaneRead, "work", log.jobFor(id, fairJobTime)))
		}
	}
	open()
	for _, h := range append(busy, hs...) {
		require.NoError(t, recv(t, h).Err)
	}
	first := log.order[:200]
	require.InDelta(t, 100, countIn(first, "a"), 25, "starts of a among the first 200")
}

// Acceptance: deficit round robin: the quantum is how many jobs an actor
// starts per visit. With a single free worker the order of starts is exactly
// the scheduler's, so it can be checked whole.
func TestQuantumSetsJobsStartedPerVisit(t *testing.T) {
	for _, c := range []struct {
		quantum int
		want    string
	}{
		{1, "abababababab"},
		{3, "aaabbbaaabbb"},
	} {
		e := newExecutor(t, Config{PoolSize: 2, Quantum: c.quantum}, "x", "y", "a", "b")
		releaseX, openX := holdJobs(t)
		releaseY, openY := holdJobs(t)
		busy := append(occupy(t, e, releaseX, "x"), occupy(t, e, releaseY, "y")...)

		var log startLog
		log.attach(e)
		var hs []pending
		for _, id := range []ActorID{"a", "b"} {
			for range 6 {
				hs = append(hs, submit(e, id, LaneRead, "work", log.job(id)))
			}
		}
		openX() // one worker runs all twelve, y's keeps the other
		for _, h := range hs {
			require.NoError(t, recv(t, h).Err)
		}
		openY()
		for _, h := range busy {
			require.NoError(t, recv(t, h).Err)
		}
		got := ""
		for _, id := range log.order {
			got += string(id)
		}
		require.Equal(t, c.want, got, "quantum %d", c.quantum)
		e.Close()
	}
}
