package grepjob

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/kinds/kindtest"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/walk"
)

// A grep says what it left out (issue 14, live grep): the closing batch
// carries the search's skip counts by reason beside its files searched, so
// a view can say what the search did not look at.
func TestGrepClosingBatchCarriesSkipCounts(t *testing.T) {
	root := makeTree(t, map[string]string{
		".gitignore": "*.log\n",
		"keep.txt":   "needle\n",
		"a.log":      "needle\n",
		".hidden":    "needle\n",
		"bin.dat":    "needle\x00\n",
	})
	require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
	rt := newRT(t, 2)
	res := drainStream(t, rt, rt.DispatchGrep(grep.Spec{Root: root, Pattern: "needle"}, DispatchOptions{}), time.Millisecond, 5*time.Second)
	require.Equal(t, Complete, res.outcome.State)
	require.Len(t, res.matches, 1)
	require.Equal(t, grep.SkipCounts{
		SkipCounts:  walk.SkipCounts{IgnoredFiles: 1, HiddenFiles: 2, HiddenDirs: 1},
		BinaryFiles: 1,
	}, res.skipped)
}

// While a grep runs, the skip counts of its last progress report are
// StreamSkipped's and every batch's; a progress report without them leaves
// them as they were.
func TestStreamSkippedFollowsProgressReplies(t *testing.T) {
	rt := newRT(t, 1)
	sk := grep.SkipCounts{SkipCounts: walk.SkipCounts{HiddenDirs: 3}, OversizeFiles: 2}
	step, done := make(chan struct{}), make(chan struct{})
	id := rt.Start(runtime.Job{Kind: Kind, Stream: true, Run: func(ctx context.Context, w *runtime.Task) (any, error) {
		defer close(done)
		<-step
		w.Progress(5, sk)
		<-step
		w.Progress(6, nil)
		<-ctx.Done()
		return nil, ctx.Err()
	}}, DispatchOptions{})
	t.Cleanup(func() { rt.Cancel(id); <-done })
	_, ok := rt.StreamSkipped(id)
	require.True(t, ok)
	step <- struct{}{}
	kindtest.PumpUntil(t, rt.Runtime, func() bool { p, _ := rt.StreamProgress(id); return p == 5 })
	got, ok := rt.StreamSkipped(id)
	require.True(t, ok)
	require.Equal(t, sk, got)
	step <- struct{}{}
	kindtest.PumpUntil(t, rt.Runtime, func() bool { p, _ := rt.StreamProgress(id); return p == 6 })
	got, _ = rt.StreamSkipped(id)
	require.Equal(t, sk, got)

	_, ok = rt.StreamSkipped(JobID(1 << 40))
	require.False(t, ok, "unknown id")
}
