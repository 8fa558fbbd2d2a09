//go:build linux

package mcp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/mcp/mcptest"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// Polling the host (every Tick does) hands a call's progress
// notifications to the runtime, so the *workers* view's active row of the
// call shows the latest one.
func TestPumpShowsProgressInTheSnapshot(t *testing.T) {
	rt, h := newHost(t)
	c := connect(t, h, mcptest.ModeServe)
	id := c.Call("progress", mcptest.ProgressIn{Steps: 3, Hold: true}, RequestOptions{})
	other := c.Call("slow", nil, RequestOptions{})
	row := func(id runtime.JobID) runtime.ActiveJob {
		for _, a := range rt.Snapshot().Active {
			if a.ID == id {
				return a
			}
		}
		return runtime.ActiveJob{}
	}
	eventually(t, "the third step on the active row", func() bool {
		rt.Tick()
		return row(id).Progress == "3/3 step 3"
	})
	require.Equal(t, "", row(other).Progress, "progress of one call must not show on another")
	rt.Cancel(id)
	rt.Cancel(other)
	require.Equal(t, runtime.Cancelled, await(t, rt, h, id).State)
	require.Equal(t, runtime.Cancelled, await(t, rt, h, other).State)
}

func TestProgressString(t *testing.T) {
	for _, c := range []struct {
		p    Progress
		want string
	}{
		{Progress{Progress: 2, Total: 5, Message: "indexing"}, "2/5 indexing"},
		{Progress{Progress: 40, Message: "indexing"}, "40 indexing"},
		{Progress{Progress: 0.5, Total: 1}, "0.5/1"},
		{Progress{Message: "starting"}, "starting"},
	} {
		require.Equal(t, c.want, c.p.String())
	}
}
