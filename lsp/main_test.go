package lsp

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pmacs-go/pmacs-go/proc"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/workers"
)

func TestMain(m *testing.M) {
	if os.Getenv(fakeServerEnv) != "" {
		runFakeServer()
		os.Exit(0)
	}
	// The teardown tests check that a server's grandchildren are gone, not
	// zombies of an init that never reaps: the test binary reaps them.
	if err := proc.BecomeSubreaper(); err != nil {
		fmt.Fprintln(os.Stderr, "lsp tests: cannot become a subreaper:", err)
		os.Exit(2)
	}
	goleak.VerifyTestMain(m)
}

func newRT(t testing.TB) *runtime.Runtime {
	t.Helper()
	rt, err := runtime.New(runtime.Options{Executor: workers.Config{PoolSize: 2}})
	require.NoError(t, err)
	t.Cleanup(rt.Close)
	return rt
}

// startFake starts the fake server; the client is closed when the test
// ends, before the runtime.
func startFake(t testing.TB, rt *runtime.Runtime, cfg Config, env ...string) *Client {
	t.Helper()
	cfg.Argv = []string{os.Args[0]}
	// The race runtime sleeps a second before a clean exit unless told
	// not to; the fake exits cleanly after every Stop.
	cfg.Env = append([]string{fakeServerEnv + "=1", "GORACE=atexit_sleep_ms=0"}, env...)
	c, err := Start(rt, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c
}

// pump runs frames (Poll, then Tick) until cond holds, failing after limit.
func pump(t testing.TB, rt *runtime.Runtime, c *Client, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		c.Poll(0)
		rt.Tick()
		if cond() {
			return
		}
		require.True(t, time.Now().Before(deadline), "frame loop deadline exceeded")
		select {
		case <-c.Ready():
		case <-rt.Ready():
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// gone is pump's condition for c's server being gone (Done closed).
func gone(c *Client) func() bool {
	return func() bool {
		select {
		case <-c.Done():
			return true
		default:
			return false
		}
	}
}

// await runs frames until job settles and returns both halves of its
// outcome. A minute is a hang, not load: 100,000 publications under the race
// detector on a loaded machine took 22 s.
func await(t testing.TB, rt *runtime.Runtime, c *Client, job runtime.JobID) (runtime.Outcome, Result) {
	t.Helper()
	pump(t, rt, c, time.Minute, func() bool { return rt.IsComplete(job) })
	o, ok := rt.TakeResult(job)
	require.True(t, ok)
	res, _ := c.TakeResult(job)
	return o, res
}

// fakeLog is what the fake server recorded.
type fakeLog struct {
	Methods   []string `json:"methods"`
	Cancelled []string `json:"cancelled"`
	Changes   int      `json:"changes"`
}
