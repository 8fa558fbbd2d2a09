package editor

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/lsp"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// Replies a frame left when its budget ran out keep the loop from its idle
// sleep even when they are not the binding's (the editor's own jobs, so the
// binding is not busy) and the loop has already taken the Ready token: the
// next wake is the next frame, not the idle second.
func TestLoopDoesNotIdleWhileRepliesPending(t *testing.T) {
	h := startEditor(t, Options{})
	// Start-up tasks (the init file's) settle first: only the replies
	// below may want a frame.
	require.Eventually(t, func() bool {
		var idle bool
		return h.e.call(func() { idle = onlyWatching(h.e) && !h.e.lb.WantsFrame() }) && idle
	}, waitTimeout, time.Millisecond)
	var wanted, pending, others bool
	var wake, target time.Duration
	var errs []error
	require.True(t, h.e.call(func() {
		e := h.e
		ids := make([]runtime.JobID, 200)
		for i := range ids {
			ids[i], _ = e.rt.RegisterExternal(lsp.RequestKind, "")
			if err := e.rt.CompleteExternalOK(ids[i], i); err != nil {
				errs = append(errs, err)
			}
		}
		e.rt.TickWithin(runtime.TickLimit{Max: 10}) // a frame out of time
		e.replies = false                           // as frame leaves it
		select {
		case <-e.rt.Ready(): // as the loop would take it
		default:
		}
		pending = e.rt.Pending()
		others = e.lb.WantsFrame() || e.hooks.hasFrame(e.cur.id) || len(e.grepViews) > 0
		wanted = e.frameWanted()
		wake = e.nextWake(time.Now())
		target = e.rt.FrameTarget()
		e.rt.Tick()
		for _, id := range ids {
			e.rt.TakeResult(id)
		}
	}))
	require.Empty(t, errs)
	require.True(t, pending)
	require.False(t, others, "nothing but the replies may want a frame here")
	require.True(t, wanted, "replies are pending: a frame has work")
	require.LessOrEqual(t, wake, target)
}
