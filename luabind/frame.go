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

// Frame runs one frame: Tick, convert and record what settled, tell
// Options.OnTick, take the streams' batches, then resume the tasks parked
// on them in settle order (request/reply settles first, in bus-arrival
// order, then stream batches in delivery order), and the tasks that
// yielded by themselves last frame. A task finishing wakes the tasks
// awaiting it within the same frame; a task that dispatches and waits again
// parks until a later frame, because its new job cannot settle before the
// next Tick.
//
// With a frame budget (Options.FrameBudget) the budget bounds the whole
// frame, the runtime's tick included: replies not applied when it runs out
// stay queued in order for the next frame, and the runtime's Ready channel
// holds a token for them (see runtime.Runtime.TickWithin).
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
	b.clock = start
	b.pool.age(start, b.live)

	b.run = append(b.run, b.next...)
	clear(b.next)
	b.next = b.next[:0]
	// The work aims a sixteenth short of the budget: each step's cost is
	// estimated from the last, and the estimate's error, and the one
	// resumption that always runs, must land inside the budget, not past
	// it.
	aim := b.budget - b.budget/16

	// Due timers first: a w.sleep they complete settles in this tick.
	b.endCancelledSleeps()
	b.fireTimers(start)
	b.startLSPFrame()
	// The runtime's Tick polls the MCP host and the language clients (see
	// runtime.Poller) within the frame's budget.
	b.tick(&fs, start, aim)
	b.lspDiagnosticsHooks()
	if b.onTick != nil && (len(fs.Tick.Settled) > 0 || len(fs.Tick.Resources) > 0) {
		b.onTick(fs.Tick)
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
	// when it runs out waits for the next frame, still in order. One
	// resumption always runs, so a tick that spent the whole budget cannot
	// starve the tasks; the clock is read right after it and then every 8
	// (a resumption costs a microsecond or more, a look at the clock a few
	// tens of nanoseconds), and the frame stops when the next group would
	// pass the aim at the cost of the last: stopping only once the budget
	// was spent ran every full frame a group past it.
	i := 0
	group := time.Now()
	for ; i < len(b.run) && !b.closed; i++ {
		if b.budget > 0 && i&7 == 1 {
			now := time.Now()
			next := now.Sub(group) // the last group's cost
			if i == 1 {
				next *= 8
			}
			if now.Sub(start)+next > aim {
				fs.Deferred = len(b.run) - i
				break
			}
			group = now
		}
		r := b.run[i]
		b.run[i] = resumption{}
		b.resume(b.ls, r.t, nil, r.vals)
		fs.Resumed++
	}
	if !b.closed {
		// What is left stays where it is: moving thousands of deferred
		// resumptions to the front cost a budgeted frame 20 us past its
		// end. The run slots were cleared as they ran. Once the queue is
		// empty it starts again at the front of its array: left resliced,
		// the array's room shrank with every partial frame and the next
		// burst's appends copied it afresh (70 bytes a settle).
		if arrayEnd(b.run) != arrayEnd(b.runBase) {
			b.runBase = b.run[:0] // an append moved the queue to a new array
		}
		if i == len(b.run) {
			b.run = b.runBase[:0]
		} else {
			b.run = b.run[i:]
		}
	}
	fs.Duration = time.Since(start)
	return fs
}

// arrayEnd is the last element of s's array, nil for none: a slice
// resliced from the front keeps its array's end, so two slices with the
// same end share their array.
func arrayEnd(s []resumption) *resumption {
	if cap(s) == 0 {
		return nil
	}
	return &s[:cap(s)][cap(s)-1]
}

// tickChunk is how many replies a budgeted frame applies and settles between
// two looks at the clock: converting a result costs about as much as
// decoding its reply, so Tick's own deadline alone would let the settling
// overrun the budget by as much again.
const tickChunk = 128

// tick applies the runtime's replies and settles the binding's jobs they
// finish. Without a budget it is one Tick. With one, it ticks in chunks until
// the frame's time is spent; the runtime keeps the rest, in order, for the
// next frame (and wakes the loop for them).
func (b *Binding) tick(fs *FrameStats, start time.Time, aim time.Duration) {
	if b.budget <= 0 {
		fs.Tick = b.rt.Tick()
		b.settleAll(fs.Tick.Settled)
		return
	}
	limit := runtime.TickLimit{Deadline: start.Add(aim), Max: tickChunk}
	for {
		chunk := time.Now()
		t := b.rt.TickWithin(limit)
		b.settleAll(t.Settled)
		if fs.Tick.Settled == nil && fs.Tick.Resources == nil {
			fs.Tick = t
		} else {
			fs.Tick.Settled = append(fs.Tick.Settled, t.Settled...)
			fs.Tick.Resources = append(fs.Tick.Resources, t.Resources...)
		}
		if !b.rt.Pending() {
			return
		}
		// The next chunk is cut to what fits in the time left at this
		// chunk's cost per settle, so the frame ends within its budget
		// instead of a chunk past it.
		now := time.Now()
		left := limit.Deadline.Sub(now)
		if left <= 0 {
			return
		}
		if n := len(t.Settled); n > 0 {
			per := now.Sub(chunk) / time.Duration(n)
			if per > 0 {
				fit := left / per
				if fit < 1 {
					return
				}
				limit.Max = int(min(fit, tickChunk))
			}
		}
	}
}

// settleAll settles the binding's request/reply jobs among ids; streams
// settle through their batches.
func (b *Binding) settleAll(ids []runtime.JobID) {
	for _, id := range ids {
		if j := b.jobs[id]; j != nil && !j.stream {
			b.settle(j)
		}
	}
}
