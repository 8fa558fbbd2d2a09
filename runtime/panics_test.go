package runtime

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pmacs-go/pmacs-go/grep"
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

// requirePanicFailure checks a job's outcome is the recovered panic.
func requirePanicFailure(t *testing.T, o Outcome, kind Kind, where, value string) {
	t.Helper()
	require.Equal(t, Failed, o.State, "%+v", o)
	require.Equal(t, workers.CodeInternal, jobErr(t, o.Err).Code)
	require.Contains(t, jobErr(t, o.Err).Message, kind.String()+"#")
	require.Contains(t, jobErr(t, o.Err).Message, where)
	require.Contains(t, jobErr(t, o.Err).Message, value)
}

// requireLoopGoesOn checks the runtime still runs jobs.
func requireLoopGoesOn(t *testing.T, rt *Runtime) {
	t.Helper()
	require.Equal(t, uint64(10), outcomeOf(t, rt, rt.DispatchSum(4, DispatchOptions{})).value, "the loop goes on")
}

func threeMatchingFiles(t *testing.T) string {
	return makeTree(t, map[string]string{"a.txt": "needle\n", "b.txt": "needle\n", "c.txt": "needle\n"})
}

// A panic in grep's batch flush timer fails the grep. The search is held in
// its second match callback until the timer has fired, so the timer (not
// the search's end) flushes the first match.
func TestPanicInGrepFlushTimerFailsTheJob(t *testing.T) {
	fired := make(chan struct{})
	var calls atomic.Int32
	setHook(t, &grepEmitHook, func() {
		if calls.Add(1) > 1 {
			waitOrPanic(fired)
		}
	})
	setHook(t, &grepFlushHook, func() {
		close(fired)
		panic("boom in the flush timer")
	})
	rt := newRT(t, 2)
	id := rt.DispatchGrep(grep.Spec{Root: threeMatchingFiles(t), Pattern: "needle", Fanout: 1}, DispatchOptions{})
	res := drainStream(t, rt, id, time.Millisecond, 10*time.Second)
	requirePanicFailure(t, res.outcome, KindGrep, "grep flush timer", "boom in the flush timer")
	requireLoopGoesOn(t, rt)
}

// A panic in grep's progress reporter fails the grep. The search is held in
// its first match callback, after the file was counted, until the reporter
// has run.
func TestPanicInGrepProgressReporterFailsTheJob(t *testing.T) {
	fired := make(chan struct{})
	setHook(t, &grepEmitHook, func() { waitOrPanic(fired) })
	setHook(t, &grepProgressHook, func() {
		close(fired)
		panic("boom in the progress reporter")
	})
	defer func(d time.Duration) { grepProgressEvery = d }(grepProgressEvery)
	grepProgressEvery = time.Millisecond
	rt := newRT(t, 2)
	id := rt.DispatchGrep(grep.Spec{Root: threeMatchingFiles(t), Pattern: "needle", Fanout: 1}, DispatchOptions{})
	res := drainStream(t, rt, id, time.Millisecond, 10*time.Second)
	requirePanicFailure(t, res.outcome, KindGrep, "grep progress reporter", "boom in the progress reporter")
	requireLoopGoesOn(t, rt)
}

// A panic in the match callback, which runs on one of grep's fanout
// goroutines, fails the grep and stops the search. (A panic inside grep's
// own code on those goroutines is grep's to carry back to the worker.)
func TestPanicInGrepMatchCallbackFailsTheJob(t *testing.T) {
	setHook(t, &grepEmitHook, func() { panic("boom in the match callback") })
	rt := newRT(t, 2)
	id := rt.DispatchGrep(grep.Spec{Root: threeMatchingFiles(t), Pattern: "needle", Fanout: 2}, DispatchOptions{})
	res := drainStream(t, rt, id, time.Millisecond, 10*time.Second)
	requirePanicFailure(t, res.outcome, KindGrep, "grep match callback", "boom in the match callback")
	require.Empty(t, res.matches)
	requireLoopGoesOn(t, rt)
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
		j := rt.newJob(KindComputeSum, "")
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
		rt.Cancel(j.id)
		requirePanicFailure(t, outcomeOf(t, rt, j.id), KindComputeSum, "callback registered on its context", value)
		close(release)
	}

	id, ctx := rt.RegisterExternal(KindLSPRequest, "")
	ctx.(afterFuncer).AfterFunc(func() { panic("boom in an external job's callback") })
	rt.Cancel(id)
	requirePanicFailure(t, outcomeOf(t, rt, id), KindLSPRequest, "callback registered on its context", "boom in an external job's callback")
	requireLoopGoesOn(t, rt)
}

// A job whose helper goroutine panicked while its worker kept going still
// settles Failed: the worker's own terminal reply is replaced by the panic.
func TestWorkerReplyAfterAHelperPanicIsTheFailure(t *testing.T) {
	rt := newRT(t, 2)
	j := rt.newJob(KindComputeSum, "")
	rt.start(j, BuiltinActor, workers.LaneRead, func(ctx context.Context, w *Task) reply {
		func() {
			defer w.recoverPanic("a helper")
			panic("helper down")
		}()
		return reply{Kind: replySum, N: 1}
	})
	o := outcomeOf(t, rt, j.id)
	requirePanicFailure(t, o, KindComputeSum, "a helper", "helper down")
	require.True(t, strings.HasPrefix(jobErr(t, o.Err).Message, jobName(KindComputeSum, j.id)+": panicked in a helper"), jobErr(t, o.Err).Message)
}

// A panic that grep re-raises on the worker (one of its fanout goroutines
// panicked) fails the grep with internal_error, and the job's progress
// reporter and flush timer stop with it: goleak in TestMain would report a
// reporter left ticking. Before the deferred stop, the re-panic skipped it.
func TestPanicRaisedBySearchStopsTheGrepsHelpers(t *testing.T) {
	prev := searchTree
	searchTree = func(ctx context.Context, spec grep.Spec, emit func([]grep.Match) error) (grep.Stats, error) {
		_ = emit([]grep.Match{{File: "a.txt", Line: 1, Text: "needle"}})
		panic("fanout boom")
	}
	t.Cleanup(func() { searchTree = prev })
	rt := newRT(t, 2)
	id := rt.DispatchGrep(grep.Spec{Root: threeMatchingFiles(t), Pattern: "needle"}, DispatchOptions{})
	o := drainStream(t, rt, id, time.Millisecond, 5*time.Second).outcome
	require.Equal(t, Failed, o.State, "%+v", o)
	require.Equal(t, workers.CodeInternal, jobErr(t, o.Err).Code)
	require.Contains(t, jobErr(t, o.Err).Message, "fanout boom")
	requireLoopGoesOn(t, rt)
	rt.Close()
	require.NoError(t, goleak.Find(goleak.IgnoreCurrent()), "the grep's helpers outlive it")
}
