package runtime

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The counters below are Stats fields under the names this package's tests
// have long used; they are test helpers, not part of the API.

// PendingLen is Stats().Pending.
func (rt *Runtime) PendingLen() int { return rt.Stats().Pending }

// SupersedeLen is Stats().SupersedeKeys.
func (rt *Runtime) SupersedeLen() int { return rt.Stats().SupersedeKeys }

// MalformedReplies is Stats().MalformedReplies.
func (rt *Runtime) MalformedReplies() uint64 { return rt.Stats().MalformedReplies }

// StreamCredit is the per-stream high-water mark in items.
func (rt *Runtime) StreamCredit() int { return rt.streamCredit }

// IsCancelled reports whether a job settled Cancelled (not merely whether
// cancel was requested).
func (rt *Runtime) IsCancelled(id JobID) bool {
	j := rt.pending[id]
	return j != nil && j.state == Cancelled
}

// jobErr is a failed outcome's *JobError, failing the test if Err is not one.
func jobErr(t testing.TB, err error) *JobError {
	t.Helper()
	var je *JobError
	require.ErrorAs(t, err, &je)
	return je
}
