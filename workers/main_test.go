package workers

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// TestMain proves no test leaves a goroutine behind: Close joins every worker
// and every late-delivery sender.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// newExecutor starts an executor that the test closes on cleanup.
func newExecutor(t testing.TB, cfg Config, actors ...ActorID) *Executor {
	t.Helper()
	e := New(cfg)
	t.Cleanup(e.Close)
	for _, id := range actors {
		require.True(t, e.RegisterActor(id, "ctx:"+string(id)))
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

func recv(t testing.TB, h *Handle) Result {
	t.Helper()
	r, ok := h.RecvTimeout(5 * time.Second)
	require.True(t, ok, "job did not settle")
	return r
}

func value(v any) Job {
	return func(Actor) (any, error) { return v, nil }
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
	return func(Actor) (any, error) {
		if started != nil {
			started <- struct{}{}
		}
		<-release
		return v, nil
	}
}
