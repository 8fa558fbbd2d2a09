package luabind

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/pmacs-go/pmacs-go/mcp/mcptest"
	"github.com/pmacs-go/pmacs-go/proc"
	"github.com/pmacs-go/pmacs-go/runtime"
)

func TestMain(m *testing.M) {
	// The MCP tests run this binary as their server.
	mcptest.RunIfServer()
	// The teardown tests check that a server's grandchildren are gone, not
	// zombies of an init that never reaps: the test binary reaps them.
	if err := proc.BecomeSubreaper(); err != nil {
		fmt.Fprintln(os.Stderr, "luabind tests: cannot become a subreaper:", err)
		os.Exit(2)
	}
	goleak.VerifyTestMain(m)
}

// harness is a runtime and a binding with captured output, closed when the
// test ends.
type harness struct {
	rt     *runtime.Runtime
	b      *Binding
	stdout bytes.Buffer
	stderr bytes.Buffer
}

func newHarness(t testing.TB, safe bool) *harness {
	t.Helper()
	h := &harness{}
	rt, err := runtime.New(runtime.Options{})
	require.NoError(t, err)
	h.rt = rt
	b, err := New(rt, Options{Safe: safe, Stdout: &h.stdout, Stderr: &h.stderr})
	require.NoError(t, err)
	h.b = b
	t.Cleanup(func() {
		b.Close()
		rt.Close()
	})
	return h
}

// drive runs frames, waking on worker replies or every millisecond, until
// the binding is idle or the deadline passes.
func (h *harness) drive(t testing.TB, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for h.b.Busy() {
		require.False(t, h.b.Stalled(), "tasks wait on each other")
		require.True(t, time.Now().Before(deadline), "still busy after %v: %d tasks, %d jobs\nstderr:\n%s",
			timeout, h.b.Stats().Tasks, h.b.Stats().Jobs, h.stderr.String())
		select {
		case <-h.rt.Ready():
		case <-tick.C:
		}
		h.b.Frame()
	}
}

// run runs src as a task to completion and returns it.
func (h *harness) run(t testing.TB, src string) *Task {
	t.Helper()
	fn, err := h.b.LoadString(src, "test.lua")
	require.NoError(t, err)
	task := h.b.Spawn(fn)
	// A million lines through cat into Lua take seconds under the race
	// detector, and more than twenty at load average 20.
	h.drive(t, time.Minute)
	return task
}

// writeFixture builds the trees the Lua suite's grep and fs scripts use.
func writeFixture(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"grep/a.txt":              "hello world, hello again\nnothing here\nsay hello\n",
		"grep/sub/b.go":           "package hello\n",
		"grep/.hidden/c.txt":      "hello hidden\n",
		"grep/node_modules/d.txt": "hello module\n",
		"fs/a.txt":                "aaaaa",
		"fs/b.txt":                "bb",
		"fs/full/inner.txt":       "x",
	}
	testenv.WriteTree(t, dir, files)
	require.NoError(t, os.Symlink("a.txt", filepath.Join(dir, "fs/link")))
}

// writeGrepCorpus writes files files of lines lines, every line matching
// "needle".
func writeGrepCorpus(t testing.TB, dir string, files, lines int) {
	t.Helper()
	var body bytes.Buffer
	for i := range lines {
		fmt.Fprintf(&body, "line %d with a needle in it\n", i)
	}
	for i := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.txt", i)), body.Bytes(), 0o644))
	}
}
