package luabind

import (
	"slices"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// Sizing of the pool of finished tasks' threads. A new thread costs about
// 16 us and 10 KB, two thirds of it garbage at once: gopher-lua builds a
// global table for every thread and the thread shares its parent's. A
// burst of tasks (a search that starts one per file, 10,000 awaits settled
// in a frame) would otherwise make that garbage on every burst, and the
// collector it sets off preempts the main goroutine mid-frame. So the pool
// keeps as many threads as the busiest moment of the last two windows had
// tasks, between a floor and a ceiling, and gives the rest back when a
// window passes without such a burst. An idle thread holds about 3 KB.
// Windows close in Frame, so a binding that runs no frames after a burst
// keeps its threads until its next frames.
const (
	minIdleThreads = 256
	maxIdleThreads = 16384
	idleWindow     = 10 * time.Second
)

// threadPool holds the threads of tasks that ran to their end, for reuse.
// It belongs to the binding's goroutine.
type threadPool struct {
	idle []*lua.LState
	// peak is the most tasks alive at once in this window, prev in the
	// one before; the pool keeps up to the larger.
	peak, prev int
	windowEnd  time.Time
}

// limit is how many idle threads the pool keeps.
func (p *threadPool) limit() int {
	return min(max(p.peak, p.prev, minIdleThreads), maxIdleThreads)
}

// get returns an idle thread, or nil when there is none.
func (p *threadPool) get() *lua.LState {
	n := len(p.idle)
	if n == 0 {
		return nil
	}
	th := p.idle[n-1]
	p.idle[n-1] = nil
	p.idle = p.idle[:n-1]
	// Idle threads stay marked dead, so that a script holding a finished
	// task's coroutine sees it dead; a task starts it afresh.
	th.Dead = false
	return th
}

// put keeps th, the thread of a task that ran to its end, unless the pool
// is full. A thread that ran to its end has an empty stack and no open
// upvalues; gopher-lua only marks it dead, and get clears the mark.
func (p *threadPool) put(th *lua.LState) {
	if len(p.idle) < p.limit() {
		p.idle = append(p.idle, th)
	}
}

// saw records that live tasks are alive at once.
func (p *threadPool) saw(live int) {
	p.peak = max(p.peak, live)
}

// age closes the window when it has passed: the peak of the window just
// ended is remembered, a new window starts from the live tasks now, and
// the threads above the new limit are let go.
func (p *threadPool) age(now time.Time, live int) {
	if now.Before(p.windowEnd) {
		return
	}
	p.prev, p.peak = p.peak, live
	p.windowEnd = now.Add(idleWindow)
	n := p.limit()
	if len(p.idle) <= n {
		return
	}
	clear(p.idle[n:])
	p.idle = p.idle[:n]
	if cap(p.idle) > 2*n {
		p.idle = slices.Clone(p.idle)
	}
}
