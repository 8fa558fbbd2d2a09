//go:build linux

package mcp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/proctest"
)

// TestTeardownWorstCase measures, for each misbehaviour of proctest.Cases,
// the worst time over PMACS_TEARDOWN_RUNS runs of Host.Close with the test
// server doing it. Opt-in: scripts/teardown.sh runs it with the other
// components' tables and prints them together.
func TestTeardownWorstCase(t *testing.T) {
	runs := proctest.Runs(t)
	for _, kind := range proctest.Cases {
		var closing proctest.Timings
		for range runs {
			rt, h := newHost(t)
			_, gc := dialHostile(t, h, kind)
			closing.Time(func() { require.NoError(t, h.Close()) })
			if kind == proctest.NeverClose {
				gc.Kill()
			}
			proctest.Gone(t, teardownBound, gc)
			rt.Close()
		}
		proctest.Report(t, "mcp Host.Close (test server)", kind, closing)
	}
}
