package luabind

import (
	goruntime "runtime"
	"testing"
	"weak"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// TestYieldInsideNestedCallIsALuaError proves a coroutine.yield that
// gopher-lua cannot honour, one nested inside a Go call (pcall, a
// metamethod, a sort comparator, a gsub callback), raises a Lua error the
// script can catch, in a task and in a coroutine a task made. gopher-lua
// would instead detach the coroutine from its resumer and keep running it,
// and the coroutine's next yield then panicked out of Resume and killed the
// host (issue 11: a script must not crash the editor).
func TestYieldInsideNestedCallIsALuaError(t *testing.T) {
	cases := map[string]string{
		"pcall":      `local ok, err = pcall(coroutine.yield); return ok, err`,
		"pcall then": `local ok, err = pcall(coroutine.yield); coroutine.yield(); return ok, err`,
		"metamethod": `local t = setmetatable({}, {__index = function() coroutine.yield() end})
			local ok, err = pcall(function() return t.x end); coroutine.yield(); return ok, err`,
		"sort comparator": `local ok, err = pcall(table.sort, {3, 1, 2}, function(a, b) coroutine.yield(); return a < b end)
			coroutine.yield(); return ok, err`,
		"gsub callback": `local ok, err = pcall(string.gsub, "ab", ".", function() coroutine.yield() end)
			coroutine.yield(); return ok, err`,
		"coroutine made by the task": `local co = coroutine.create(function()
				local ok, err = pcall(coroutine.yield); coroutine.yield(); return ok, err
			end)
			local _, ok1 = coroutine.resume(co)
			local okr, ok, err = coroutine.resume(co)
			assert(okr, tostring(ok))
			return ok, err`,
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, false)
			var task *Task
			require.NotPanics(t, func() { task = h.run(t, src) })
			require.NoError(t, task.Err(), h.stderr.String())
			res := task.Results()
			require.Len(t, res, 2)
			require.Equal(t, lua.LFalse, res[0])
			require.Contains(t, res[1].String(), "coroutine.yield cannot yield inside")
		})
	}
}

// TestYieldStillWorksWhereItCan proves the check leaves ordinary yields
// alone: in a task (resumed next frame), in a coroutine the task made
// (values passed both ways), and outside any coroutine (gopher-lua's own
// error).
func TestYieldStillWorksWhereItCan(t *testing.T) {
	h := newHarness(t, false)
	task := h.run(t, `
		local a = coroutine.yield()
		local co = coroutine.wrap(function(x) local y = coroutine.yield(x + 1); return y * 2 end)
		local first = co(1)
		local second = co(10)
		return a == nil, first, second`)
	require.NoError(t, task.Err(), h.stderr.String())
	require.Equal(t, []lua.LValue{lua.LTrue, lua.LNumber(2), lua.LNumber(20)}, task.Results())
	err := h.b.L().DoString(`coroutine.yield()`)
	require.ErrorContains(t, err, "can not yield from outside of a coroutine")
}

// TestResumeOfANonSuspendedCoroutineIsRefused proves coroutine.resume and
// the functions coroutine.wrap makes refuse a thread up the chain of
// resumers, as Lua does, and refuse a task's thread: gopher-lua re-entered
// such a thread's Go call in progress and recursed until the Go stack
// overflowed, killing the host (a task resuming the task that started it
// did the same through pmacs.async.run).
func TestResumeOfANonSuspendedCoroutineIsRefused(t *testing.T) {
	cases := map[string]struct{ src, want string }{
		"coroutines resuming each other": {`
			local a, b
			a = coroutine.create(function() return coroutine.resume(b) end)
			b = coroutine.create(function() return coroutine.resume(a) end)
			local ok, okb, oka, err = coroutine.resume(a)
			assert(ok and okb, "outer resumes work")
			return oka, err`, "cannot resume non-suspended coroutine"},
		"wrapped coroutines calling each other": {`
			local a, b
			a = coroutine.wrap(function() return pcall(b) end)
			b = coroutine.wrap(function() return a() end)
			return a()`, "cannot resume non-suspended coroutine"},
		"a task resuming the task that started it": {`
			local me = coroutine.running()
			local t = pmacs.async.run(function() return coroutine.resume(me, 1) end)
			return t:await()`, "cannot resume a task's coroutine"},
		"a task resuming a parked task": {`
			local other
			local t = pmacs.async.run(function() other = coroutine.running(); return pmacs.workers.sleep(1):await() end)
			local ok, err = coroutine.resume(other, "bogus")
			assert(t:await() == true, "the parked task gets its own value")
			return ok, err`, "cannot resume a task's coroutine"},
		"a task resuming a finished task's pooled thread": {`
			local done
			pmacs.async.run(function() done = coroutine.running() end)
			return coroutine.resume(done)`, "cannot resume dead coroutine"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, false)
			var task *Task
			require.NotPanics(t, func() { task = h.run(t, c.src) })
			require.NoError(t, task.Err(), h.stderr.String())
			res := task.Results()
			require.Len(t, res, 2)
			require.Equal(t, lua.LFalse, res[0])
			require.Contains(t, res[1].String(), c.want)
		})
	}
}

// TestCoroutineStatusSaysNormalUpTheChain proves coroutine.status calls
// every thread that resumed the running one "normal", not only the nearest.
func TestCoroutineStatusSaysNormalUpTheChain(t *testing.T) {
	h := newHarness(t, false)
	task := h.run(t, `
		local a, b, c
		a = coroutine.create(function() return coroutine.resume(b) end)
		b = coroutine.create(function() return coroutine.resume(c) end)
		c = coroutine.create(function() return coroutine.status(a), coroutine.status(b), coroutine.status(c) end)
		local _, _, _, sa, sb, sc = coroutine.resume(a)
		return sa, sb, sc, coroutine.status(a)`)
	require.NoError(t, task.Err(), h.stderr.String())
	require.Equal(t, []lua.LValue{lua.LString("normal"), lua.LString("normal"), lua.LString("running"), lua.LString("dead")}, task.Results())
}

// TestNestingIsBounded proves resumes inside resumes stop at a bound with a
// Lua error, for coroutine.resume, coroutine.wrap and pmacs.async.run: each
// is a nested Go call that gopher-lua does not bound, and an endless chain
// overflowed the Go stack, killing the host.
func TestNestingIsBounded(t *testing.T) {
	cases := map[string]struct{ src, want string }{
		"resume": {`local n = 0
			local function f() n = n + 1; return coroutine.resume(coroutine.create(f)) end
			local res = {f()}
			return n, res[#res]`, "nested too deeply"},
		"wrap": {`local n = 0
			local function f() n = n + 1; coroutine.wrap(f)() end
			local ok, err = pcall(f)
			assert(not ok)
			return n, err`, "nested too deeply"},
		"pmacs.async.run": {`local n, err = 0
			local function f()
				n = n + 1
				local ok, e = pcall(pmacs.async.run, f)
				if not ok then err = e end
			end
			f()
			return n, err`, "pmacs.async.run: tasks started by tasks before they first wait nest too deeply"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, false)
			var task *Task
			require.NotPanics(t, func() { task = h.run(t, c.src) })
			require.NoError(t, task.Err(), h.stderr.String())
			res := task.Results()
			require.Len(t, res, 2)
			n := int(res[0].(lua.LNumber))
			require.Greater(t, n, maxNesting/2, "the bound is not hit early")
			require.LessOrEqual(t, n, maxNesting+1)
			require.Contains(t, res[1].String(), c.want)
		})
	}
}

// TestLuaVMPanicFailsOnlyItsTask proves a Go panic that escapes gopher-lua's
// own recovery fails the task it ran for, with an error wrapping ErrLuaVM,
// and leaves the binding working: a call stack overflow caught by pcall
// corrupts a coroutine's frames with growable stacks, and the next
// instruction used to panic out of Resume and kill the host.
func TestLuaVMPanicFailsOnlyItsTask(t *testing.T) {
	h := newHarness(t, false)
	var bad *Task
	require.NotPanics(t, func() {
		bad = h.run(t, `local function f() pcall(f) end f() return "unreachable"`)
	})
	require.True(t, bad.Done())
	require.ErrorIs(t, bad.Err(), ErrLuaVM)
	require.Len(t, h.b.TakeFailed(), 1)

	good := h.run(t, `
		local v = pmacs.workers.sum(10):await()
		local t = pmacs.async.run(function() local function f() pcall(f) end f() end)
		local nothing, err = t:await()
		return v, nothing, err`)
	require.NoError(t, good.Err(), h.stderr.String())
	res := good.Results()
	require.Equal(t, lua.LNumber(55), res[0])
	require.Equal(t, lua.LNil, res[1])
	require.Contains(t, res[2].String(), "the Lua VM failed")
	require.Zero(t, h.b.Stats().Tasks)
}

// TestScriptCoroutineResumeFillsLuaNil proves a coroutine of the script's
// own, made by coroutine.create or coroutine.wrap, gets exactly as many
// values as its yield's call site takes: Lua nil for those the resume did
// not pass (gopher-lua left a Go nil there, as it did for tasks), and no
// more than asked for.
func TestScriptCoroutineResumeFillsLuaNil(t *testing.T) {
	h := newHarness(t, false)
	task := h.run(t, `
		local co = coroutine.create(function()
			local a, b = coroutine.yield()
			local ok, isnil = pcall(function() return b == nil end)
			return ok and isnil, a
		end)
		coroutine.resume(co)
		local _, bnil, a = coroutine.resume(co, 1)
		local w = coroutine.wrap(function()
			local a, b = coroutine.yield()
			local ok, isnil = pcall(function() return b == nil end)
			return ok and isnil
		end)
		w()
		local wnil = w(5)
		local co3 = coroutine.create(function() local x = coroutine.yield(); return select("#", x) end)
		coroutine.resume(co3)
		local _, count = coroutine.resume(co3, 1, 2, 3)
		local co4 = coroutine.create(function() return select("#", coroutine.yield()) end)
		coroutine.resume(co4)
		local _, all = coroutine.resume(co4, 1, 2, 3)
		return bnil, a, wnil, count, all`)
	require.NoError(t, task.Err(), h.stderr.String())
	require.Equal(t, []lua.LValue{lua.LTrue, lua.LNumber(1), lua.LTrue, lua.LNumber(1), lua.LNumber(3)}, task.Results())
}

// TestAbandonedCoroutinesAreNotKept proves the yield counts of coroutines
// abandoned while suspended do not keep them: once they are collected, the
// next prune drops every one of their entries. It watches for that prune
// instead of counting entries at a fixed point, which depended on when the
// collector happened to run during the inserts.
func TestAbandonedCoroutinesAreNotKept(t *testing.T) {
	var w coWants
	L := lua.NewState()
	defer L.Close()
	first := make([]weak.Pointer[lua.LState], 0, 1000)
	for range 1000 {
		th, _ := L.NewThread()
		w.set(th, 1)
		first = append(first, weak.Make(th))
	}
	goruntime.GC()
	goruntime.GC()
	keep, _ := L.NewThread()
	w.set(keep, 2)
	pruned := false
	for i := 0; i < 4000 && !pruned; i++ {
		n := len(w.m)
		th, _ := L.NewThread()
		w.set(th, 1)
		pruned = len(w.m) <= n
	}
	require.True(t, pruned, "entries grew past the prune threshold without a prune")
	left := 0
	for _, k := range first {
		if _, ok := w.m[k]; ok {
			left++
		}
	}
	require.Zero(t, left, "collected coroutines' entries are pruned")
	require.Equal(t, 2, w.m[weak.Make(keep)], "a live coroutine's entry is kept")
	goruntime.KeepAlive(keep)
}
