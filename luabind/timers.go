package luabind

import (
	"container/heap"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// Timers live in a heap on the binding's goroutine, fired by Frame: a
// sleeping task or a pending w.sleep holds no goroutine and no worker, only
// an entry here, so 100,000 sleeps cost their entries and nothing per
// frame but the look at the heap's top.

type timerWhat uint8

const (
	timerSleep    timerWhat = iota // resume task (pmacs.async.sleep)
	timerDeadline                  // an await's timeout_ms: unpark task with nil, "timeout"
	timerJob                       // settle job, an external job (w.sleep)
)

type timer struct {
	when time.Time
	idx  int // index in the heap, -1 once out of it
	what timerWhat
	task *Task
	job  runtime.JobID
	// stop unregisters a w.sleep's watch on its job's context.
	stop func() bool
}

// timerHeap is a min-heap of timers by when.
type timerHeap []*timer

func (h timerHeap) Len() int           { return len(h) }
func (h timerHeap) Less(i, j int) bool { return h[i].when.Before(h[j].when) }
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx, h[j].idx = i, j
}
func (h *timerHeap) Push(x any) {
	tm := x.(*timer)
	tm.idx = len(*h)
	*h = append(*h, tm)
}
func (h *timerHeap) Pop() any {
	old := *h
	n := len(old) - 1
	tm := old[n]
	old[n] = nil
	*h = old[:n]
	tm.idx = -1
	return tm
}

func (h *timerHeap) add(tm *timer) { heap.Push(h, tm) }

// remove takes tm out of the heap; a timer already out is left alone.
func (h *timerHeap) remove(tm *timer) {
	if tm.idx >= 0 && tm.idx < len(*h) && (*h)[tm.idx] == tm {
		heap.Remove(h, tm.idx)
	}
}

// after returns a timer ms milliseconds from now (a negative or NaN ms is
// now; a huge one is a century).
func after(ms float64, what timerWhat) *timer {
	const century = 100 * 365 * 24 * time.Hour
	d := time.Duration(0)
	if ms > 0 {
		d = century
		if ms < float64(century/time.Millisecond) {
			d = time.Duration(ms * float64(time.Millisecond))
		}
	}
	return &timer{when: time.Now().Add(d), what: what, idx: -1}
}

// fireTimers fires every timer due at now: sleeping tasks and tasks whose
// await timed out are queued to resume this frame, w.sleep jobs complete
// (they settle in this frame's tick).
func (b *Binding) fireTimers(now time.Time) {
	for len(b.timers) > 0 && !b.timers[0].when.After(now) {
		tm := heap.Pop(&b.timers).(*timer)
		switch tm.what {
		case timerJob:
			if j := b.jobs[tm.job]; j != nil && j.timer == tm {
				j.timer = nil
			}
			if tm.stop != nil {
				tm.stop()
			}
			// A job cancelled meanwhile is no longer pending: a no-op.
			_ = b.rt.CompleteExternalOK(tm.job, nil)
		case timerSleep:
			t := tm.task
			if t.timer == tm && t.parked {
				t.timer = nil
				b.run = append(b.run, resumption{t: t})
			}
		case timerDeadline:
			t := tm.task
			if t.timer == tm && t.parked {
				t.timer = nil
				if b.unpark(t) {
					b.run = append(b.run, resumption{t: t, vals: []lua.LValue{lua.LNil, lua.LString("timeout")}})
				}
			}
		}
	}
}

// sleepCancelled is called, on a goroutine of the context package's, when
// a w.sleep's job is cancelled; the next frame settles it.
func (b *Binding) sleepCancelled(id runtime.JobID) {
	b.cmu.Lock()
	b.cancelledSleeps = append(b.cancelledSleeps, id)
	b.cmu.Unlock()
}

// endCancelledSleeps settles the w.sleep jobs cancelled since the last
// frame, and the one id names when it is one (a cancel through the
// binding: at once).
func (b *Binding) endCancelledSleeps() {
	b.cmu.Lock()
	ids := b.cancelledSleeps
	b.cancelledSleeps = nil
	b.cmu.Unlock()
	for _, id := range ids {
		b.endSleep(id)
	}
}

// endSleep settles a cancelled w.sleep job now instead of at its time.
func (b *Binding) endSleep(id runtime.JobID) {
	j := b.jobs[id]
	if j == nil || j.timer == nil {
		return
	}
	b.timers.remove(j.timer)
	if j.timer.stop != nil {
		j.timer.stop()
	}
	j.timer = nil
	b.rt.CompleteExternalCancelled(id)
}

// NextTimer returns when the earliest timer is due, for a host that sleeps
// between frames; false when none is set.
func (b *Binding) NextTimer() (time.Time, bool) {
	if len(b.timers) == 0 {
		return time.Time{}, false
	}
	return b.timers[0].when, true
}
