package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/lsp"
	"github.com/pmacs-go/pmacs-go/luabind"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// drive does not sleep while replies or resumptions are pending. A budget
// spent before each frame starts makes every frame leave most replies, and
// all resumptions but one, for the next; with a one-second frame target, a
// loop that slept between those frames would take at least ten seconds for
// these ten frames' worth of replies (and 640 for the resumptions). The
// expected run does not sleep, so the bound below is generous against load.
func TestDriveDoesNotSleepWhileRepliesPending(t *testing.T) {
	const tasks = 640 // ten frames of 64 replies
	rt, err := runtime.New(runtime.Options{})
	require.NoError(t, err)
	defer rt.Close()
	rt.SetFrameTarget(time.Second)
	b, err := luabind.New(rt, luabind.Options{FrameBudget: time.Nanosecond})
	require.NoError(t, err)
	defer b.Close()

	fn, err := b.LoadString(`local h = ...; h:await()`, "pending.lua")
	require.NoError(t, err)
	ids := make([]runtime.JobID, tasks)
	for i := range ids {
		ids[i], _ = rt.RegisterExternal(lsp.RequestKind, "")
		h, err := b.Adopt(ids[i])
		require.NoError(t, err)
		b.Spawn(fn, h)
	}
	b.Frame() // every task runs to its await
	for _, id := range ids {
		require.NoError(t, rt.CompleteExternalOK(id, lua.LTrue))
	}

	start := time.Now()
	require.NoError(t, drive(b, rt, nil, nil))
	require.Less(t, time.Since(start), 5*time.Second)
	require.Zero(t, b.Stats().Tasks)
	require.False(t, rt.Pending())
}
