package idlegc

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var sink [][]byte

// waitIdle polls until the collection c started has finished.
func waitIdle(t *testing.T, c *Collector) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for c.Running() {
		require.True(t, time.Now().Before(deadline), "the idle collection never finished")
		time.Sleep(time.Millisecond)
	}
}

// A heap that has used much of its runway is collected when the loop goes
// idle: the cycle count grows, and a second Idle right after (the runway
// whole again) starts nothing.
func TestIdleCollectsAGrownHeap(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()
	var c Collector
	require.False(t, c.Idle(), "a heap just collected needs no idle collection")

	// Garbage past a quarter of the runway: the live heap of a test binary
	// is a few MiB, so its runway is a few MiB too; 64 MiB of garbage
	// would have started a cycle on its own, so allocate in steps and stop
	// as soon as Idle agrees.
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	started := false
	for i := 0; i < 4096 && !started; i++ {
		sink = append(sink, make([]byte, 64<<10))
		if i%16 == 15 {
			sink = nil
			started = c.Idle()
		}
	}
	require.True(t, started, "Idle never started a collection of a growing heap")
	waitIdle(t, &c)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	require.Greater(t, after.NumForcedGC, before.NumForcedGC, "the collection Idle started is a forced one")
	require.Equal(t, uint64(1), c.Started())
	require.False(t, c.Idle(), "right after its collection the heap has its runway back")
}

// With the collector off (GOGC=off) Idle never collects, however much the
// heap has grown: the user chose no collections.
func TestIdleLeavesACollectorTurnedOffAlone(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var c Collector
	for range 256 {
		sink = append(sink, make([]byte, 64<<10))
	}
	sink = nil
	require.False(t, c.Idle())
	require.Zero(t, c.Started())
}
