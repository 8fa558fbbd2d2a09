//go:build linux

package editor

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A pending MCP call's progress shows on its row of *workers*; cancelling
// it there ends it. (The server is this test binary, see TestMain.)
func TestWorkersViewShowsMCPProgress(t *testing.T) {
	h := startEditor(t, Options{Path: t.TempDir()})
	h.waitText("..")
	h.stopProjectWatch()
	var err error
	h.e.call(func() {
		err = h.e.L.DoString(fmt.Sprintf(`
			mcp_test_conn = pmacs.mcp.connect{cmd = {%q}, env = {PMACS_MCPTEST_MODE = "serve"}}
			mcp_test_call = mcp_test_conn:call("progress", {steps = 2, hold = true})
		`, os.Args[0]))
	})
	require.NoError(t, err)
	h.ctrl('w')
	rows := h.waitText("2/2 step 2")
	var row string
	for _, r := range rows {
		if strings.Contains(r, "mcp_request") {
			row = r
		}
	}
	require.Contains(t, row, "2/2 step 2", "the progress is on the call's own row")
	h.typeText("c")
	rows = h.waitText("Active jobs: 0")
	require.True(t, anyContains(rows, "cancelled"), "the call settled cancelled")
	h.e.call(func() { err = h.e.L.DoString(`mcp_test_conn:close()`) })
	require.NoError(t, err)
}
