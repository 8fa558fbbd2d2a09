package luabind

import (
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// The primitives tasks coordinate through, all on the main goroutine: a
// future completed from Lua or a callback, an event, a bounded queue and a
// semaphore. A task waiting on one is parked like one awaiting a job: a
// cancel takes it off the waiters, and the stall detector sees it (a task
// waiting on a queue nobody fills can never wake).

// future is pmacs.async.future(): completed once, with values or an error.
type future struct {
	done, failed bool
	vals         []lua.LValue
	waiters      []*Task
}

func (f *future) drop(t *Task) bool { return dropWaiter(&f.waiters, t) }
func (f *future) describe() string  { return "a future" }

// event is pmacs.async.event(): waiters wake when it is set.
type event struct {
	set     bool
	waiters []*Task
}

func (e *event) drop(t *Task) bool { return dropWaiter(&e.waiters, t) }
func (e *event) describe() string  { return "an event" }

// queue is pmacs.async.queue(n): at most n values; put waits while it is
// full, get while it is empty.
type queue struct {
	items   []lua.LValue
	cap     int
	getters []*Task
	putters []putter
}

type putter struct {
	t *Task
	v lua.LValue
}

func (q *queue) drop(t *Task) bool {
	if dropWaiter(&q.getters, t) {
		return true
	}
	for i, p := range q.putters {
		if p.t == t {
			q.putters = append(q.putters[:i], q.putters[i+1:]...)
			return true
		}
	}
	return false
}

func (q *queue) describe() string {
	return "a queue (" + strconv.Itoa(len(q.items)) + "/" + strconv.Itoa(q.cap) + ")"
}

// semaphore is pmacs.async.semaphore(n): n permits.
type semaphore struct {
	free, n int
	waiters []*Task
}

func (s *semaphore) drop(t *Task) bool { return dropWaiter(&s.waiters, t) }
func (s *semaphore) describe() string {
	return "a semaphore (" + strconv.Itoa(s.free) + "/" + strconv.Itoa(s.n) + " free)"
}

func (b *Binding) installSync(L *lua.LState, async *lua.LTable) {
	b.futureMT = metatable(L, map[string]lua.LGFunction{
		"set": b.futureSet, "fail": b.futureFail, "await": b.futureAwait, "done": futureDone,
	}, constString("pmacs.future"))
	b.eventMT = metatable(L, map[string]lua.LGFunction{
		"set": b.eventSet, "clear": eventClear, "wait": b.eventWait, "is_set": eventIsSet,
	}, constString("pmacs.event"))
	b.queueMT = metatable(L, map[string]lua.LGFunction{
		"put": b.queuePut, "get": b.queueGet, "try_put": b.queueTryPut, "try_get": b.queueTryGet,
		"size": queueSize,
	}, constString("pmacs.queue"))
	b.semMT = metatable(L, map[string]lua.LGFunction{
		"acquire": b.semAcquire, "release": b.semRelease, "available": semAvailable,
	}, constString("pmacs.semaphore"))
	L.SetFuncs(async, map[string]lua.LGFunction{
		"future": func(L *lua.LState) int {
			L.Push(&lua.LUserData{Value: &future{}, Metatable: b.futureMT})
			return 1
		},
		"event": func(L *lua.LState) int {
			L.Push(&lua.LUserData{Value: &event{}, Metatable: b.eventMT})
			return 1
		},
		"queue": func(L *lua.LState) int {
			n := checkCount(L, "pmacs.async.queue", 1, "n")
			if n < 1 {
				raise(L, "pmacs.async.queue: n (the most values it holds) must be at least 1")
			}
			L.Push(&lua.LUserData{Value: &queue{cap: int(min(n, 1<<30))}, Metatable: b.queueMT})
			return 1
		},
		"semaphore": func(L *lua.LState) int {
			n := checkCount(L, "pmacs.async.semaphore", 1, "n")
			if n < 1 {
				raise(L, "pmacs.async.semaphore: n (its permits) must be at least 1")
			}
			L.Push(&lua.LUserData{Value: &semaphore{free: int(min(n, 1<<30)), n: int(min(n, 1<<30))}, Metatable: b.semMT})
			return 1
		},
	})
}

func constString(s string) lua.LGFunction {
	return func(L *lua.LState) int {
		L.Push(lua.LString(s))
		return 1
	}
}

// parkOn parks the task running on L on w, whose waiters list it was
// appended to by the caller.
func (b *Binding) parkOn(L *lua.LState, t *Task, w waitable) int {
	t.waitOn = w
	return b.park(L, t)
}

func (b *Binding) wake(ws []*Task, vals []lua.LValue) {
	for _, t := range ws {
		b.run = append(b.run, resumption{t: t, vals: vals})
	}
}

// ---- future ----

func checkFuture(L *lua.LState, fname string) *future {
	return checkSelf[*future](L, fname, "future (call it as f:method())")
}

// futureSet is f:set(...): completes f with the values; a second
// completion is an error.
func (b *Binding) futureSet(L *lua.LState) int {
	f := checkFuture(L, "f:set")
	if f.done {
		raise(L, "f:set: the future is already completed")
	}
	f.done = true
	f.vals = make([]lua.LValue, 0, L.GetTop()-1)
	for i := 2; i <= L.GetTop(); i++ {
		f.vals = append(f.vals, L.Get(i))
	}
	b.wake(f.waiters, f.vals)
	f.waiters = nil
	return 0
}

// futureFail is f:fail(err): await then returns nil, err.
func (b *Binding) futureFail(L *lua.LState) int {
	f := checkFuture(L, "f:fail")
	if f.done {
		raise(L, "f:fail: the future is already completed")
	}
	f.done, f.failed = true, true
	f.vals = []lua.LValue{lua.LNil, L.Get(2)}
	b.wake(f.waiters, f.vals)
	f.waiters = nil
	return 0
}

// futureAwait is f:await([{timeout_ms = n}]).
func (b *Binding) futureAwait(L *lua.LState) int {
	f := checkFuture(L, "f:await")
	ms, timed := awaitTimeout(L, "f:await", 2)
	if f.done {
		return pushAll(L, f.vals)
	}
	t := b.waitingTask(L, "f:await")
	f.waiters = append(f.waiters, t)
	if timed {
		b.deadline(t, ms)
	}
	return b.parkOn(L, t, f)
}

func futureDone(L *lua.LState) int {
	L.Push(lua.LBool(checkFuture(L, "f:done").done))
	return 1
}

// ---- event ----

func checkEvent(L *lua.LState, fname string) *event {
	return checkSelf[*event](L, fname, "event (call it as e:method())")
}

func (b *Binding) eventSet(L *lua.LState) int {
	e := checkEvent(L, "e:set")
	e.set = true
	b.wake(e.waiters, []lua.LValue{lua.LTrue})
	e.waiters = nil
	return 0
}

func eventClear(L *lua.LState) int {
	checkEvent(L, "e:clear").set = false
	return 0
}

func eventIsSet(L *lua.LState) int {
	L.Push(lua.LBool(checkEvent(L, "e:is_set").set))
	return 1
}

// eventWait is e:wait([{timeout_ms = n}]): returns true once the event is
// set (at once if it is), nil and "timeout" past the deadline.
func (b *Binding) eventWait(L *lua.LState) int {
	e := checkEvent(L, "e:wait")
	ms, timed := awaitTimeout(L, "e:wait", 2)
	if e.set {
		L.Push(lua.LTrue)
		return 1
	}
	t := b.waitingTask(L, "e:wait")
	e.waiters = append(e.waiters, t)
	if timed {
		b.deadline(t, ms)
	}
	return b.parkOn(L, t, e)
}

// ---- queue ----

func checkQueue(L *lua.LState, fname string) *queue {
	return checkSelf[*queue](L, fname, "queue (call it as q:method())")
}

func checkQueueValue(L *lua.LState, fname string) lua.LValue {
	v := L.Get(2)
	if v == lua.LNil {
		raise(L, "%s: a queue cannot hold nil (get returns nil for nothing)", fname)
	}
	return v
}

// offer puts v without waiting: to a waiting getter, else into the queue
// if there is room; false when it is full.
func (b *Binding) offer(q *queue, v lua.LValue) bool {
	if len(q.getters) > 0 {
		t := q.getters[0]
		q.getters = q.getters[1:]
		b.run = append(b.run, resumption{t: t, vals: []lua.LValue{v}})
		return true
	}
	if len(q.items) < q.cap {
		q.items = append(q.items, v)
		return true
	}
	return false
}

// take gets a value without waiting, letting the first waiting putter in;
// nil when the queue is empty.
func (b *Binding) take(q *queue) lua.LValue {
	if len(q.items) == 0 {
		return nil
	}
	v := q.items[0]
	q.items[0] = nil
	q.items = q.items[1:]
	if len(q.putters) > 0 {
		p := q.putters[0]
		q.putters = q.putters[1:]
		q.items = append(q.items, p.v)
		b.run = append(b.run, resumption{t: p.t, vals: []lua.LValue{lua.LTrue}})
	}
	return v
}

// queuePut is q:put(v): waits while the queue is full.
func (b *Binding) queuePut(L *lua.LState) int {
	q := checkQueue(L, "q:put")
	v := checkQueueValue(L, "q:put")
	if b.offer(q, v) {
		L.Push(lua.LTrue)
		return 1
	}
	t := b.waitingTask(L, "q:put")
	q.putters = append(q.putters, putter{t: t, v: v})
	return b.parkOn(L, t, q)
}

func (b *Binding) queueTryPut(L *lua.LState) int {
	q := checkQueue(L, "q:try_put")
	L.Push(lua.LBool(b.offer(q, checkQueueValue(L, "q:try_put"))))
	return 1
}

// queueGet is q:get([{timeout_ms = n}]): waits while the queue is empty.
func (b *Binding) queueGet(L *lua.LState) int {
	q := checkQueue(L, "q:get")
	ms, timed := awaitTimeout(L, "q:get", 2)
	if v := b.take(q); v != nil {
		L.Push(v)
		return 1
	}
	t := b.waitingTask(L, "q:get")
	q.getters = append(q.getters, t)
	if timed {
		b.deadline(t, ms)
	}
	return b.parkOn(L, t, q)
}

func (b *Binding) queueTryGet(L *lua.LState) int {
	q := checkQueue(L, "q:try_get")
	if v := b.take(q); v != nil {
		L.Push(v)
		return 1
	}
	L.Push(lua.LNil)
	return 1
}

func queueSize(L *lua.LState) int {
	L.Push(lua.LNumber(len(checkQueue(L, "q:size").items)))
	return 1
}

// ---- semaphore ----

func checkSem(L *lua.LState, fname string) *semaphore {
	return checkSelf[*semaphore](L, fname, "semaphore (call it as s:method())")
}

// semAcquire is s:acquire(): takes a permit, waiting for one.
func (b *Binding) semAcquire(L *lua.LState) int {
	s := checkSem(L, "s:acquire")
	if s.free > 0 {
		s.free--
		L.Push(lua.LTrue)
		return 1
	}
	t := b.waitingTask(L, "s:acquire")
	s.waiters = append(s.waiters, t)
	return b.parkOn(L, t, s)
}

// semRelease is s:release(): the permit goes to the first waiter, if any.
func (b *Binding) semRelease(L *lua.LState) int {
	s := checkSem(L, "s:release")
	if len(s.waiters) > 0 {
		t := s.waiters[0]
		s.waiters = s.waiters[1:]
		b.run = append(b.run, resumption{t: t, vals: []lua.LValue{lua.LTrue}})
		return 0
	}
	if s.free >= s.n {
		raise(L, "s:release: released more often than acquired (%d permits)", s.n)
	}
	s.free++
	return 0
}

func semAvailable(L *lua.LState) int {
	L.Push(lua.LNumber(checkSem(L, "s:available").free))
	return 1
}
