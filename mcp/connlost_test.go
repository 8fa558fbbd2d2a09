package mcp

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// A call written just as the server died fails with the write's broken
// pipe, not the SDK's connection-closed error: it is the same lost
// connection, so the call reports the server's exit (server_exited), not
// a protocol error. TestServerCrashFailsEveryPendingCall met it now and
// then.
func TestBrokenPipeIsALostConnection(t *testing.T) {
	write := fmt.Errorf("calling %q: %w", "tools/call", &fs.PathError{Op: "write", Path: "|1", Err: syscall.EPIPE})
	require.True(t, connectionLost(write))
	require.False(t, connectionLost(errors.New("calling \"tools/call\": invalid params")))
}
