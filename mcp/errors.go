package mcp

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pmacs-go/pmacs-go/proc"
)

// Error codes carried by a failed call's runtime.JobError.Code, for Lua's
// `nil, message, code`.
const (
	// CodeToolError: the tool ran and reported an error (isError).
	CodeToolError = "tool_error"
	// CodeServerExited: the server process ended while the call was pending.
	CodeServerExited = "server_exited"
	// CodeConnectFailed: the initialize handshake failed (see Host.Dial).
	CodeConnectFailed = "connect_failed"
	// CodeClosed: the connection was closed while the call was pending.
	CodeClosed = "closed"
	// CodeTimeout: the call's Timeout passed.
	CodeTimeout = "timeout"
	// CodeMessageTooLarge: the server sent a message over Spec.MaxMessage,
	// which ended the connection.
	CodeMessageTooLarge = "message_too_large"
	// CodeShapeFailed: the result could not be made into the host's form
	// (HostConfig.Shape failed or panicked) or could not be copied for the
	// runtime.
	CodeShapeFailed = "shape_failed"
	// CodeProtocol: the server answered with a JSON-RPC error other than
	// the named ones, or the exchange failed.
	CodeProtocol = "protocol_error"
)

// ErrClosed is the cause of a call that was pending when its connection was
// closed, and the error of calls made after Close.
var ErrClosed = errors.New("mcp: connection closed")

// ErrShape is wrapped by the error of a call whose result
// HostConfig.Shape refused or panicked on, or that could not be copied for
// the runtime (runtime.Runtime.OwnExternal).
var ErrShape = errors.New("mcp: result cannot be shaped")

// ErrTimeout is the cause of a call whose Timeout passed.
var ErrTimeout = errors.New("mcp: call timed out")

// ErrMessageTooLarge is the cause of the calls pending, and of those made
// after, when the server sent a message over Spec.MaxMessage: a line of a
// program's output, an HTTP response body or server-sent event. The
// message says which and the limit.
var ErrMessageTooLarge = errors.New("mcp: message too large")

// ServerExitedError says that the server process ended; every call pending
// at that moment fails with it. Stderr is the tail of what the server wrote
// there, which usually says why.
type ServerExitedError struct {
	Name   string
	Exit   proc.Exit
	Err    error // from proc's Wait, if any
	Stderr string
}

func (e *ServerExitedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "mcp: server %s exited", e.Name)
	switch {
	case e.Exit.Signal != "":
		fmt.Fprintf(&b, " on %s", e.Exit.Signal)
	default:
		fmt.Fprintf(&b, " with code %d", e.Exit.Code)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, " (%v)", e.Err)
	}
	if s := strings.TrimSpace(e.Stderr); s != "" {
		fmt.Fprintf(&b, "; stderr: %s", lastLines(s, 5))
	}
	return b.String()
}

func (e *ServerExitedError) Unwrap() error { return e.Err }

// ConnectError says why Connect failed: the server could not start, it
// exited, it wrote something that is not MCP, or it did not answer the
// initialize request in time. Err keeps the cause for errors.Is/As.
type ConnectError struct {
	Name   string
	Reason string
	Err    error
	Stderr string
}

func (e *ConnectError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "mcp: connect %s: %s", e.Name, e.Reason)
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if s := strings.TrimSpace(e.Stderr); s != "" {
		fmt.Fprintf(&b, "; stderr: %s", lastLines(s, 5))
	}
	return b.String()
}

func (e *ConnectError) Unwrap() error { return e.Err }

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
