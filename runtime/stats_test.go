package runtime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestStatsCountsWhatTheRuntimeHolds checks each Stats field against jobs
// whose shape is known: a keyed sleep, an unkeyed stream and an external job,
// and that every count but the malformed one is zero once all are taken.
func TestStatsCountsWhatTheRuntimeHolds(t *testing.T) {
	rt := newRT(t, 2)
	require.Equal(t, Stats{}, rt.Stats())

	sleep := rt.DispatchSleep(time.Hour, DispatchOptions{Key: "nap"})
	stream := rt.DispatchEmitN(10, DispatchOptions{})
	ext, _ := rt.RegisterExternal(kindReply, "hover")
	require.Equal(t, Stats{Pending: 3, Streams: 1, SupersedeKeys: 2}, rt.Stats())

	rt.Cancel(sleep)
	rt.CompleteExternalCancelled(ext)
	drainStream(t, rt, stream, time.Millisecond, 5*time.Second)
	pumpUntil(t, rt, func() bool { return rt.IsComplete(sleep) && rt.IsComplete(ext) })
	_, ok := rt.TakeResult(sleep)
	require.True(t, ok)
	_, ok = rt.TakeResult(ext)
	require.True(t, ok)
	require.Equal(t, Stats{}, rt.Stats())
}
