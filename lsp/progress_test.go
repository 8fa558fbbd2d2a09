package lsp

import (
	"slices"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// activeRow returns the *workers* row of a running job.
func activeRow(rt *runtime.Runtime, job runtime.JobID) (runtime.ActiveJob, bool) {
	snap := rt.Snapshot()
	i := slices.IndexFunc(snap.Active, func(a runtime.ActiveJob) bool { return a.ID == job })
	if i < 0 {
		return runtime.ActiveJob{}, false
	}
	return snap.Active[i], true
}

// progressRows returns the running lsp_request rows that show progress.
func progressRows(rt *runtime.Runtime) []runtime.ActiveJob {
	var rows []runtime.ActiveJob
	for _, a := range rt.Snapshot().Active {
		if a.Kind == RequestKind && a.Progress != "" {
			rows = append(rows, a)
		}
	}
	return rows
}

// Progress the server starts on its own shows in *workers* on a job of its
// own from begin to end, which then completes (notifications: $/progress
// visible in *workers*).
func TestServerProgressShownInWorkers(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	o, _ := await(t, rt, c, c.Request("fake/progress", nil, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	rows := progressRows(rt)
	require.Len(t, rows, 1)
	require.Equal(t, "Indexing: 3/4 (75%)", rows[0].Progress)
	job := rows[0].ID

	o, _ = await(t, rt, c, c.Request("fake/progressEnd", map[string]any{"token": "tok-1"}, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	require.Empty(t, c.Progress())
	// The client owns the job: it takes the outcome itself once settled,
	// so nothing stays in the runtime's table.
	pump(t, rt, c, 10*time.Second, func() bool { _, _, ok := rt.Lookup(job); return !ok })
	require.Empty(t, progressRows(rt))
	require.Equal(t, runtime.Complete, completedState(t, rt, job))
}

// completedState is the state the *workers* view's recent completions show
// for a job.
func completedState(t *testing.T, rt *runtime.Runtime, job runtime.JobID) runtime.State {
	t.Helper()
	snap := rt.Snapshot()
	i := slices.IndexFunc(snap.Completed, func(c runtime.CompletedJob) bool { return c.ID == job })
	require.GreaterOrEqual(t, i, 0, "job %d is not among the recent completions", job)
	return snap.Completed[i].State
}

// Progress on a request's workDoneToken shows on that request's own row
// while it runs, and no other job is made for it.
func TestRequestProgressShownOnItsJob(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	job := c.Request("fake/progress", map[string]any{"workDoneToken": "w-7"}, RequestOptions{})
	pump(t, rt, c, 10*time.Second, func() bool {
		row, ok := activeRow(rt, job)
		// begin and report may land in different frames.
		return ok && row.Progress == "Indexing: 3/4 (75%)"
	})
	row, _ := activeRow(rt, job)
	require.Equal(t, "Indexing: 3/4 (75%)", row.Progress)
	require.Len(t, progressRows(rt), 1, "a request's progress needs no job of its own")
	require.Equal(t, []Progress{{Token: `"w-7"`, Title: "Indexing", Message: "3/4", Percentage: 75}}, c.Progress())

	end := c.Request("fake/progressEnd", map[string]any{"token": "w-7"}, RequestOptions{})
	o, res := await(t, rt, c, job)
	require.True(t, o.OK(), "%v", o.Err)
	require.JSONEq(t, `"done"`, string(res.Value.(jsontext.Value)))
	o, _ = await(t, rt, c, end)
	require.True(t, o.OK(), "%v", o.Err)
	require.Empty(t, c.Progress())
	require.Empty(t, c.tokenJobs)
}

// Cancelling the job that shows the server's progress (from *workers*)
// asks the server to cancel the work; a server that dies mid-progress
// fails the job instead of leaving it running forever.
func TestServerProgressJobCancelAndCrash(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{RestartBackoff: time.Hour})
	o, _ := await(t, rt, c, c.Request("fake/progress", nil, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	rows := progressRows(rt)
	require.Len(t, rows, 1)
	rt.Cancel(rows[0].ID)
	pump(t, rt, c, 10*time.Second, func() bool { _, _, ok := rt.Lookup(rows[0].ID); return !ok })
	require.Equal(t, runtime.Cancelled, completedState(t, rt, rows[0].ID))
	require.Contains(t, fakeLogOf(t, rt, c).Methods, "window/workDoneProgress/cancel")

	// The progress is still the server's to end: it stays on the client.
	require.Len(t, c.Progress(), 1)
	o, _ = await(t, rt, c, c.Request("fake/progress", map[string]any{}, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	rows = progressRows(rt)
	require.Len(t, rows, 1)
	o, _ = await(t, rt, c, c.Request("fake/crash", nil, RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	pump(t, rt, c, 10*time.Second, func() bool { _, _, ok := rt.Lookup(rows[0].ID); return !ok })
	require.Equal(t, runtime.Failed, completedState(t, rt, rows[0].ID))
	require.Empty(t, c.Progress())
}

// A partial result sent on $/progress (a partialResultToken's) is not
// work-done progress: it makes no *workers* row that nothing would end.
func TestPartialResultIsNoProgress(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{})
	o, _ := await(t, rt, c, c.Request("fake/partialResult", nil, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	require.Empty(t, progressRows(rt))
	for _, a := range rt.Snapshot().Active {
		require.NotEqual(t, RequestKind, a.Kind, "a job was made for a partial result")
	}
	require.Empty(t, c.Progress())
}

// A server that begins work after work and ends none holds bounded memory
// and a bounded number of *workers* rows; the server's death settles the
// rows it has.
func TestProgressNeverEndedIsBounded(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{RestartBackoff: time.Hour})
	o, _ := await(t, rt, c, c.Request("fake/progressFlood", map[string]any{"n": 1000}, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	require.Len(t, c.Progress(), maxProgressKept)
	rows := progressRows(rt)
	require.Len(t, rows, maxProgressJobs)
	o, _ = await(t, rt, c, c.Request("fake/crash", nil, RequestOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	pump(t, rt, c, 10*time.Second, func() bool { return len(c.progressDone) == 0 })
	require.Empty(t, progressRows(rt))
	for _, r := range rows {
		_, _, ok := rt.Lookup(r.ID)
		require.False(t, ok, "job %d was never taken", r.ID)
	}
}
