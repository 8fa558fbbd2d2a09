package grepjob

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/kinds/demojob"
	"github.com/pmacs-go/pmacs-go/kinds/kindtest"
	"github.com/pmacs-go/pmacs-go/workers"
)

// Panics on goroutines a grep runs outside the executor's workers (issue 11
// defect 5). Each test injects one panic through a test hook and checks that
// the job settles Failed with internal_error and the panic value, and that
// the loop goes on serving jobs.

// requireLoopGoesOn checks the runtime still runs jobs.
func requireLoopGoesOn(t *testing.T, rt testRT) {
	t.Helper()
	n, ok := demojob.SumOf(kindtest.Outcome(t, rt.Runtime, demojob.DispatchSum(rt.Runtime, 4, DispatchOptions{})))
	require.True(t, ok)
	require.Equal(t, uint64(10), n, "the loop goes on")
}

// requirePanicFailure checks a job's outcome is the recovered panic.
func requirePanicFailure(t *testing.T, o Outcome, where, value string) {
	t.Helper()
	require.Equal(t, Failed, o.State, "%+v", o)
	require.Equal(t, workers.CodeInternal, jobErr(t, o.Err).Code)
	require.Contains(t, jobErr(t, o.Err).Message, Kind.String()+"#")
	require.Contains(t, jobErr(t, o.Err).Message, where)
	require.Contains(t, jobErr(t, o.Err).Message, value)
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
	requirePanicFailure(t, res.outcome, "grep flush timer", "boom in the flush timer")
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
	requirePanicFailure(t, res.outcome, "grep progress reporter", "boom in the progress reporter")
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
	requirePanicFailure(t, res.outcome, "grep match callback", "boom in the match callback")
	require.Empty(t, res.matches)
	requireLoopGoesOn(t, rt)
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
