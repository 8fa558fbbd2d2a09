package workers

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// TestMain proves no test leaves a goroutine behind: Close joins every
// worker.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// newExecutor starts an executor that the test closes on cleanup.
func newExecutor(t testing.TB, cfg Config, actors ...ActorID) *Executor {
	t.Helper()
	e := New(cfg)
	t.Cleanup(e.Close)
	for _, id := range actors {
		require.True(t, e.RegisterActor(id))
	}
	return e
}

// gauge tracks how many jobs are inside a section at once and the peak.
type gauge struct {
	cur, peak atomic.Int64
}

func (g *gauge) enter() {
	n := g.cur.Add(1)
	for {
		p := g.peak.Load()
		if n <= p || g.peak.CompareAndSwap(p, n) {
			return
		}
	}
}

func (g *gauge) leave() { g.cur.Add(-1) }

// waitFor polls cond until it holds or a generous deadline passes.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// pending is a submitted job's Result to come.
type pending <-chan Result

// submit submits job with a context that never ends and returns where its
// Result arrives.
func submit(e *Executor, id ActorID, lane Lane, name string, job Job) pending {
	return submitTask(e, context.Background(), Task{Actor: id, Lane: lane, Name: name, Run: job})
}

// submitTask submits t, with a Done that sends the Result on the returned
// channel. A second Result for the same job panics, failing the test run:
// each job settles exactly once.
func submitTask(e *Executor, ctx context.Context, t Task) pending {
	ch := make(chan Result, 1)
	t.Done = func(r Result) {
		select {
		case ch <- r:
		default:
			panic("job " + t.Name + " settled twice")
		}
	}
	e.Submit(ctx, t)
	return ch
}

// recv waits, within a generous bound, for p's Result.
func recv(t testing.TB, p pending) Result {
	t.Helper()
	select {
	case r := <-p:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("job did not settle")
		return Result{}
	}
}

// settledWithin reports whether p's Result arrives within d, taking it if so.
func settledWithin(p pending, d time.Duration) (Result, bool) {
	if d <= 0 {
		select {
		case r := <-p:
			return r, true
		default:
			return Result{}, false
		}
	}
	select {
	case r := <-p:
		return r, true
	case <-time.After(d):
		return Result{}, false
	}
}

func value(v any) Job {
	return func(context.Context, Actor) (any, error) { return v, nil }
}

// holdJobs returns a channel that blocked jobs wait on and the func that
// releases them. The release also runs on cleanup, and cleanups run last in
// first out, so when this is called after newExecutor a failing test releases
// its blocked jobs before Close waits for them, and ends instead of hanging.
func holdJobs(t testing.TB) (<-chan struct{}, func()) {
	ch := make(chan struct{})
	release := sync.OnceFunc(func() { close(ch) })
	t.Cleanup(release)
	return ch, release
}

// blocker returns a job that signals when it starts and returns when release
// is closed.
func blocker(started chan<- struct{}, release <-chan struct{}, v any) Job {
	return func(context.Context, Actor) (any, error) {
		if started != nil {
			started <- struct{}{}
		}
		<-release
		return v, nil
	}
}
