package runtime

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/workers"
)

// A kind's progress detail crosses the bus in the kind's codec and reaches
// every later batch beside the count; the closing batch has the last one.
func TestKindProgressDetailReachesTheBatch(t *testing.T) {
	rt := newRT(t, 2)
	rt.Start(Job{Kind: detailKind, Actor: BuiltinActor, Lane: workers.LaneStream, Stream: true,
		Run: func(ctx context.Context, w *Task) (any, error) {
			w.Progress(1, "one file")
			if err := w.Send(ctx, testInts{7}); err != nil {
				return nil, err
			}
			w.Progress(2, "two files")
			return nil, nil
		}}, DispatchOptions{})
	var details []any
	var items []uint64
	deadline := time.Now().Add(5 * time.Second)
	for closed := false; !closed; {
		require.True(t, time.Now().Before(deadline), "the stream did not close")
		rt.Tick()
		for _, b := range rt.TakeStreamBatches() {
			details = append(details, b.Detail)
			items = append(items, intsOf(b)...)
			if b.Closed {
				closed = true
				require.Equal(t, Complete, b.Outcome.State)
				require.Equal(t, uint64(2), b.Progress)
				require.Equal(t, "two files", b.Detail)
			}
		}
		waitReady(rt, time.Millisecond)
	}
	require.Equal(t, []uint64{7}, items)
	require.NotContains(t, details, nil, "every batch carries the detail reported before it")
}

// A job that gives neither Run nor Attach fails at once with a message
// naming it, instead of never settling.
func TestStartWithoutWorkFailsTheJob(t *testing.T) {
	rt := newRT(t, 2)
	o := outcomeOf(t, rt, rt.Start(Job{Kind: testKind, Actor: BuiltinActor}, DispatchOptions{}))
	require.Equal(t, Failed, o.State)
	require.Contains(t, jobErr(t, o.Err).Message, "test#")
	require.Contains(t, jobErr(t, o.Err).Message, "nothing to run")
}
