package runtime

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/workers"
)

// Fault tests (issue 8). Faults proved elsewhere, not repeated here:
//   - a handler that panics in each lane, and a mutating handler that panics
//     (actor fatal, later jobs refused): TestPanickingHandlersSettleWithClearErrors
//     in external_test.go;
//   - malformed envelopes injected on the bus: TestMalformedReplyIsDroppedNotPanicked
//     in runtime_test.go, and FuzzReplyDecode in wire_test.go;
//   - an external job that never completes and is cancelled:
//     TestExternalJobThatNeverCompletesIsCancelled in external_test.go.

// A worker whose handler sends malformed envelopes (garbage bytes, a reply
// of an unknown kind for a job nobody knows, a reply for an unknown job,
// items for a request/reply job) before its real reply: the main goroutine
// counts and drops the garbage, the job settles once with its real value,
// and the loop goes on serving other jobs. (An undecodable reply that names
// a running job fails that job: TestUndecodableReplyForAKnownJobFailsIt.)
func TestMalformedRepliesFromAWorkerNeverStopTheLoop(t *testing.T) {
	rt := newRT(t, 2)
	j := rt.newJob(testKind, "")
	rt.start(j, BuiltinActor, workers.LaneRead, func(ctx context.Context, w *Task) reply {
		_ = rt.wbus.SendEnvelope(busEnvelope([]byte{0xc1}))
		_ = rt.wbus.SendEnvelope(busEnvelope([]byte{0x92, 0xcd, 0x30, 0x39, 0x7f})) // job 12345
		_ = rt.wbus.SendEnvelope(busEnvelope(bytes.Repeat([]byte{0xdd, 0xff, 0xff, 0xff, 0xff}, 8)))
		_ = rt.wbus.Send(replyTopic, &reply{Job: 1 << 40, Kind: replySum, N: 1})
		_ = rt.wbus.Send(replyTopic, intsReply(w.ID(), 1, 2)) // items for a request/reply job
		return reply{Kind: replySum, N: 7}
	})
	var settles int
	tickUntil(t, rt, 2*time.Second, func(out TickOutcome) bool {
		for _, id := range out.Settled {
			require.Equal(t, j.t.id, id)
			settles++
		}
		return rt.IsComplete(j.t.id)
	})
	require.Equal(t, 1, settles)
	o, ok := rt.TakeResult(j.t.id)
	require.True(t, ok)
	require.Equal(t, Outcome{State: Complete, value: uint64(7)}, o)
	// The items count too: a request/reply kind has no codec to read them.
	require.Equal(t, uint64(4), rt.MalformedReplies())
	require.Equal(t, uint64(10), outcomeOf(t, rt, rt.startValue(10, DispatchOptions{})).value, "the loop goes on")
	require.Zero(t, rt.PendingLen())
}
