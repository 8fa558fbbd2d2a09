package lsp

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
)

// Teardown bound: CloseAll waits for its clients side by side on one
// clock. Three servers that are never reaped (a ShapeDiagnostics hook holds
// each reader, so proc cannot finish delivering their output and Wait does
// not return) each make Close give up at CloseTimeout; CloseAll gives up
// on all three within about one CloseTimeout, not three, and names each.
func TestCloseAllSharesOneDeadline(t *testing.T) {
	rt := newRT(t)
	release := make(chan struct{})
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	entered := make(chan struct{}, 3)
	hold := func(*protocol.PublishDiagnosticsParams) any {
		entered <- struct{}{}
		<-release
		return nil
	}
	var clients []*Client
	for i := range 3 {
		c := startFake(t, rt, Config{ShapeDiagnostics: hold})
		pump(t, rt, c, 10*time.Second, c.Initialized)
		c.Request("fake/diagnostics", map[string]any{"uri": string(docURI("/src/held.go")), "n": 1}, RequestOptions{})
		select {
		case <-entered:
		case <-time.After(10 * time.Second):
			t.Fatalf("server %d's publication never reached the hook", i)
		}
		clients = append(clients, c)
	}
	// Before the clients' own Close at cleanup, which must then succeed.
	t.Cleanup(unblock)

	start := time.Now()
	err := CloseAll(clients...)
	took := time.Since(start)
	require.ErrorIs(t, err, ErrStopTimeout)
	require.Equal(t, 3, strings.Count(err.Error(), "has not been reaped within"), err.Error())
	t.Logf("three unreaped servers closed in %v (CloseTimeout %v)", took, CloseTimeout)
	require.Less(t, took, 2*CloseTimeout, "the clients were waited for one after the other")

	unblock()
	for _, c := range clients {
		select {
		case <-c.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("a server released from its hook was not reaped")
		}
	}
}
