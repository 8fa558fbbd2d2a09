package luabind

import (
	"reflect"
	goruntime "runtime"
	"slices"

	lua "github.com/yuin/gopher-lua"
)

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
// (which only deep nesting produces). Unwinding costs about 100 ns a
// frame, and a wait that may yield is a handful of frames below the
// coroutine's start, so a short walk is tried before the full one.
func (c *stackClassifier) vmLoops() int {
	if c.kinds == nil {
		c.kinds = make(map[uintptr]uint8)
	}
	if n, ok := c.walk(shortWalk); ok {
		return n
	}
	n, _ := c.walk(len(c.pcs))
	return n
}

// shortWalk is how many frames the first, cheap walk examines.
const shortWalk = 8

// walk classifies up to max frames above its caller's caller; ok is false
// when the coroutine's start was not among them.
func (c *stackClassifier) walk(max int) (loops int, ok bool) {
	n := goruntime.Callers(callersSkipSelf+1, c.pcs[:max])
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
			return loops, true
		}
	}
	return unknownNesting, false
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

// The values a resumed task receives. gopher-lua resumes a coroutine that a
// Go function yielded by pushing the resume values where that function's
// results go, as they are: unlike Lua 5.1, which adjusts them to the number
// its call site asks for, it neither pads nor truncates. A variable the
// values do not reach is left holding whatever the register held, a Go nil
// interface past the stack top, which every comparison dereferences
// ("local v, err, code = h:await()" then "code == nil" raised a nil pointer
// dereference) and which a condition takes as true. The binding therefore
// records, when a task parks, how many results its call site takes, and
// adjusts the values it resumes the task with to exactly that, as
// gopher-lua does for a Go function that returns normally.
//
// The count is the yielding Go function's call frame's NRet, which
// gopher-lua keeps private. It is read by reflection on the frame
// lua.Debug points to; resultsField is that path, found once. If a
// gopher-lua upgrade moves it, resultsField.ok is false, waits fall back to
// passing values as they are, and TestCallResultsIsReadable fails.
var resultsField = findResultsField()

type framePath struct {
	frame, nret int
	ok          bool
}

func findResultsField() framePath {
	dt := reflect.TypeOf(lua.Debug{})
	f, ok := dt.FieldByName("frame")
	if !ok || f.Type.Kind() != reflect.Pointer || f.Type.Elem().Kind() != reflect.Struct {
		return framePath{}
	}
	n, ok := f.Type.Elem().FieldByName("NRet")
	if !ok || n.Type.Kind() != reflect.Int {
		return framePath{}
	}
	return framePath{frame: f.Index[0], nret: n.Index[0], ok: true}
}

// resultsUnknown marks a park whose call site's result count could not be
// read: the resume values then go through as they are.
const resultsUnknown = -2

// callResults returns how many results the call site of the Go function
// running on L takes: lua.MultRet (-1) for all of them, as in
// "return h:await()" or "f(h:await())", or the count of a fixed call site.
func callResults(L *lua.LState) int {
	if !resultsField.ok {
		return resultsUnknown
	}
	dbg, ok := L.GetStack(0)
	if !ok {
		return resultsUnknown
	}
	fp := reflect.ValueOf(dbg).Elem().Field(resultsField.frame)
	if fp.IsNil() {
		return resultsUnknown
	}
	return int(fp.Elem().Field(resultsField.nret).Int())
}

// adjustResults returns vals as a call site that takes want results sees
// them: padded with Lua nil or cut to want, every Go nil replaced by Lua
// nil. For lua.MultRet (or an unknown count) only the replacement applies.
// vals is never modified (it may be shared by every waiter of a job): a
// changed copy is built in buf, and built reports it, so the caller can
// reuse buf once Resume has pushed the values.
func adjustResults(vals []lua.LValue, want int, buf []lua.LValue) (out []lua.LValue, built bool) {
	n := len(vals)
	if want >= 0 {
		n = want
	}
	if n == len(vals) && !slices.Contains(vals, nil) {
		return vals, false
	}
	out = append(buf[:0], vals[:min(n, len(vals))]...)
	for len(out) < n {
		out = append(out, lua.LNil)
	}
	for i, v := range out {
		if v == nil {
			out[i] = lua.LNil
		}
	}
	return out, true
}
