//go:build linux

package editor

import (
	"os"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
)

// waitError waits for an error (red) message containing text.
func (h *harness) waitError(text string) {
	h.t.Helper()
	h.until("an error message with "+text, func(e *session) bool {
		return e.msgErr && strings.Contains(e.msg, text)
	})
}

// callTool presses Enter on the cursor's tool row and submits args as its
// JSON arguments.
func (h *harness) callTool(name, args string) {
	h.t.Helper()
	h.key(tcell.KeyEnter)
	h.waitText(name + " arguments (a JSON object): {}")
	h.key(tcell.KeyBackspace2)
	h.key(tcell.KeyBackspace2)
	h.typeText(args)
	h.key(tcell.KeyEnter)
}

func (h *harness) mcpConnect() {
	h.t.Helper()
	h.alt('x')
	h.waitText("command (")
	h.typeText("mcp-connect env PMACS_MCPTEST_MODE=serve " + os.Args[0])
	h.key(tcell.KeyEnter)
	h.waitText("8 tools")
}

// M-x mcp-connect lists the server's tools in *mcp*; Enter calls one with
// JSON arguments, checked first; the result shows in *mcp result* (text and
// structured content pretty-printed), errors in red on the message line; a
// call is an mcp_request job that *workers* cancels. The server is the
// repository's MCP test server (this test binary, see TestMain).
func TestMCPViewCallsTools(t *testing.T) {
	h := startEditor(t, Options{Path: t.TempDir()})
	h.waitText("..")
	h.stopProjectWatch()
	h.mcpConnect()
	rows := h.rows()
	require.True(t, anyContains(rows, "echo"), "the tool list names echo")
	require.True(t, anyContains(rows, "returns its text"), "the tool list shows descriptions")

	// The cursor starts on the first tool: add (the list is sorted).
	h.callTool("add", `{"a": 2,`)
	h.waitError("invalid JSON")
	h.callTool("add", `[1, 2]`)
	h.waitError("must be a JSON object")

	h.key(tcell.KeyDown) // big
	h.key(tcell.KeyDown) // crash
	h.key(tcell.KeyDown) // echo
	h.key(tcell.KeyDown) // fail
	h.callTool("fail", `{}`)
	h.waitError("the tool failed on purpose")

	h.key(tcell.KeyDown) // progress
	h.key(tcell.KeyDown) // roots
	h.key(tcell.KeyDown) // slow
	h.callTool("slow", `{}`)
	h.waitText("running (C-w shows it")
	h.ctrl('w')
	h.waitScreen("the call's row", func(rows []string) bool {
		return anyContains(rows, "mcp_request") && anyContains(rows, "Active jobs: 1")
	})
	h.typeText("c")
	h.waitError("mcp slow: cancelled")

	// Connecting again replaces the connection and shows *mcp* anew.
	h.mcpConnect()
	h.callTool("add", `{"a": 2, "b": 40}`)
	rows = h.waitText("structured content:")
	require.True(t, anyContains(rows, "tool add returned"))
	require.True(t, anyContains(rows, `"sum": 42`), "the structured content is pretty-printed")

	// Text content shows line by line.
	h.mcpConnect()
	h.key(tcell.KeyDown) // big
	h.key(tcell.KeyDown) // crash
	h.key(tcell.KeyDown) // echo
	h.callTool("echo", `{"text": "line one\nline two"}`)
	rows = h.waitText("tool echo returned")
	require.True(t, anyContains(rows, "line one"))
	require.True(t, anyContains(rows, "line two"))
	require.False(t, anyContains(rows, "line one\\nline two"), "the newline splits the text into rows")
	require.False(t, anyContains(rows, "structured content:"), "echo has no structured content")
}

// The editor tells an MCP server its workspace root as the client's only
// root. (Issue 25: the MCP client's roots are the workspace roots and
// nothing more.)
func TestMCPServerIsToldTheWorkspaceRoot(t *testing.T) {
	root := t.TempDir()
	h := startEditor(t, Options{Path: root})
	h.waitText("..")
	h.mcpConnect()
	for range 6 { // big, crash, echo, fail, progress, roots
		h.key(tcell.KeyDown)
	}
	h.callTool("roots", `{}`)
	rows := h.waitText("tool roots returned")
	require.True(t, anyContains(rows, "file://"+root), "the root's URI:\n%s", strings.Join(rows, "\n"))
	n := 0
	for _, r := range rows {
		if strings.Contains(r, "file://") {
			n++
		}
	}
	require.Equal(t, 1, n, "one root:\n%s", strings.Join(rows, "\n"))
}

// A server that cannot start, and a missing argument, are red messages.
func TestMCPConnectFailures(t *testing.T) {
	h := startEditor(t, Options{Path: t.TempDir()})
	h.waitText("..")
	msg := h.command("mcp-connect")
	require.Contains(t, msg, "mcp-connect: needs a server command")
	msg = h.command("mcp-connect " + t.TempDir() + "/no-such-server")
	require.Contains(t, msg, "mcp-connect: ")
	require.Contains(t, msg, "no-such-server")
	var isErr bool
	h.e.call(func() { isErr = h.e.msgErr })
	require.True(t, isErr)
}
