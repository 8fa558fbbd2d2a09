// Package idlegc starts a garbage collection while a loop has nothing to
// do, so that the burst of work that wakes it starts with the collector's
// whole runway ahead and its frames do not meet a mark phase.
//
// A loop calls [Collector.Idle] when it is about to wait for input with no
// frame wanted. If the heap has used at least a quarter of the growth the
// collector allows it before the next cycle, Idle starts a collection on a
// goroutine of its own and returns: with the loop asleep the collector's
// workers have the idle cores, and the cycle that would have started in
// the middle of the next burst (taking the loop's processor for a mark
// worker, and charging its allocations with mark assists) has already run.
// A heap that grew by less is left alone: collecting it would cost the
// idle cores for little runway.
package idlegc

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
)

// minGrowth is the smallest growth since the last collection that is worth
// one: below it a burst could not have used much runway.
const minGrowth = 1 << 20

// Collector starts idle-time collections, one at a time. The zero value is
// ready to use; it may be used from any goroutine.
type Collector struct {
	running atomic.Bool
	started atomic.Uint64
}

// Idle starts a collection on its own goroutine when the heap has grown by
// at least a quarter of the way from the last cycle's live heap to the next
// cycle's goal (and by minGrowth), no collection it started is still
// running, and the collector is on. It reports whether it started one. It
// costs a read of four runtime metrics, without stopping the world.
func (c *Collector) Idle() bool {
	if c.running.Load() {
		return false
	}
	s := [...]metrics.Sample{
		{Name: "/gc/gogc:percent"},
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/heap/goal:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
	}
	metrics.Read(s[:])
	for _, v := range s {
		if v.Value.Kind() != metrics.KindUint64 {
			return false
		}
	}
	if s[0].Value.Uint64() > 1<<62 { // GOGC=off reads as -1
		return false
	}
	live, goal, heap := s[1].Value.Uint64(), s[2].Value.Uint64(), s[3].Value.Uint64()
	if goal <= live || heap <= live {
		return false
	}
	grown := heap - live
	if grown < minGrowth || grown < (goal-live)/4 {
		return false
	}
	if !c.running.CompareAndSwap(false, true) {
		return false
	}
	c.started.Add(1)
	go func() {
		defer c.running.Store(false)
		runtime.GC()
	}()
	return true
}

// Running reports whether a collection Idle started is still running.
func (c *Collector) Running() bool { return c.running.Load() }

// Started is how many collections Idle has started.
func (c *Collector) Started() uint64 { return c.started.Load() }
