package luabind

import (
	"weak"

	lua "github.com/yuin/gopher-lua"
)

// The coroutine library, guarded. gopher-lua's resume and wrap resume any
// thread that is not dead or the running one, including a thread further up
// the chain of resumers (a coroutine that resumed the one now running, or a
// task that started the task now running). It re-enters that thread's Go
// call in progress, recursing until the Go stack overflows, which kills the
// process. Lua refuses that resume ("cannot resume non-suspended
// coroutine"), and so does the binding. It also refuses to resume a task's
// thread from Lua: the frame driver resumes tasks with what they wait for,
// and a foreign resume would hand a parked wait a value from nowhere.

// guardCoroutines replaces resume, wrap, status and yield in the coroutine
// table with the guarded versions.
func (b *Binding) guardCoroutines(co *lua.LTable) {
	resume, ok1 := co.RawGetString("resume").(*lua.LFunction)
	wrap, ok2 := co.RawGetString("wrap").(*lua.LFunction)
	if !ok1 || !ok2 || !resume.IsG || !wrap.IsG {
		return
	}
	b.coResumeG, b.coWrapG = resume.GFunction, wrap.GFunction
	L := b.ls
	co.RawSetString("resume", L.NewFunction(b.coResume))
	co.RawSetString("wrap", L.NewFunction(b.coWrap))
	co.RawSetString("status", L.NewFunction(b.coStatus))
	co.RawSetString("yield", L.NewFunction(b.coYield))
}

// maxNesting bounds how many resumes may run inside one another (a
// coroutine resuming a coroutine ..., a task starting a task ...). Each is a
// nested Go call, and gopher-lua bounds none of them: an unbounded chain
// grows the Go stack until the process dies. 200 is Lua's own C-call limit
// (LUAI_MAXCCALLS).
const maxNesting = 200

// nesting counts the resumes running at L: L and every thread that resumed
// it, directly or through others.
func nesting(L *lua.LState) int {
	n := 0
	for p := L; p != nil; p = p.Parent {
		n++
	}
	return n
}

// notResumable says why L may not resume th, or "" when it may.
func (b *Binding) notResumable(L, th *lua.LState) string {
	if b.threads[th] != nil {
		return "cannot resume a task's coroutine: tasks are resumed by pmacs when what they wait for is ready; use task:await()"
	}
	if th.Dead {
		// A finished coroutine, a finished task's included: its thread
		// may be pooled for the next task, but to the script it is dead.
		return "cannot resume dead coroutine"
	}
	if resumer(L, th) {
		return "cannot resume non-suspended coroutine"
	}
	if nesting(L) >= maxNesting {
		return "cannot resume: coroutines nested too deeply (C stack overflow)"
	}
	return ""
}

// resumer reports whether th is L or one of the threads that resumed it,
// directly or through others.
func resumer(L, th *lua.LState) bool {
	for p := L; p != nil; p = p.Parent {
		if p == th {
			return true
		}
	}
	return false
}

func (b *Binding) coResume(L *lua.LState) int {
	th := L.CheckThread(1)
	if th != L.G.CurrentThread { // gopher-lua has its own message for that one
		if msg := b.notResumable(L, th); msg != "" {
			L.Push(lua.LFalse)
			L.Push(lua.LString(msg))
			return 2
		}
		b.coWant.adjust(L, th, 2)
	}
	return b.coResumeG(L)
}

// coWrap makes the coroutine with gopher-lua's wrap and returns a function
// that checks the thread before each resume.
func (b *Binding) coWrap(L *lua.LState) int {
	if n := b.coWrapG(L); n != 1 {
		return n
	}
	fn, ok := L.Get(-1).(*lua.LFunction)
	if !ok || len(fn.Upvalues) != 1 {
		return 1 // not the shape this version of gopher-lua makes: keep it
	}
	th, ok := fn.Upvalues[0].Value().(*lua.LState)
	if !ok {
		return 1
	}
	L.Pop(1)
	L.Push(L.NewClosure(b.wrapAux, th))
	return 1
}

func (b *Binding) wrapAux(L *lua.LState) int {
	th := L.ToThread(lua.UpvalueIndex(1))
	if th != L.G.CurrentThread {
		if msg := b.notResumable(L, th); msg != "" {
			L.RaiseError("%s", msg)
		}
		b.coWant.adjust(L, th, 1)
	}
	L.Insert(th, 1)
	return b.coResumeG(L)
}

// coStatus is coroutine.status with "normal" for every thread up the chain
// of resumers, not only the nearest.
func (b *Binding) coStatus(L *lua.LState) int {
	th := L.CheckThread(1)
	status := L.Status(th)
	if status == "suspended" && resumer(L, th) {
		status = "normal"
	}
	L.Push(lua.LString(status))
	return 1
}

// coYield is coroutine.yield: gopher-lua's, which only yields, plus two
// things. A yield nested in a Go call raises an error, as a wait there
// does: gopher-lua would detach the coroutine from its resumer and keep
// running it, and its next yield would then panic out of Resume, through
// the frame driver, into the host. And a task's yield records its call
// site's result count, so a bare yield resumes into Lua nils too.
func (b *Binding) coYield(L *lua.LState) int {
	if L.Parent == nil {
		return -1 // outside any coroutine: gopher-lua raises its own error
	}
	if b.stack.vmLoops() != 1 {
		raise(L, "coroutine.yield cannot yield inside %s: gopher-lua cannot yield across it; run that part as its own task (pmacs.async.run) or coroutine",
			nestedIn(L))
	}
	if t := b.threads[L]; t != nil {
		t.want = callResults(L)
	} else {
		b.coWant.set(L, callResults(L))
	}
	return -1
}

// coWants remembers, for each coroutine of the script's own suspended in
// coroutine.yield, how many values that yield's call site takes, so the
// resume that wakes it can pass exactly that many (see callResults): the
// same repair tasks get. Keys are weak: a coroutine abandoned while
// suspended (a generator left by a break) must stay collectable, and its
// entry is pruned once collected.
type coWants struct {
	m      map[weak.Pointer[lua.LState]]int
	pruned int // len(m) after the last prune
}

func (w *coWants) set(th *lua.LState, want int) {
	if w.m == nil {
		w.m = make(map[weak.Pointer[lua.LState]]int)
	}
	w.m[weak.Make(th)] = want
	if len(w.m) > 2*w.pruned+64 {
		for k := range w.m {
			if k.Value() == nil {
				delete(w.m, k)
			}
		}
		w.pruned = len(w.m)
	}
}

// adjust pads or cuts the resume values on L (from argument first on) to
// the count th's yield takes, and forgets it.
func (w *coWants) adjust(L, th *lua.LState, first int) {
	k := weak.Make(th)
	want, ok := w.m[k]
	if !ok {
		return
	}
	delete(w.m, k)
	if want < 0 {
		return
	}
	n := L.GetTop() - first + 1
	for ; n < want; n++ {
		L.Push(lua.LNil)
	}
	if n > want {
		L.Pop(n - want)
	}
}
