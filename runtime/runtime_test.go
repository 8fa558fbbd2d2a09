package runtime

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// injectRun allocates two resource jobs without running them, injects their
// successful replies in the order given, and returns what Tick reported.
func injectRun(t *testing.T, reverse bool) []ResourceOp {
	rt := newRT(t, 2)
	a := rt.newJob(testKind, "")
	a.resource = &ResourceOp{Op: ResourceRename, From: "/tmp/a-from", To: "/tmp/a-to"}
	b := rt.newJob(testKind, "")
	b.resource = &ResourceOp{Op: ResourceRemove, From: "/tmp/b-gone"}
	order := []*job{a, b}
	if reverse {
		order = []*job{b, a}
	}
	for _, j := range order {
		require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: j.t.id, Kind: replyUnit}))
	}
	out := rt.Tick()
	require.Len(t, out.Settled, 2)
	return out.Resources
}

// Resources are reported in bus-arrival order, not allocation order (ported:
// tick_reports_resources_in_bus_arrival_order_not_allocation_order).
func TestTickReportsResourcesInBusArrivalOrder(t *testing.T) {
	aOp := ResourceOp{Op: ResourceRename, From: "/tmp/a-from", To: "/tmp/a-to"}
	bOp := ResourceOp{Op: ResourceRemove, From: "/tmp/b-gone"}
	require.Equal(t, []ResourceOp{bOp, aOp}, injectRun(t, true), "B injected first is reported first")
	require.Equal(t, []ResourceOp{aOp, bOp}, injectRun(t, false))
}

// A failed or cancelled mutation is settled but never harvested (ported:
// a_failed_or_cancelled_resource_job_is_not_harvested).
func TestFailedOrCancelledResourceJobIsNotHarvested(t *testing.T) {
	rt := newRT(t, 2)
	failed := rt.newJob(testKind, "")
	failed.resource = &ResourceOp{Op: ResourceRename, From: "/tmp/nope", To: "/tmp/also-nope"}
	cancelled := rt.newJob(testKind, "")
	cancelled.resource = &ResourceOp{Op: ResourceRemove, From: "/tmp/never"}
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: failed.t.id, Kind: replyFailed, Msg: "ENOENT", Code: "ENOENT"}))
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: cancelled.t.id, Kind: replyCancelled}))
	out := rt.Tick()
	require.Len(t, out.Settled, 2)
	require.Empty(t, out.Resources)
}

// A duplicate or late terminal reply is ignored: settle is exactly once.
func TestSettleIsExactlyOnce(t *testing.T) {
	rt := newRT(t, 2)
	j := rt.newJob(testKind, "")
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: j.t.id, Kind: replySum, N: 3}))
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: j.t.id, Kind: replyFailed, Msg: "late"}))
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: 999_999, Kind: replyUnit}))
	out := rt.Tick()
	require.Equal(t, []JobID{j.t.id}, out.Settled)
	o, ok := rt.TakeResult(j.t.id)
	require.True(t, ok)
	require.Equal(t, Outcome{State: Complete, value: uint64(3)}, o)
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: j.t.id, Kind: replyUnit}))
	require.Empty(t, rt.Tick().Settled, "a reply after take is ignored")
}

// A malformed envelope is counted and dropped; the main goroutine goes on.
func TestMalformedReplyIsDroppedNotPanicked(t *testing.T) {
	rt := newRT(t, 2)
	require.NoError(t, rt.wbus.SendEnvelope(busEnvelope([]byte{0x92, 0x01})))
	require.NoError(t, rt.wbus.SendEnvelope(busEnvelope([]byte{0xc1})))
	require.NoError(t, rt.wbus.SendEnvelope(busEnvelope([]byte{0x92, 0x01, 0x7f})))
	require.Empty(t, rt.Tick().Settled)
	require.Equal(t, uint64(3), rt.MalformedReplies())
	id := rt.startValue(10, DispatchOptions{})
	require.Equal(t, uint64(10), outcomeOf(t, rt, id).value)
}

// TestSettledListsStayTheirCallers covers the arena ticks carve their
// Settled lists from: a list a caller keeps is not overwritten by later
// ticks, and appending to it cannot write into a later tick's list, even
// when its tick drained more replies than it settled.
func TestSettledListsStayTheirCallers(t *testing.T) {
	rt := newRT(t, 2)
	a := rt.newJob(testKind, "")
	// A late reply for a job already taken settles nothing, so this tick
	// expects two settles and makes one.
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: a.t.id + 1000, Kind: replyUnit}))
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: a.t.id, Kind: replyUnit}))
	first := rt.Tick().Settled
	require.Equal(t, []JobID{a.t.id}, first)
	grown := append(first, 999)

	b := rt.newJob(testKind, "")
	require.NoError(t, rt.wbus.Send(replyTopic, &reply{Job: b.t.id, Kind: replyUnit}))
	second := rt.Tick().Settled
	require.Equal(t, []JobID{b.t.id}, second)
	require.Equal(t, []JobID{a.t.id}, first, "a later tick left the kept list alone")
	require.Equal(t, []JobID{a.t.id, 999}, grown, "the append went to a copy of its own")
}
