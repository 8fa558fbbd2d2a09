package runtime

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// An external job failed with a code keeps both message and code, as an
// MCP or LSP error name must reach Lua.
func TestExternalJobFailsWithCode(t *testing.T) {
	rt := newRT(t, 2)
	id, _ := rt.RegisterExternal(KindMCPRequest, "")
	rt.CompleteExternalError(id, "mcp: tool \"x\" reported an error: boom", "tool_error")
	rt.Tick()
	o, ok := rt.TakeResult(id)
	require.True(t, ok)
	require.Equal(t, Failed, o.State)
	require.Equal(t, &JobError{Message: "mcp: tool \"x\" reported an error: boom", Code: "tool_error"}, o.Err)
}
