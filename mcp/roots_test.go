//go:build linux

package mcp

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/mcp/mcptest"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// The server's roots/list gets exactly Spec.Roots, as absolute file URIs
// whatever the path holds (a space, '#', '%'), relative ones made absolute;
// without Roots it gets none. (Issue 25: the MCP client's roots are the
// workspace roots and nothing more.)
func TestServerSeesExactlyTheSpecRoots(t *testing.T) {
	rt, h := newHost(t)
	odd := filepath.Join(t.TempDir(), "my dir #1 %x")
	spec := serverSpec(mcptest.ModeServe)
	spec.Roots = []string{odd, "rel"}
	c, err := h.Connect(context.Background(), spec)
	require.NoError(t, err)
	o := await(t, rt, h, c.Call("roots", nil, RequestOptions{}))
	require.Equal(t, runtime.Complete, o.State, "%+v", o.Err)
	wd, err := os.Getwd()
	require.NoError(t, err)
	var paths []string
	for _, line := range strings.Split(ext(o).(map[string]any)["text"].(string), "\n") {
		u, err := url.Parse(line)
		require.NoError(t, err, line)
		require.Equal(t, "file", u.Scheme, line)
		paths = append(paths, u.Path)
	}
	// The order is the SDK's (it sorts by URI), not a promise of ours.
	require.ElementsMatch(t, []string{odd, filepath.Join(wd, "rel")}, paths)

	none := connect(t, h, mcptest.ModeServe)
	o = await(t, rt, h, none.Call("roots", nil, RequestOptions{}))
	require.Equal(t, runtime.Complete, o.State, "%+v", o.Err)
	require.Empty(t, ext(o).(map[string]any)["text"], "no roots unless given")

	_, err = h.Dial(Spec{Argv: []string{os.Args[0]}, Roots: []string{""}})
	require.ErrorContains(t, err, "empty path")
}
