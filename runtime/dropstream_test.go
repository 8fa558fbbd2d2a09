package runtime_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/kinds/demojob"
	"github.com/pmacs-go/pmacs-go/kinds/kindtest"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// DropStream ends a stream whose consumer is gone: held with its credit
// full, it closes Cancelled within a few ticks, handing out none of what it
// had buffered (with Cancel it would deliver it all first, a batch of
// max_batch per take: 4,096 takes here).
func TestDropStreamClosesWithoutDeliveringTheRest(t *testing.T) {
	rt := kindtest.NewWith(t, runtime.Options{StreamCredit: 4096})
	id := demojob.DispatchEmitN(rt, 1<<40, runtime.DispatchOptions{MaxBatch: 1})
	rt.HoldStream(id, true)
	kindtest.PumpUntil(t, rt, func() bool { return queued(rt, id) >= 4096 })
	rt.DropStream(id)
	var items int
	var closed *runtime.StreamBatch
	kindtest.PumpFor(t, rt, 5*time.Second, func() bool {
		for _, b := range rt.TakeStreamBatches() {
			items += b.Len()
			if b.Closed {
				closed = &b
			}
		}
		return closed != nil
	})
	require.Equal(t, 0, items, "nothing buffered is handed out")
	require.Equal(t, runtime.Cancelled, closed.Outcome.State)
	require.False(t, closed.Superseded, "dropped, not superseded")
}

// queued is how many of the stream's items wait in the runtime.
func queued(rt *runtime.Runtime, id runtime.JobID) int {
	for _, a := range rt.Snapshot().Active {
		if a.ID == id {
			return a.Queued
		}
	}
	return 0
}
