package luabind

import goruntime "runtime"

// Kinds of Go frames that matter when deciding whether a task can yield.
const (
	frameOther uint8 = iota + 1
	frameVMLoop
	frameThreadStart
)

// stackClassifier counts the gopher-lua VM loops between the caller and the
// start of the running coroutine. One loop means the wait was called from
// Lua code the coroutine runs directly, and yielding is safe. More means
// the VM was re-entered from Go (pcall, a metamethod, a sort comparator, a
// for-in iterator): gopher-lua would unwind only the innermost loop and keep
// running the coroutine as if the yield had returned.
//
// This reads gopher-lua's private function names off the Go stack, the one
// place its nesting is visible. The binding's tests pin the names: a
// gopher-lua upgrade that renames them fails those tests rather than
// letting a wait corrupt a task.
type stackClassifier struct {
	kinds map[uintptr]uint8
	pcs   [64]uintptr
}

const (
	luaPkg          = "github.com/yuin/gopher-lua."
	fnMainLoop      = luaPkg + "mainLoop"
	fnMainLoopCtx   = luaPkg + "mainLoopWithContext"
	fnThreadRun     = luaPkg + "threadRun"
	unknownNesting  = -1
	callersSkipSelf = 2 // runtime.Callers and vmLoops
)

// vmLoops returns the number of VM loops above the coroutine's start, or
// unknownNesting when the start is further away than the frames examined
// (which only deep nesting produces).
func (c *stackClassifier) vmLoops() int {
	if c.kinds == nil {
		c.kinds = make(map[uintptr]uint8)
	}
	n := goruntime.Callers(callersSkipSelf, c.pcs[:])
	loops := 0
	for _, pc := range c.pcs[:n] {
		k := c.kinds[pc]
		if k == 0 {
			k = classifyPC(pc)
			c.kinds[pc] = k
		}
		switch k {
		case frameVMLoop:
			loops++
		case frameThreadStart:
			return loops
		}
	}
	return unknownNesting
}

func classifyPC(pc uintptr) uint8 {
	frames := goruntime.CallersFrames([]uintptr{pc})
	for {
		f, more := frames.Next()
		switch f.Function {
		case fnMainLoop, fnMainLoopCtx:
			return frameVMLoop
		case fnThreadRun:
			return frameThreadStart
		}
		if !more {
			return frameOther
		}
	}
}
