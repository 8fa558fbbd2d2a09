//go:build linux

package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/proctest"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// teardownBound is the bound on every teardown.
const teardownBound = 3 * time.Second

// startHostile starts the fake server behind a shell that makes its tree
// misbehave as kind says (see proctest.Hostile), waits until it has
// answered initialize, and returns the client and the misbehaving
// descendant once it is in place. With IgnoreTerm the server also ignores
// shutdown and exit. With FullPipe the flood of garbage may beat the
// initialize reply (a slow start): the teardown is then tested all the same.
func startHostile(t *testing.T, rt *runtime.Runtime, kind string, cfg Config) (*Client, proctest.Proc) {
	t.Helper()
	pf := filepath.Join(t.TempDir(), "pid")
	prefix, comm := proctest.Hostile(kind, pf)
	cfg.Argv = []string{"sh", "-c", prefix + "exec '" + strings.ReplaceAll(os.Args[0], "'", `'\''`) + "'"}
	cfg.Env = []string{fakeServerEnv + "=1", "GORACE=atexit_sleep_ms=0"}
	if kind == proctest.IgnoreTerm {
		cfg.Env = append(cfg.Env, fakeIgnoreTermEnv+"=1", fakeNoShutdown+"=1")
	}
	c, err := Start(rt, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	if kind == proctest.FullPipe {
		deadline := time.Now().Add(5 * time.Second)
		for !c.Initialized() && time.Now().Before(deadline) {
			c.Poll(0)
			rt.Tick()
			time.Sleep(time.Millisecond)
		}
	} else {
		pump(t, rt, c, 10*time.Second, c.Initialized)
	}
	gc := proctest.Track(t, pf)
	gc.WaitFor(t, "the descendant in place", proctest.Detached(comm))
	return c, gc
}

// Issue 25, teardown: Close returns within 3 s whatever the server's tree
// does (a setsid grandchild holding stdout; shutdown, exit and SIGTERM
// ignored; stdout full while nobody polls; a stdout an escaped process
// never closes), and then neither the server nor its grandchild is running
// or a zombie (except the escaped one, which only the exit's proc.EndAll
// ends).
func TestCloseEndsTheServerTree(t *testing.T) {
	for _, kind := range proctest.Cases {
		t.Run(kind, func(t *testing.T) {
			rt := newRT(t)
			c, gc := startHostile(t, rt, kind, Config{})
			if kind == proctest.FullPipe {
				// A flood nobody polls: the inbox fills, the reader
				// stops, and the server blocks on its full pipe.
				c.Request("fake/flood", map[string]any{"n": 10 * inboxHighWater}, RequestOptions{})
			}
			server := proctest.Follow(t, c.p.Pid())
			start := time.Now()
			require.NoError(t, c.Close())
			require.Less(t, time.Since(start), teardownBound)
			require.Zero(t, server.State(), "the server is reaped when Close returns")
			if kind != proctest.NeverClose {
				proctest.Gone(t, teardownBound, gc)
			}
		})
	}
}

// Issue 25, client:stop(): StopJob's job completes only once the server has
// exited, its tree has ended and it has been reaped: when it settles,
// neither the server nor its setsid grandchild is there, not even as a
// zombie. Its value is the server's exit.
func TestStopJobSettlesOnceTheServerIsReaped(t *testing.T) {
	rt := newRT(t)
	c, gc := startHostile(t, rt, proctest.Grandchild, Config{})
	server := proctest.Follow(t, c.p.Pid())
	job := c.StopJob()
	require.Equal(t, job, c.StopJob(), "a second call gives the same job")
	pump(t, rt, c, 10*time.Second, func() bool { return rt.IsComplete(job) })
	require.Zero(t, server.State(), "the server is reaped when the job settles")
	require.Zero(t, gc.State(), "its grandchild is gone when the job settles")
	o, ok := rt.TakeResult(job)
	require.True(t, ok)
	require.Equal(t, runtime.Complete, o.State, "%v", o.Err)
	v, _ := o.External()
	require.Len(t, v, 1, "no signal: %v", v)
	require.EqualValues(t, 0, v.(map[string]any)["code"])
}

// Issue 25, client:stop(): a server that ignores shutdown, exit and SIGTERM
// is killed within the budget (SIGTERM at StopGrace, SIGKILL a second
// later), and StopJob's job completes within 3 s naming SIGKILL.
func TestStopJobKillsAServerThatIgnoresEverything(t *testing.T) {
	rt := newRT(t)
	c, gc := startHostile(t, rt, proctest.IgnoreTerm, Config{})
	start := time.Now()
	job := c.StopJob()
	pump(t, rt, c, 10*time.Second, func() bool { return rt.IsComplete(job) })
	require.Less(t, time.Since(start), teardownBound)
	require.Zero(t, gc.State())
	o, _ := rt.TakeResult(job)
	require.Equal(t, runtime.Complete, o.State, "%v", o.Err)
	v, _ := o.External()
	require.Equal(t, "SIGKILL", v.(map[string]any)["signal"])
}

// A stop job that is cancelled settles Cancelled at once; the server is
// stopped all the same. A StopJob after the client is gone completes at
// once.
func TestStopJobCancelAndAfterTheEnd(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{}, fakeNoShutdown+"=1")
	pump(t, rt, c, 10*time.Second, c.Initialized)
	job := c.StopJob()
	rt.Cancel(job)
	pump(t, rt, c, 10*time.Second, func() bool { return rt.IsComplete(job) })
	o, _ := rt.TakeResult(job)
	require.Equal(t, runtime.Cancelled, o.State)
	pump(t, rt, c, 10*time.Second, gone(c))
	again := c.StopJob()
	pump(t, rt, c, 10*time.Second, func() bool { return rt.IsComplete(again) })
	o, _ = rt.TakeResult(again)
	require.Equal(t, runtime.Complete, o.State, "%v", o.Err)
	v, _ := o.External()
	require.Equal(t, "SIGTERM", v.(map[string]any)["signal"])
}
