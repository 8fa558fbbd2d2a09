//go:build linux

package luabind

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// A pending MCP call's progress shows on its row of w.snapshot().active,
// and only there.
func TestLuaMCPProgressInSnapshot(t *testing.T) {
	h := newHarness(t, false)
	res := runOK(t, h, fmt.Sprintf(`
		local w = pmacs.workers
		local s = pmacs.mcp.connect{cmd = {%q}, env = {PMACS_MCPTEST_MODE = "serve"}}
		local h = s:call("progress", {steps = 2, hold = true})
		local other = s:call("slow")
		local function row(id)
			for _, a in ipairs(w.snapshot().active) do if a.id == id then return a end end
		end
		while not row(h:id()) or row(h:id()).progress ~= "2/2 step 2" do w.sleep(5):await() end
		local shown, others = row(h:id()).progress, row(other:id()).progress
		h:cancel()
		other:cancel()
		h:await()
		other:await()
		s:close()
		assert(row(h:id()) == nil, "a settled call has no active row")
		return shown, others
	`, os.Args[0]))
	require.Equal(t, []lua.LValue{lua.LString("2/2 step 2"), lua.LNil}, res)
}
