//go:build linux

package mcp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pmacs-go/pmacs-go/mcp/mcptest"
	"github.com/pmacs-go/pmacs-go/proc"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/workers"
)

// TestMain runs the test binary as the mcptest server when asked to (the
// tests start os.Args[0] as their server), and otherwise makes it a
// subreaper so that the children it checks for are really gone, not
// zombies of an init that never reaps.
func TestMain(m *testing.M) {
	mcptest.RunIfServer()
	if err := proc.BecomeSubreaper(); err != nil {
		fmt.Fprintln(os.Stderr, "mcp tests: cannot become a subreaper:", err)
		os.Exit(2)
	}
	goleak.VerifyTestMain(m)
}

// newHost returns a runtime and a host over it, both closed when the test
// ends, after which no child process may be left.
func newHost(t testing.TB) (*runtime.Runtime, *Host) {
	t.Helper()
	rt, err := runtime.New(runtime.Options{Executor: workers.Config{PoolSize: 2}})
	require.NoError(t, err)
	h := NewHost(rt)
	remove := rt.AddPoller(h)
	t.Cleanup(func() {
		require.NoError(t, h.Close())
		remove()
		rt.Close()
		requireNoChildren(t)
	})
	return rt, h
}

func serverSpec(mode string) Spec {
	return Spec{Argv: []string{os.Args[0]}, Env: []string{mcptest.Env(mode)}}
}

func connect(t testing.TB, h *Host, mode string) *Conn {
	t.Helper()
	c, err := h.Connect(context.Background(), serverSpec(mode))
	require.NoError(t, err)
	return c
}

// await runs the frame loop (Tick, which polls the host) until id settles
// and takes its outcome; a minute is a hang, not load (a 17 MiB reply
// under the race detector on a loaded machine took over ten seconds).
func await(t testing.TB, rt *runtime.Runtime, h *Host, id runtime.JobID) runtime.Outcome {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	timer := time.NewTimer(time.Millisecond)
	defer timer.Stop()
	for {
		rt.Tick()
		if o, ok := rt.TakeResult(id); ok {
			return o
		}
		require.True(t, time.Now().Before(deadline), "job %d did not settle", id)
		timer.Reset(5 * time.Millisecond)
		select {
		case <-rt.Ready():
		case <-timer.C:
		}
	}
}

// eventually polls cond until it holds, failing after ten seconds.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		require.True(t, time.Now().Before(deadline), "timed out waiting for %s", what)
		time.Sleep(5 * time.Millisecond)
	}
}

// children lists the live (non-zombie) processes whose parent is this test
// process: as a subreaper it also inherits the servers' orphans.
func children() []string {
	self := strconv.Itoa(os.Getpid())
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == self && f[0] != "Z" {
			out = append(out, e.Name()+" "+s[:i+1])
		}
	}
	return out
}

func requireNoChildren(t testing.TB) {
	t.Helper()
	eventually(t, "no child process left", func() bool { return len(children()) == 0 })
}
