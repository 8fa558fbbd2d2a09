package runtime

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/workers"
)

// requireWorkersCode checks that err wraps a *JobError with code.
func requireWorkersCode(t *testing.T, err error, code string) {
	t.Helper()
	var je *JobError
	require.True(t, errors.As(err, &je), "%v is not a *JobError", err)
	require.Equal(t, code, je.Code, "%v", err)
}

// Acceptance (issue 11, defect 6): a root made fatal by a panicking mutation
// shows in Snapshot with the panic message; ResetRoot refuses while a job
// of the root (a grep parked on its undrained stream) is still running,
// succeeds once it has ended, and the root takes mutations again.
func TestFatalRootShowsInSnapshotAndResetsOnceIdle(t *testing.T) {
	rt, err := New(Options{Executor: workers.Config{PoolSize: 4}, StreamCredit: 100})
	require.NoError(t, err)
	t.Cleanup(rt.Close)
	root, err := rt.RegisterRoot(matchTree(t, 10, 100))
	require.NoError(t, err)
	require.Empty(t, rt.Snapshot().Fatal)

	g := rt.DispatchGrep(grep.Spec{Root: root, Pattern: "needle"}, DispatchOptions{})
	credit := rt.pending.get(g).stream.credit
	pumpUntil(t, rt, func() bool { return credit.InFlight()+100 > credit.Limit() })

	j := rt.newJob(testKind, "")
	rt.start(j, rt.actorFor(root), workers.LaneMutating, func(context.Context, *Task) reply { panic("disk on fire") })
	o := outcomeOf(t, rt, j.t.id)
	require.Equal(t, Failed, o.State)

	fatal := rt.Snapshot().Fatal
	require.Len(t, fatal, 1)
	require.Equal(t, root, fatal[0].Root)
	require.Contains(t, fatal[0].Reason, "disk on fire")
	refused := outcomeOf(t, rt, rt.startRename(filepath.Join(root, "a"), filepath.Join(root, "b"), DispatchOptions{}))
	require.Equal(t, workers.CodeActorFatal, jobErr(t, refused.Err).Code)

	err = rt.ResetRoot(root)
	requireWorkersCode(t, err, workers.CodeActorBusy)
	require.ErrorIs(t, err, workers.ErrActorBusy)
	require.Len(t, rt.Snapshot().Fatal, 1, "a refused reset changes nothing")

	rt.Cancel(g)
	drainStream(t, rt, g, 5*time.Second)
	// The search's last reply can arrive a moment before its worker lets
	// go of the root: until then the reset is refused as busy, as
	// ResetRoot documents, and then it succeeds.
	pumpUntil(t, rt, func() bool {
		err := rt.ResetRoot(fatal[0].Root)
		if err != nil {
			require.ErrorIs(t, err, workers.ErrActorBusy)
		}
		return err == nil
	})
	require.Empty(t, rt.Snapshot().Fatal)
	moved := outcomeOf(t, rt, rt.startRename(filepath.Join(root, "a"), filepath.Join(root, "b"), DispatchOptions{}))
	require.Equal(t, Complete, moved.State, "%v", moved.Err)

	requireWorkersCode(t, rt.ResetRoot(root), workers.CodeActorNotFatal)
	requireWorkersCode(t, rt.ResetRoot(""), workers.CodeActorNotFatal)
	err = rt.ResetRoot(filepath.Join(root, "not-a-root"))
	requireWorkersCode(t, err, workers.CodeActorNotRegistered)
	require.Contains(t, err.Error(), "not a registered root")
}
