package runtime

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// An external job's progress line shows on its active row, the latest one
// only, and goes with the job when it settles; a report for a settled or
// unknown job is dropped.
func TestExternalProgressShowsOnTheActiveRow(t *testing.T) {
	rt := newRT(t, 2)
	id, _ := rt.RegisterExternal(kindCall, "")
	other, _ := rt.RegisterExternal(kindReply, "")
	require.Equal(t, "", rt.Snapshot().Active[0].Progress)

	require.True(t, rt.SetExternalProgress(id, "1/3 step 1"))
	require.True(t, rt.SetExternalProgress(id, "2/3 step 2"))
	snap := rt.Snapshot()
	require.Len(t, snap.Active, 2)
	require.Equal(t, id, snap.Active[0].ID)
	require.Equal(t, "2/3 step 2", snap.Active[0].Progress)
	require.Equal(t, "", snap.Active[1].Progress, "progress of one job must not show on another")

	require.NoError(t, rt.CompleteExternalOK(id, "done"))
	rt.Tick()
	require.False(t, rt.SetExternalProgress(id, "3/3 late"))
	require.False(t, rt.SetExternalProgress(JobID(9999), "unknown"))
	snap = rt.Snapshot()
	require.Len(t, snap.Active, 1)
	require.Equal(t, other, snap.Active[0].ID)
}

// A server's text cannot bloat or garble the view: long lines are cut at a
// rune boundary and invalid UTF-8 is replaced.
func TestExternalProgressIsClipped(t *testing.T) {
	rt := newRT(t, 2)
	id, _ := rt.RegisterExternal(kindCall, "")
	require.True(t, rt.SetExternalProgress(id, "a"+strings.Repeat("é", 500)))
	p := rt.Snapshot().Active[0].Progress
	require.True(t, utf8.ValidString(p))
	require.LessOrEqual(t, len(p), MaxProgressLen+len("…"))
	require.True(t, strings.HasSuffix(p, "é…"), p)

	require.True(t, rt.SetExternalProgress(id, "ok\xffbad"))
	require.Equal(t, "ok\uFFFDbad", rt.Snapshot().Active[0].Progress)
}
