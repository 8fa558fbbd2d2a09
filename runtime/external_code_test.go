package runtime

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// An external job failed with a code keeps both message and code, as an
// MCP or LSP error name must reach Lua, and keeps the error it was failed
// with for errors.Is and errors.As in the process.
func TestExternalJobFailsWithCode(t *testing.T) {
	rt := newRT(t, 2)
	id, _ := rt.RegisterExternal(kindCall, "")
	cause := errors.New("boom")
	rt.CompleteExternalFailed(id, &JobError{Message: "mcp: tool \"x\" reported an error: boom", Code: "tool_error", Err: cause})
	rt.Tick()
	o, ok := rt.TakeResult(id)
	require.True(t, ok)
	require.Equal(t, Failed, o.State)
	je := jobErr(t, o.Err)
	require.Equal(t, "mcp: tool \"x\" reported an error: boom", je.Message)
	require.Equal(t, "tool_error", je.Code)
	require.ErrorIs(t, o.Err, cause)
}

// A plain error fails an external job with its text and no code, and stays
// matchable; a nil error still fails the job, with a message saying so.
func TestExternalJobFailsWithPlainError(t *testing.T) {
	rt := newRT(t, 2)
	sentinel := errors.New("lsp: server exited")
	id, _ := rt.RegisterExternal(kindReply, "")
	rt.CompleteExternalFailed(id, sentinel)
	nilID, _ := rt.RegisterExternal(kindReply, "")
	rt.CompleteExternalFailed(nilID, nil)
	rt.Tick()
	o, ok := rt.TakeResult(id)
	require.True(t, ok)
	require.ErrorIs(t, o.Err, sentinel)
	require.Equal(t, "lsp: server exited", o.Err.Error())
	require.Empty(t, jobErr(t, o.Err).Code)
	o, ok = rt.TakeResult(nilID)
	require.True(t, ok)
	require.Equal(t, Failed, o.State)
	require.Contains(t, o.Err.Error(), "failed with no error")
}
