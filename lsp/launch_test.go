package lsp

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// Workspace trust: Config.BeforeLaunch is asked before every launch, and
// a restart it refuses (the workspace untrusted since the first start)
// starts no process: the client ends with the refusal as its error and as
// the cause of the request that waited for the new server, and tries no
// further restart.
func TestRestartRefusedByBeforeLaunchStartsNothing(t *testing.T) {
	rt := newRT(t)
	starts := filepath.Join(t.TempDir(), "starts")
	var asked [][]string
	refuse := false
	c := startFake(t, rt, Config{
		RestartBackoff: 5 * time.Millisecond,
		BeforeLaunch: func(argv []string) error {
			asked = append(asked, argv)
			if refuse {
				return errors.New("the workspace is no longer trusted")
			}
			return nil
		},
	}, fakeStartsEnv+"="+starts)
	pump(t, rt, c, 10*time.Second, c.Initialized)
	require.Equal(t, [][]string{{os.Args[0]}}, asked, "asked before the first launch")

	refuse = true
	o, _ := await(t, rt, c, c.Request("fake/crash", nil, RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	waiting := c.Request(protocol.MethodTextDocumentHover, nil, RequestOptions{})
	o, res := await(t, rt, c, waiting)
	require.Equal(t, runtime.Failed, o.State)
	require.ErrorIs(t, res.Err, ErrLaunchRefused)
	require.ErrorContains(t, res.Err, "the workspace is no longer trusted")
	pump(t, rt, c, 10*time.Second, gone(c))

	require.Len(t, asked, 2, "asked again before the restart, and never after")
	require.Equal(t, 1, countLines(t, starts), "the refused restart started no process")
	require.ErrorIs(t, c.Err(), ErrLaunchRefused)
	require.ErrorContains(t, c.Err(), "the workspace is no longer trusted")
	o, res = await(t, rt, c, c.Request(protocol.MethodTextDocumentHover, nil, RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	require.ErrorIs(t, res.Err, ErrLaunchRefused)
}

// A first launch Config.BeforeLaunch refuses is Start's error, wrapping
// ErrLaunchRefused and the reason, and starts no process.
func TestStartRefusedByBeforeLaunch(t *testing.T) {
	rt := newRT(t)
	starts := filepath.Join(t.TempDir(), "starts")
	reason := errors.New("not trusted")
	_, err := Start(rt, Config{
		Argv:         []string{os.Args[0]},
		Env:          append(os.Environ(), fakeServerEnv+"=1", fakeStartsEnv+"="+starts),
		BeforeLaunch: func([]string) error { return reason },
	})
	require.ErrorIs(t, err, ErrLaunchRefused)
	require.ErrorIs(t, err, reason)
	require.Zero(t, countLines(t, starts))
}
