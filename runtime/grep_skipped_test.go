package runtime

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/grep"
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

// While a grep runs, the skip counts of its last progress reply are
// StreamSkipped's and every batch's; a progress reply without them (another
// producer's) leaves them as they were.
func TestStreamSkippedFollowsProgressReplies(t *testing.T) {
	rt := newRT(t, 1)
	j := rt.newJob(KindGrep, "")
	rt.newStream(j, 0)
	_, ok := rt.StreamSkipped(j.id)
	require.True(t, ok)
	sk := grep.SkipCounts{SkipCounts: walk.SkipCounts{HiddenDirs: 3}, OversizeFiles: 2}
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: j.id, Kind: replyProgress, N: 5, Skipped: &sk}))
	rt.Tick()
	got, ok := rt.StreamSkipped(j.id)
	require.True(t, ok)
	require.Equal(t, sk, got)
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: j.id, Kind: replyProgress, N: 6}))
	rt.Tick()
	got, _ = rt.StreamSkipped(j.id)
	require.Equal(t, sk, got)
	p, _ := rt.StreamProgress(j.id)
	require.Equal(t, uint64(6), p)

	_, ok = rt.StreamSkipped(JobID(1 << 40))
	require.False(t, ok, "unknown id")
}
