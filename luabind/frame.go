package luabind

import (
	"time"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// FrameStats is what one Frame did.
type FrameStats struct {
	// Tick is the runtime's tick: every job that settled, the binding's
	// and the editor's own, and the filesystem mutations that completed.
	Tick runtime.TickOutcome
	// Unclaimed holds the stream batches of jobs the binding did not
	// dispatch; TakeStreamBatches hands out every stream's batch at once,
	// so the editor gets its own here.
	Unclaimed []runtime.StreamBatch
	// Resumed counts task resumptions; Batches counts stream batches taken
	// for Lua (queued or handed to an iterator).
	Resumed, Batches int
	// Deferred counts resumptions left for the next frame because the
	// frame budget ran out.
	Deferred int
	// Duration is the wall time of the frame's work.
	Duration time.Duration
}

// Frame runs one frame: Tick, convert and record what settled, take the
// streams' batches, then resume the tasks parked on them in settle order
// (request/reply settles first, in bus-arrival order, then stream batches in
// delivery order), and the tasks that yielded by themselves last frame. A
// task finishing wakes the tasks awaiting it within the same frame; a task
// that dispatches and waits again parks until a later frame, because its new
// job cannot settle before the next Tick.
//
// Frame does nothing when called from inside a task (it is not re-entrant)
// or after Close.
func (b *Binding) Frame() FrameStats {
	var fs FrameStats
	if b.closed || b.inFrame {
		return fs
	}
	b.inFrame = true
	defer func() { b.inFrame = false }()
	start := time.Now()

	b.run = append(b.run, b.next...)
	clear(b.next)
	b.next = b.next[:0]

	b.pumpMCP()
	b.pollLSP()
	fs.Tick = b.rt.Tick()
	for _, id := range fs.Tick.Settled {
		if j := b.jobs[id]; j != nil && !j.stream {
			b.settle(j)
		}
	}
	batches := b.rt.TakeStreamBatches()
	for i := range batches {
		j := b.jobs[batches[i].ID]
		if j == nil {
			fs.Unclaimed = append(fs.Unclaimed, batches[i])
			continue
		}
		fs.Batches++
		b.deliver(j, &batches[i])
	}

	// The queue grows while it is drained: a task that ends wakes its
	// awaiters, who run in this frame too. With a budget, what is left
	// when it runs out waits for the next frame, still in order; the clock
	// is read every 64 resumptions to keep its cost out of the loop.
	i := 0
	for ; i < len(b.run) && !b.closed; i++ {
		if b.budget > 0 && i&63 == 63 && time.Since(start) > b.budget {
			fs.Deferred = len(b.run) - i
			break
		}
		r := b.run[i]
		b.run[i] = resumption{}
		b.resume(b.ls, r.t, nil, r.vals)
		fs.Resumed++
	}
	if !b.closed {
		n := copy(b.run, b.run[i:])
		clear(b.run[n:])
		b.run = b.run[:n]
	}
	fs.Duration = time.Since(start)
	return fs
}
