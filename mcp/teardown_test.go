//go:build linux

package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/proctest"
	"github.com/pmacs-go/pmacs-go/mcp/mcptest"
)

// teardownBound is the bound on every teardown.
const teardownBound = 3 * time.Second

// dialHostile dials the test server behind a shell that makes its tree
// misbehave as kind says (see proctest.Hostile; with IgnoreTerm the server
// also ignores the end of its input), and returns the connection and the
// misbehaving descendant once it is in place. It dials rather than
// connects: FullPipe's garbage may beat the handshake on a slow start, and
// the teardown is tested all the same.
func dialHostile(t *testing.T, h *Host, kind string) (*Conn, proctest.Proc) {
	t.Helper()
	pf := filepath.Join(t.TempDir(), "pid")
	prefix, comm := proctest.Hostile(kind, pf)
	mode := mcptest.ModeServe
	if kind == proctest.IgnoreTerm {
		mode = mcptest.ModeStubborn
	}
	c, err := h.Dial(Spec{Argv: []string{"sh", "-c", prefix + "exec '" + strings.ReplaceAll(os.Args[0], "'", `'\''`) + "'"},
		Env: []string{mcptest.Env(mode)}})
	require.NoError(t, err)
	if kind != proctest.FullPipe {
		<-c.Ready()
		require.NoError(t, c.Err())
	}
	gc := proctest.Track(t, pf)
	gc.WaitFor(t, "the descendant in place", proctest.Detached(comm))
	return c, gc
}

// Issue 25, teardown: Host.Close returns within 3 s whatever a server's
// tree does (a setsid grandchild holding stdout; the end of input and
// SIGTERM ignored; stdout flooded with what the SDK will not read; a stdout
// an escaped process never closes), and then neither the server nor its
// grandchild is running or a zombie (except the escaped one, which only the
// exit's proc.EndAll ends).
func TestHostCloseEndsEveryServerTree(t *testing.T) {
	for _, kind := range proctest.Cases {
		t.Run(kind, func(t *testing.T) {
			_, h := newHost(t)
			c, gc := dialHostile(t, h, kind)
			server := proctest.Follow(t, c.Pid())
			start := time.Now()
			require.NoError(t, h.Close())
			require.Less(t, time.Since(start), teardownBound)
			require.Zero(t, server.State(), "the server is reaped when Close returns")
			if kind != proctest.NeverClose {
				proctest.Gone(t, teardownBound, gc)
			}
		})
	}
}

// Issue 25, teardown (mcp/conn.go read its deadline twice): a session that
// never ends (a fake SDK session that ignores the close) beside a server
// whose end outlasts the deadline (an escaped process holds its stdout and
// proc reads it for 5 s) must not hold Close past CloseTimeout: every wait
// shares one deadline, and Close says what did not end.
func TestCloseIsBoundedWhenTheSessionNeverEnds(t *testing.T) {
	release := make(chan struct{})
	closeSession = func(*sdk.ClientSession) error { <-release; return nil }
	waitDelay = 5 * time.Second
	t.Cleanup(func() {
		closeSession, waitDelay = (*sdk.ClientSession).Close, 500*time.Millisecond
	})
	_, h := newHost(t)
	c, _ := dialHostile(t, h, proctest.NeverClose)
	closed := make(chan error, 1)
	start := time.Now()
	go func() { closed <- c.Close() }()
	select {
	case err := <-closed:
		require.Less(t, time.Since(start), CloseTimeout+time.Second)
		require.ErrorIs(t, err, ErrCloseTimeout)
		require.Contains(t, err.Error(), "the session did not end")
	case <-time.After(CloseTimeout + 5*time.Second):
		close(release)
		t.Fatal("Close did not return within CloseTimeout")
	}
	// Let the fake session and the server's end finish, so nothing
	// outlives the test.
	close(release)
	<-c.proc.Done()
}
