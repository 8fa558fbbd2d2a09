package runtime

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/workers"
)

// Panics on goroutines a job runs outside the executor's workers (issue 11
// defect 5). Each test injects one panic through a test hook and checks that
// the job settles Failed with internal_error and the panic value, and that
// the loop goes on serving jobs. Before the fix each panic ended the test
// process.

// setHook sets *hook to f for the test. It must be called before the
// runtime is made, so that the reset runs after Close has joined every
// goroutine that reads the hook.
func setHook(t *testing.T, hook *func(), f func()) {
	t.Helper()
	*hook = f
	t.Cleanup(func() { *hook = nil })
}

// waitOrPanic blocks until ch closes, so a hook can hold a search at the
// point the test needs; it gives up after a while rather than hang.
func waitOrPanic(ch <-chan struct{}) {
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
	}
}

// requireLoopGoesOn checks the runtime still runs jobs.
func requireLoopGoesOn(t *testing.T, rt *Runtime) {
	t.Helper()
	require.Equal(t, uint64(10), outcomeOf(t, rt, rt.startValue(10, DispatchOptions{})).value, "the loop goes on")
}

// requirePanicFailure checks a job's outcome is the recovered panic.
func requirePanicFailure(t *testing.T, o Outcome, kind Kind, where, value string) {
	t.Helper()
	require.Equal(t, Failed, o.State, "%+v", o)
	require.Equal(t, workers.CodeInternal, jobErr(t, o.Err).Code)
	require.Contains(t, jobErr(t, o.Err).Message, kind.String()+"#")
	require.Contains(t, jobErr(t, o.Err).Message, where)
	require.Contains(t, jobErr(t, o.Err).Message, value)
}

// afterFuncer is the method the context package looks for on a parent
// context: contexts derived from a job's context (grep's fanout uses one)
// register their cancellation through it, and jobCtx runs each callback on
// a goroutine of its own.
type afterFuncer interface {
	AfterFunc(func()) func() bool
}

// A panic in a callback the job's context runs fails the job, whether the
// callback was registered before the cancel or after it, and for an
// external job as for a worker's. (A callback passed to context.AfterFunc
// runs on a goroutine the context package starts, not on one of the
// runtime's: only a recover in that callback can catch its panic. The
// runtime registers none.)
func TestPanicInAContextCallbackFailsTheJob(t *testing.T) {
	rt := newRT(t, 2)
	for _, registerLate := range []bool{false, true} {
		release := make(chan struct{})
		value := "boom in a context callback"
		if registerLate {
			value += " registered after the cancel"
		}
		started := make(chan struct{})
		j := rt.newJob(testKind, "")
		rt.start(j, BuiltinActor, workers.LaneRead, func(ctx context.Context, _ *Task) reply {
			af := ctx.(afterFuncer)
			if !registerLate {
				af.AfterFunc(func() { panic(value) })
			}
			close(started)
			<-ctx.Done()
			if registerLate {
				af.AfterFunc(func() { panic(value) })
			}
			// Hold the worker's own reply back: the panic alone settles the job.
			<-release
			return reply{Kind: replyCancelled}
		})
		waitOrPanic(started)
		rt.Cancel(j.t.id)
		requirePanicFailure(t, outcomeOf(t, rt, j.t.id), testKind, "callback registered on its context", value)
		close(release)
	}

	id, ctx := rt.RegisterExternal(kindReply, "")
	ctx.(afterFuncer).AfterFunc(func() { panic("boom in an external job's callback") })
	rt.Cancel(id)
	requirePanicFailure(t, outcomeOf(t, rt, id), kindReply, "callback registered on its context", "boom in an external job's callback")
	requireLoopGoesOn(t, rt)
}

// A job whose helper goroutine panicked while its worker kept going still
// settles Failed: the worker's own terminal reply is replaced by the panic.
func TestWorkerReplyAfterAHelperPanicIsTheFailure(t *testing.T) {
	rt := newRT(t, 2)
	j := rt.newJob(testKind, "")
	rt.start(j, BuiltinActor, workers.LaneRead, func(ctx context.Context, w *Task) reply {
		func() {
			defer w.recoverPanic("a helper")
			panic("helper down")
		}()
		return reply{Kind: replySum, N: 1}
	})
	o := outcomeOf(t, rt, j.t.id)
	requirePanicFailure(t, o, testKind, "a helper", "helper down")
	require.True(t, strings.HasPrefix(jobErr(t, o.Err).Message, jobName(testKind, j.t.id)+": panicked in a helper"), jobErr(t, o.Err).Message)
}
