package runtime

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/bus"
)

// The counters below are Stats fields under the names this package's tests
// have long used; they are test helpers, not part of the API.

// PendingLen is Stats().Pending.
func (rt *Runtime) PendingLen() int { return rt.Stats().Pending }

// SupersedeLen is Stats().SupersedeKeys.
func (rt *Runtime) SupersedeLen() int { return rt.Stats().SupersedeKeys }

// MalformedReplies is Stats().MalformedReplies.
func (rt *Runtime) MalformedReplies() uint64 { return rt.Stats().MalformedReplies }

// ReadyLen is how many streams have something to deliver.
func (rt *Runtime) ReadyLen() int { return len(rt.ready) }

// StreamCredit is the per-stream high-water mark in items.
func (rt *Runtime) StreamCredit() int { return rt.streamCredit }

// IsCancelled reports whether a job settled Cancelled (not merely whether
// cancel was requested).
func (rt *Runtime) IsCancelled(id JobID) bool {
	j := rt.pending.get(id)
	return j != nil && j.state == Cancelled
}

// SendReplyPayload puts payload on the worker bus as a reply envelope, as
// a worker that sends bytes that do not decode would.
func (rt *Runtime) SendReplyPayload(payload []byte) error {
	return rt.wbus.SendEnvelope(busEnvelope(payload))
}

// StreamHolds is what running stream id holds: the items buffered
// undelivered and the credit in flight; false if id is no running stream.
func (rt *Runtime) StreamHolds(id JobID) (buffered, inFlight int, ok bool) {
	j := rt.pending.get(id)
	if j == nil || j.stream == nil {
		return 0, 0, false
	}
	return j.stream.len(), j.stream.credit.InFlight(), true
}

// CreditOf is running stream id's credit, nil if id is no running stream.
func (rt *Runtime) CreditOf(id JobID) *bus.Credit {
	j := rt.pending.get(id)
	if j == nil || j.stream == nil {
		return nil
	}
	return j.stream.credit
}

// jobErr is a failed outcome's *JobError, failing the test if Err is not one.
func jobErr(t testing.TB, err error) *JobError {
	t.Helper()
	var je *JobError
	require.ErrorAs(t, err, &je)
	return je
}
