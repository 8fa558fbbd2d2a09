package runtime_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/kinds/demojob"
	"github.com/pmacs-go/pmacs-go/kinds/kindtest"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// TestStatsCountsWhatTheRuntimeHolds checks each Stats field against jobs
// whose shape is known: a keyed sleep, an unkeyed stream and an external job,
// and that every count but the malformed one is zero once all are taken.
func TestStatsCountsWhatTheRuntimeHolds(t *testing.T) {
	rt := kindtest.New(t, 2)
	require.Equal(t, runtime.Stats{}, rt.Stats())

	sleep := demojob.DispatchSleep(rt, time.Hour, runtime.DispatchOptions{Key: "nap"})
	stream := demojob.DispatchEmitN(rt, 10, runtime.DispatchOptions{})
	ext, _ := rt.RegisterExternal(kindExternal, "hover")
	require.Equal(t, runtime.Stats{Pending: 3, Streams: 1, SupersedeKeys: 2}, rt.Stats())

	rt.Cancel(sleep)
	rt.CompleteExternalCancelled(ext)
	kindtest.Drain(t, rt, stream, time.Millisecond, 5*time.Second)
	kindtest.PumpUntil(t, rt, func() bool { return rt.IsComplete(sleep) && rt.IsComplete(ext) })
	_, ok := rt.TakeResult(sleep)
	require.True(t, ok)
	_, ok = rt.TakeResult(ext)
	require.True(t, ok)
	require.Equal(t, runtime.Stats{}, rt.Stats())
}
