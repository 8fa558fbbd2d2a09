package runtime

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/workers"
)

// An external (LSP/MCP) job settles from the main goroutine with a value,
// and a second completion is a no-op.
func TestExternalJobCompletesOnceWithValue(t *testing.T) {
	rt := newRT(t, 2)
	id, ctx := rt.RegisterExternal(kindReply, "hover")
	require.NoError(t, ctx.Err())
	require.NoError(t, rt.CompleteExternalOK(id, map[string]any{"contents": "func Foo()", "line": 3}))
	rt.CompleteExternalFailed(id, errors.New("too late"))
	out := rt.Tick()
	require.Equal(t, []JobID{id}, out.Settled)
	o, ok := rt.TakeResult(id)
	require.True(t, ok)
	require.Equal(t, Complete, o.State)
	v := o.value.(map[string]any)
	require.Equal(t, "func Foo()", v["contents"])
	require.EqualValues(t, 3, v["line"])
	require.Zero(t, rt.SupersedeLen())
}

// An external job that never completes can be cancelled: its context ends
// for the caller, who settles it cancelled; the *workers* view shows it
// active with cancel requested until then.
func TestExternalJobThatNeverCompletesIsCancelled(t *testing.T) {
	rt := newRT(t, 2)
	id, ctx := rt.RegisterExternal(kindCall, "")
	snap := rt.Snapshot()
	require.Len(t, snap.Active, 1)
	require.Equal(t, "tool_call", snap.Active[0].Kind.String())
	rt.Cancel(id)
	require.ErrorIs(t, ctx.Err(), context.Canceled)
	require.True(t, rt.Snapshot().Active[0].CancelRequested)
	rt.CompleteExternalCancelled(id)
	rt.Tick()
	require.True(t, rt.IsCancelled(id))
}

// Superseding an external job cancels its context.
func TestExternalJobSupersede(t *testing.T) {
	rt := newRT(t, 2)
	_, ctx1 := rt.RegisterExternal(kindReply, "completion")
	id2, ctx2 := rt.RegisterExternal(kindReply, "completion")
	require.Error(t, ctx1.Err())
	require.NoError(t, ctx2.Err())
	got, _ := rt.ActiveForKey("completion")
	require.Equal(t, id2, got)
}

// A value that cannot be encoded fails the job instead of leaving it hanging.
func TestExternalUnencodableValueFailsTheJob(t *testing.T) {
	rt := newRT(t, 2)
	id, _ := rt.RegisterExternal(kindReply, "")
	err := rt.CompleteExternalOK(id, make(chan int))
	require.Error(t, err)
	rt.Tick()
	o, _ := rt.TakeResult(id)
	require.Equal(t, Failed, o.State)
	require.Contains(t, jobErr(t, o.Err).Message, "complete external job")
}

// A handler that panics, in every lane, settles internal_error naming the
// job; a panicking mutating handler makes its actor fatal and later jobs on
// it are refused with actor_fatal, while other actors go on (issue 8 faults,
// issue 2 errors).
func TestPanickingHandlersSettleWithClearErrors(t *testing.T) {
	rt := newRT(t, 4)
	for _, lane := range []workers.Lane{workers.LaneRead, workers.LaneSerial, workers.LaneHeavy} {
		j := rt.newJob(testKind, "")
		rt.start(j, DefaultActor, lane, func(context.Context, *Task) reply { panic("boom in " + lane.String()) })
		o := outcomeOf(t, rt, j.t.id)
		require.Equal(t, Failed, o.State, lane.String())
		require.Equal(t, workers.CodeInternal, jobErr(t, o.Err).Code)
		require.Contains(t, jobErr(t, o.Err).Message, "boom in "+lane.String())
		require.Contains(t, jobErr(t, o.Err).Message, jobName(j.kind, j.t.id))
	}
	root := t.TempDir()
	_, err := rt.RegisterRoot(root)
	require.NoError(t, err)
	j := rt.newJob(testKind, "")
	rt.start(j, rt.actorFor(root), workers.LaneMutating, func(context.Context, *Task) reply { panic("disk on fire") })
	o := outcomeOf(t, rt, j.t.id)
	require.Equal(t, workers.CodeInternal, jobErr(t, o.Err).Code)
	o = outcomeOf(t, rt, rt.startRename(root+"/x", root+"/y", DispatchOptions{}))
	require.Equal(t, Failed, o.State)
	require.True(t, errors.Is(o.Err, workers.ErrActorFatal), "got %v", o.Err)
	require.Equal(t, uint64(6), outcomeOf(t, rt, rt.startValue(6, DispatchOptions{})).value, "other actors keep working")
}

// A job on an unregistered actor fails with actor_not_registered.
func TestJobOnRemovedRootFails(t *testing.T) {
	rt := newRT(t, 2)
	j := rt.newJob(testKind, "")
	rt.start(j, "no-such-actor", workers.LaneRead, func(context.Context, *Task) reply { return reply{Kind: replyUnit} })
	o := outcomeOf(t, rt, j.t.id)
	require.True(t, errors.Is(o.Err, workers.ErrActorNotRegistered))
}
