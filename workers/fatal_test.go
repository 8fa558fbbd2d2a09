package workers

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// Acceptance (issue 11, defect 6): a fatal actor shows with the panic's
// message; ResetActor refuses while a job of the actor (here a parked
// stream) is still running, then clears the fatal state once it has ended,
// and the actor runs jobs again. Refusals say why and change nothing.
func TestFatalActorIsListedWithItsReasonAndCanBeReset(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 4}, "a", "b")
	require.Empty(t, e.FatalActors())

	var parked atomic.Int64
	hold, release := holdJobs(t)
	stream := submit(e, "a", LaneStream, "grep", parkedJob(&parked, hold, "stream"))
	waitFor(t, "the stream to park", func() bool { return parked.Load() == 1 })
	r := recv(t, submit(e, "a", LaneMutating, "rename", func(context.Context, Actor) (any, error) { panic("disk on fire") }))
	requireCode(t, r.Err, ErrInternal, "rename")

	fatal := e.FatalActors()
	require.Len(t, fatal, 1)
	require.Equal(t, ActorID("a"), fatal[0].ID)
	require.Equal(t, r.Err.Error(), fatal[0].Reason)
	require.Contains(t, fatal[0].Reason, "disk on fire")

	err := e.ResetActor("a")
	require.ErrorIs(t, err, ErrActorBusy)
	require.Contains(t, err.Error(), "1 of its jobs")
	require.True(t, e.ActorIsFatal("a"), "a refused reset changes nothing")

	release()
	require.Equal(t, "stream", recv(t, stream).Value)
	// The Result is delivered before the worker takes the lock to finish
	// the job, so for a moment after it the job still counts as running.
	waitFor(t, "the reset accepted once the stream has ended", func() bool { return e.ResetActor("a") == nil })
	require.False(t, e.ActorIsFatal("a"))
	require.Empty(t, e.FatalActors())
	require.Equal(t, "ok", recv(t, submit(e, "a", LaneMutating, "again", value("ok"))).Value)

	require.ErrorIs(t, e.ResetActor("a"), ErrActorNotFatal)
	require.ErrorIs(t, e.ResetActor("b"), ErrActorNotFatal)
	err = e.ResetActor("nope")
	require.ErrorIs(t, err, ErrActorNotRegistered)
	require.Contains(t, err.Error(), `"nope"`)
}
