//go:build linux

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/proctest"
)

// hostileScript spawns arg[2] .. "exec sleep 1000" (a proctest.Hostile
// prefix: its misbehaving descendant writes its pid to arg[1]/pid), waits
// for the file arg[1]/go, then raises if arg[3] is "error" and else waits
// on the program.
const hostileScript = `
local dir, prefix, how = arg[1], arg[2], arg[3]
local h = pmacs.workers.spawn{cmd = {"sh", "-c", prefix .. "exec sleep 1000"}}
local function exists(p) local f = io.open(p) if f then f:close() return true end end
while not exists(dir .. "/go") do pmacs.workers.sleep(2):await() end
if how == "error" then error("boom") end
h:await()
`

// TestTeardownWorstCase measures, for each misbehaviour of proctest.Cases,
// the worst time over PMACS_TEARDOWN_RUNS runs of the headless runner's
// exit (the real binary): from a Lua error's trigger, and from SIGTERM,
// until the runner has exited; every descendant, the escaped one included,
// must then be gone. Opt-in: scripts/teardown.sh runs it with the other
// components' tables and prints them together.
func TestTeardownWorstCase(t *testing.T) {
	runs := proctest.Runs(t)
	bin := editorBinary(t)
	for _, kind := range proctest.Cases {
		for _, how := range []string{"error", "SIGTERM"} {
			var exiting proctest.Timings
			for range runs {
				dir := t.TempDir()
				prefix, comm := proctest.Hostile(kind, filepath.Join(dir, "pid"))
				p := filepath.Join(dir, "s.lua")
				require.NoError(t, os.WriteFile(p, []byte(hostileScript), 0o644))
				cmd, stderr := startRunnerArgs(t, bin, p, dir, prefix, how)
				gc := proctest.Track(t, filepath.Join(dir, "pid"))
				gc.WaitFor(t, "the descendant in place", proctest.Detached(comm))
				want := exitFailed
				exiting.Time(func() {
					if how == "error" {
						require.NoError(t, os.WriteFile(filepath.Join(dir, "go"), nil, 0o644))
					} else {
						want = exitSignal + int(syscall.SIGTERM)
						require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
					}
					require.Equal(t, want, exitCode(t, cmd), stderr.String())
				})
				proctest.Gone(t, teardownBound, gc)
			}
			proctest.Report(t, "headless runner exit ("+how+")", kind, exiting)
		}
	}
}
