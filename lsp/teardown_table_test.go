//go:build linux

package lsp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/proctest"
)

// TestTeardownWorstCase measures, for each misbehaviour of proctest.Cases,
// the worst time over PMACS_TEARDOWN_RUNS runs of Client.Close with the
// fake server doing it. Opt-in: scripts/teardown.sh runs it with the other
// components' tables and prints them together.
func TestTeardownWorstCase(t *testing.T) {
	runs := proctest.Runs(t)
	for _, kind := range proctest.Cases {
		var closing proctest.Timings
		for range runs {
			rt := newRT(t)
			c, gc := startHostile(t, rt, kind, Config{})
			if kind == proctest.FullPipe {
				c.Request("fake/flood", map[string]any{"n": 10 * inboxHighWater}, RequestOptions{})
			}
			closing.Time(func() { require.NoError(t, c.Close()) })
			if kind == proctest.NeverClose {
				gc.Kill()
			}
			proctest.Gone(t, teardownBound, gc)
			rt.Close()
		}
		proctest.Report(t, "lsp.Client.Close (fake server)", kind, closing)
	}
}
