package luabind

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/kinds/fsjob"
	"github.com/pmacs-go/pmacs-go/kinds/textsearch"
	"github.com/pmacs-go/pmacs-go/lsp"
)

// Values that cross into Lua (issue 11, defect 2). A Lua variable that got
// no value must hold Lua's nil, never a Go nil interface: gopher-lua
// dereferences it in every comparison ("name == nil" raised "invalid memory
// address or nil pointer dereference") and treats it as true in a
// condition.

// nilCheckLua defines is_nil, which a script uses to test a value that may
// be a Go nil: the comparison runs under pcall, so a Go nil fails the
// script's assert with the reason instead of failing somewhere else.
const nilCheckLua = `
local function is_nil(v, what)
	local ok, res = pcall(function() return v == nil end)
	assert(ok, what .. ": comparing it with nil raised: " .. tostring(res))
	return res
end
`

// TestWaitResultsMissingValuesAreLuaNil proves that every wait fills the
// variables its call site asks for beyond what the wait returned with Lua
// nil: await of a job that completed, was cancelled, failed with or without
// an error code, or was a parse or a stream; a task awaited after it
// returned nothing; a stream's iterator; a bare coroutine.yield; and a wait
// reached through a tail call.
func TestWaitResultsMissingValuesAreLuaNil(t *testing.T) {
	cases := map[string]string{
		"completed job": `
			local v, err, name = w.sleep(1):await()
			assert(v == true, "value")
			assert(is_nil(err, "err") and is_nil(name, "name"))
			if name then error("an absent value is truthy") end
			assert(type(name) == "nil")`,
		"cancelled job": `
			local h = w.sleep(3600 * 1000)
			pmacs.async.run(function() w.sleep(0):await(); h:cancel() end)
			local v, err, code = h:await()
			assert(is_nil(v, "v") and err == "cancelled" and is_nil(code, "code"))`,
		"failed grep": `
			local v, err, code = w.grep{root = R, pattern = "(", regex = true}:await()
			assert(is_nil(v, "v") and type(err) == "string", tostring(err))
			assert(is_nil(code, "code"))`,
		"failed fs op with errno": `
			local v, err, code, extra = w.fs.stat(R .. "/fs/missing"):await()
			assert(is_nil(v, "v") and err:find("ENOENT", 1, true) and code == "ENOENT", tostring(err))
			assert(is_nil(extra, "extra"))`,
		"parse": `
			local tree, err, extra = w.parse{source = "x = 1", language = "lua"}:await()
			assert(tree:language() == "lua")
			assert(is_nil(err, "err") and is_nil(extra, "extra"))`,
		"stream closing batch": `
			local h = w.emit_n(3, {max_batch = 2})
			local n = 0
			for batch, extra in h:batches() do
				assert(is_nil(extra, "extra loop variable"))
				n = n + #batch
			end
			assert(n == 3)
			local ok, err, extra = h:await()
			assert(ok == true and is_nil(err, "err") and is_nil(extra, "extra"))
			local g = w.grep{root = R .. "/grep", pattern = "hello"}
			local summary, gerr, gextra = g:await()
			assert(type(summary) == "table" and is_nil(gerr, "grep err") and is_nil(gextra, "grep extra"))`,
		"stream iterator at its end": `
			local h = w.emit_n(1)
			local it, s = h:batches()
			local b1, x1 = it(s)
			assert(#b1 == 1 and is_nil(x1, "x1"))
			local b2, x2 = it(s)
			assert(is_nil(b2, "end of stream") and is_nil(x2, "x2"))`,
		"task that returned nothing": `
			local t = pmacs.async.run(function() w.sleep(1):await() end)
			local a, b, c = t:await()
			assert(is_nil(a, "a") and is_nil(b, "b") and is_nil(c, "c"))`,
		"task that failed": `
			local t = pmacs.async.run(function() w.sleep(1):await(); error("boom") end)
			local v, err, extra = t:await()
			assert(is_nil(v, "v") and err:find("boom", 1, true) and is_nil(extra, "extra"))`,
		"bare coroutine.yield": `
			local a, b = coroutine.yield()
			assert(is_nil(a, "a") and is_nil(b, "b"))`,
		"tail call": `
			local function wait() return w.sleep(1):await() end
			local v, err, name = wait()
			assert(v == true and is_nil(err, "err") and is_nil(name, "name"))`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFixture(t, dir)
			h := newHarness(t, false)
			h.b.L().SetGlobal("R", lua.LString(dir))
			task := h.run(t, "local w = pmacs.workers\n"+nilCheckLua+body+"\nreturn 'ok'")
			require.NoError(t, task.Err(), h.stderr.String())
			require.Equal(t, []lua.LValue{lua.LString("ok")}, task.Results())
		})
	}
}

// TestFailedJobWithoutCodeAwaitsToTwoValues proves the (nil, message)
// shape of a failure that carries no error code, for a filesystem job (the
// one family that otherwise appends its code), and that a third variable is
// Lua nil. The failure is made through an adopted external job, the only
// way a script-visible fs failure comes without an errno name.
func TestFailedJobWithoutCodeAwaitsToTwoValues(t *testing.T) {
	h := newHarness(t, false)
	id, _ := h.rt.RegisterExternal(fsjob.StatKind, "")
	hv, err := h.b.Adopt(id)
	require.NoError(t, err)
	h.b.L().SetGlobal("H", hv)
	fn, err := h.b.LoadString(nilCheckLua+`
		local v, err, code = H:await()
		assert(is_nil(v, "v") and err == "broken" and is_nil(code, "code"), tostring(err))
		return select("#", H:await())`, "test.lua")
	require.NoError(t, err)
	task := h.b.Spawn(fn)
	h.rt.CompleteExternalFailed(id, errors.New("broken"))
	h.drive(t, 10*time.Second)
	require.NoError(t, task.Err(), h.stderr.String())
	require.Equal(t, []lua.LValue{lua.LNumber(2)}, task.Results())
}

// TestWaitKeepsTheExactResultCount proves the padding does not reach call
// sites that take every result: select("#", ...) and a table constructor
// see exactly what the wait returned, for a wait that parks and for one
// that returns at once.
func TestWaitKeepsTheExactResultCount(t *testing.T) {
	h := newHarness(t, false)
	task := h.run(t, `
		local w = pmacs.workers
		local h = w.sleep(1)
		local parked = select("#", h:await())
		local settled = select("#", h:await())
		local t = pmacs.async.run(function() w.sleep(1):await(); return 1, 2, 3 end)
		local fromTask = {t:await()}
		local gone = select("#", w.fs.stat("/nonexistent/x"):await())
		return parked, settled, #fromTask, gone`)
	require.NoError(t, task.Err(), h.stderr.String())
	require.Equal(t, []lua.LValue{lua.LNumber(2), lua.LNumber(2), lua.LNumber(3), lua.LNumber(3)}, task.Results())
}

// sweepCallsLua is the table of argument lists the sweep calls every
// function with, keyed by the function's name: "pmacs.workers.sleep" for a
// function under the pmacs table, "handle:await" for a method of a handle,
// task or tree. Each list is made with args(...), which keeps trailing nils.
// An entry may say may_raise (the call may refuse with a Lua error, which
// must still name its function) or optional (the function may be absent
// from this build). The sweep fails on a function with no entry, so a new
// function cannot go unchecked.
const sweepCallsLua = `
local R, TEXT = ...
local w = pmacs.workers
local function args(...) return {n = select("#", ...), ...} end
local long = w.sleep(3600 * 1000)
local watching = w.watch{root = R .. "/grep"}
return {
	_handles = {long, watching},
	["pmacs.async.run"] = {
		args(function() end),
		args(function(...) w.sleep(1):await(); return ... end, 1, nil, "three"),
		args(function() w.sleep(1):await() end),
		args(function() w.sleep(1):await(); error("sweep task error") end),
	},
	["pmacs.array"] = {args(), args({}), args({1, 2})},
	["pmacs.uri.from_path"] = {args("/src/my file.go"), args("rel/x")},
	["pmacs.uri.to_path"] = {args("file:///src/a%23b.go"), args("https://x/y"), args("file:///a%zz")},
	["pmacs.utf16.units"] = {args("a\240\159\152\128b", 5), args("", -1), args("x", 1e300)},
	["pmacs.utf16.byte_col"] = {args("a\240\159\152\128b", 2), args("\128", 1e300), args("x", -1/0)},
	["pmacs.workers.sleep"] = {args(1), args(0, {key = "sweep-sleep"}), args(5, {key = "sweep-sleep"})},
	["pmacs.workers.sum"] = {args(10), args(0, {key = "sweep-sum"})},
	["pmacs.workers.emit_n"] = {args(5, {max_batch = 2}), args(0), args(3, {key = "sweep-emit"}), args(3, {key = "sweep-emit"})},
	["pmacs.workers.grep"] = {
		args({root = R .. "/grep", pattern = "hello", max_batch = 1}),
		args({root = R .. "/grep", pattern = "(", regex = true}),
		args({root = R .. "/missing", pattern = "x"}),
		args({root = R .. "/grep", pattern = "hello", key = "sweep-grep"}),
		args({root = R .. "/grep", pattern = "hello", key = "sweep-grep"}),
	},
	["pmacs.workers.find_files"] = {
		args({root = R .. "/grep", query = "hel"}),
		args({root = R .. "/grep", query = "", limit = 1, hidden = true, no_ignore = true}),
		args({root = R .. "/missing"}),
		args({root = R .. "/grep", query = "h", key = "sweep-find"}),
		args({root = R .. "/grep", query = "he", key = "sweep-find"}),
	},
	["pmacs.workers.fuzzy"] = {
		args({items = {"alpha", "beta", "gamma"}, query = "a"}),
		args({items = {}, query = "x", limit = 1}),
		args({source = 1, query = "b", key = "sweep-fuzzy"}),
		args({source = 999999, query = "b"}),
	},
	-- A watch ends only when cancelled: the live one is above, cancelled
	-- by pmacs.workers.cancel; these end at once.
	["pmacs.workers.watch"] = {
		may_raise = true,
		args({root = R .. "/missing"}),
		args({root = R .. "/grep/a.txt", ignore = {}, max_batch = 1}),
		args({root = R, ignore = {"a/b"}}),
	},
	["pmacs.workers.fuzzy_source"] = {args({"alpha", "beta"}), args({})},
	["pmacs.workers.fuzzy_free"] = {args(2), args(999999)},
	["pmacs.workers.parse"] = {
		args({source = "local x = 1\nprint(x)\n", language = "lua"}),
		args({source = "fn main() {", language = "rust", key = "sweep-parse"}),
	},
	-- The tests' own kind (kind_registry_test.go), installed in every
	-- binding the tests make.
	["pmacs.workers.probe"] = {args(2), args(0)},
	["pmacs.workers.probe_stream"] = {args(3), args(0)},
	["pmacs.probe.ping"] = {args()},
	["pmacs.workers.cancel"] = {args(long:id()), args(watching:id()), args(0)},
	["pmacs.workers.snapshot"] = {args()},
	["pmacs.workers.frame_target_ms"] = {args()},
	["pmacs.workers.set_frame_target_ms"] = {args(16), args(-5)},
	["pmacs.workers.default_max_batch"] = {args()},
	["pmacs.workers.set_default_max_batch"] = {args(64)},
	["pmacs.workers.reset_root"] = {args(R), args(R .. "/missing")},
	["pmacs.workers.spawn"] = {
		args({cmd = {"sh", "-c", "echo out; printf err >&2"}, max_batch = 1}),
		args({cmd = {"cat"}, stdin = "fed through stdin\n", key = "sweep-spawn"}),
		args({cmd = {R .. "/missing-program"}}),
		args({cmd = {"sh", "-c", "kill -TERM $$"}}),
		args({cmd = {"cat"}, stdin = "pipe"}),
	},
	["pmacs.workers.system"] = {
		args({cmd = {"sh", "-c", "printf hi; exit 3"}}),
		args({cmd = {"sh", "-c", "printf x"}, max_output = 0}),
		args({cmd = {R .. "/missing-program"}}),
	},
	-- A connection to a program that cannot start: it is returned at once
	-- and fails its calls; args({}) is misuse, a Lua error.
	["pmacs.mcp.connect"] = {may_raise = true, args({cmd = {R .. "/missing-program"}}), args({})},
	["pmacs.mcp.json_decode"] = {may_raise = true, args('{"a": [1, null, {"b": true}]}'), args("{bad"), args("[]"), args()},
	["pmacs.mcp.json_encode"] = {may_raise = true, args({a = {1, 2}, b = "x"}), args(function() end), args(0/0), args()},
	["pmacs.workers.search_text"] = {
		may_raise = true,
		args({text = TEXT, pattern = "foo", max_batch = 1}),
		args({text = TEXT, pattern = "f.o", regex = true, case_sensitive = false, key = "sweep-search"}),
		args({text = TEXT, pattern = "(", regex = true}),
		args({text = "not a snapshot", pattern = "x"}),
	},
	["pmacs.workers.diff"] = {
		may_raise = true,
		args({a = "x\ny\n", b = TEXT, key = "sweep-diff"}),
		args({a = "x", b = "y", max_work = 1}),
		args({a = {}, b = "y"}),
	},
	["pmacs.workers.fs.read_dir"] = {args(R .. "/fs"), args(R .. "/fs", {per_entry = true}), args(R .. "/missing")},
	["pmacs.workers.fs.stat"] = {args(R .. "/fs/link"), args(R .. "/fs/a.txt"), args(R .. "/missing")},
	["pmacs.workers.fs.rename"] = {
		args(R .. "/fs/a.txt", R .. "/fs/a2.txt"),
		args(R .. "/fs/b.txt", R .. "/fs/a2.txt"),
		args(R .. "/fs/b.txt", R .. "/fs/a2.txt", {overwrite = true}),
	},
	["pmacs.workers.fs.chmod"] = {args(R .. "/fs/a2.txt", "644"), args(R .. "/missing", 420)},
	["pmacs.workers.fs.remove"] = {args(R .. "/fs/full/inner.txt"), args(R .. "/missing")},
	["pmacs.workers.fs.mkdir"] = {args(R .. "/fs/made"), args(R .. "/fs/made"), args(R .. "/missing/x")},
	-- A client needs a server: the sweep only exercises start's refusals
	-- (no program, bad options); luabind/lsp_test.go drives a fake server.
	["pmacs.lsp.start"] = {may_raise = true, args({cmd = {R .. "/missing-program"}}), args({}), args({cmd = {"x"}, bogus = 1})},

	-- Methods: called on every handle, task and tree the calls above return
	-- (batches on streams only, close last).
	["handle:id"] = {args()},
	["handle:done"] = {args()},
	["handle:progress"] = {args()},
	["handle:batches"] = {args()},
	["handle:await"] = {args()},
	["handle:cancel"] = {args()},
	-- Only a spawn with stdin = "pipe" takes these; every other handle
	-- refuses them with a Lua error.
	["handle:write"] = {may_raise = true, args("more input\n")},
	["handle:close_stdin"] = {may_raise = true, args()},
	["task:done"] = {args()},
	["task:await"] = {args()},
	["task:id"] = {args()},
	["task:name"] = {args()},
	["task:state"] = {args()},
	["task:traceback"] = {args()},
	["task:detach"] = {args()},
	["task:cancel"] = {args(), args("swept")},
	["pmacs.async.sleep"] = {may_raise = true, args(1), args(-1), args(0/0)},
	["pmacs.async.shield"] = {may_raise = true, args(function() return 1 end), args(5)},
	["pmacs.async.status"] = {args(long), args(1), args()},
	["pmacs.async.current"] = {args()},
	["pmacs.async.tasks"] = {args()},
	["pmacs.async.cancel"] = {args(0), args(999999, "why")},
	["pmacs.async.timeout"] = {may_raise = true, args(50, function() return "in time" end), args("x", 1), args()},
	["pmacs.async.all"] = {may_raise = true, args({w.sleep(1), w.sleep(2)}), args({}), args(5), args({5})},
	["pmacs.async.any"] = {may_raise = true, args({w.sleep(1)}), args({})},
	["pmacs.async.race"] = {may_raise = true, args({w.sleep(1)}), args({})},
	["pmacs.async.as_completed"] = {may_raise = true, args({w.sleep(1)}), args(false)},
	["pmacs.async.future"] = {args()},
	["pmacs.async.event"] = {args()},
	["pmacs.async.queue"] = {may_raise = true, args(2), args(0), args("x")},
	["pmacs.async.semaphore"] = {may_raise = true, args(1), args(0)},
	["pmacs.async.wrap"] = {may_raise = true, args(function(cb) cb(1) end, 1), args(1, 1), args(print, 0)},
	["future:set"] = {may_raise = true, args(1, nil, "three"), args(2)},
	["future:fail"] = {may_raise = true, args("why")},
	["future:await"] = {may_raise = true, args(), args({timeout_ms = 1}), args({bogus = 1})},
	["future:done"] = {args()},
	["event:set"] = {args()},
	["event:clear"] = {args()},
	["event:is_set"] = {args()},
	["event:wait"] = {may_raise = true, args(), args({timeout_ms = -1})},
	["queue:put"] = {may_raise = true, args(1), args(nil)},
	["queue:try_put"] = {may_raise = true, args("a"), args("b"), args("c"), args(nil)},
	["queue:get"] = {may_raise = true, args()},
	["queue:try_get"] = {args(), args()},
	["queue:size"] = {args()},
	["semaphore:acquire"] = {may_raise = true, args()},
	["semaphore:release"] = {may_raise = true, args(), args()},
	["semaphore:available"] = {args()},
	["tree:language"] = {args()},
	["tree:root_type"] = {args()},
	["tree:sexpr"] = {args()},
	["tree:has_error"] = {args()},
	["tree:duration_ms"] = {args()},
	["tree:highlights"] = {args(0, 2), args(0, 0), args(5, 9)},
	["tree:close"] = {args()},
}
`

// sweepLua calls every function with every argument list, taking six
// results at a fixed-count call site (where a missing value shows) and all
// results at a multiple-result one, then waits for and iterates what came
// back: handles (awaited twice, streams iterated first), tasks (awaited) and
// trees (every method). check compares each value with nil in Lua, at every
// depth, and passes it to record, which walks it from Go.
const sweepLua = nilCheckLua + `
local calls, funcs, methods = ...
local bad, handles, tasks, trees, prims, seenUD = {}, {}, {}, {}, {}, {}
local unpack = unpack or table.unpack

local function deep(v, where, seen)
	local ok, isnil = pcall(function() return v == nil end)
	if not ok then
		bad[#bad + 1] = where .. ": comparing with nil raised: " .. tostring(isnil)
		return
	end
	if isnil then return end
	local ty = type(v)
	if ty == "table" and not seen[v] then
		seen[v] = true
		for k, x in pairs(v) do
			deep(k, where .. " (key)", seen)
			deep(x, where .. "." .. tostring(k), seen)
		end
	elseif ty == "userdata" and not seenUD[v] then
		seenUD[v] = true
		local s = tostring(v)
		if s:find("^pmacs%.handle%(") then handles[#handles + 1] = v
		elseif s:find("^pmacs%.task%(") then tasks[#tasks + 1] = v
		elseif s:find("^pmacs%.tree%(") then trees[#trees + 1] = v
		elseif s:find("^pmacs%.future$") or s:find("^pmacs%.event$") or s:find("^pmacs%.queue$") or s:find("^pmacs%.semaphore$") then
			prims[#prims + 1] = v
		else bad[#bad + 1] = where .. ": unknown userdata " .. s end
	end
end

local function check(where, ...)
	for i = 1, select("#", ...) do
		deep((select(i, ...)), where .. " result " .. i, {})
	end
	record(where, ...)
end

local function entry(name)
	local e = calls[name]
	if e == nil then error("no sweep entry for " .. name) end
	return e
end

local function call(name, fn, self, a)
	local e = entry(name)
	local argv = {n = a.n}
	local first = 1
	if self ~= nil then argv[1], first, argv.n = self, 2, a.n + 1 end
	for i = 1, a.n do argv[first + i - 1] = a[i] end
	local ok, r1, r2, r3, r4, r5, r6 = pcall(fn, unpack(argv, 1, argv.n))
	if not ok then
		if not e.may_raise or tostring(r1):find("runtime error", 1, true) then
			bad[#bad + 1] = name .. " raised: " .. tostring(r1)
		end
		record(name .. " (raised)")
		return
	end
	check(name, r1, r2, r3, r4, r5, r6)
	if self == nil and name ~= "pmacs.async.run" then
		check(name .. " (all results)", fn(unpack(argv, 1, argv.n)))
	end
end


-- Methods that wait cannot run under pcall; they are called directly.
local function wait(name, fn, self, a)
	local r1, r2, r3, r4, r5, r6 = fn(self, unpack(a, 1, a.n))
	check(name, r1, r2, r3, r4, r5, r6)
end

local nh, nt, ntr, np = 1, 1, 1, 1
local function drain()
while nh <= #handles do
	local h = handles[nh]
	for _, name in ipairs({"handle:id", "handle:done", "handle:progress"}) do
		for _, a in ipairs(entry(name)) do call(name, methods[name], h, a) end
	end
	-- Before iterating and awaiting, so that a spawn reading its stdin pipe ends.
	for _, a in ipairs(entry("handle:write")) do wait("handle:write", function(self, ...)
		local ok, r1, r2, r3, r4, r5, r6 = pcall(methods["handle:write"], self, ...)
		if ok then return r1, r2, r3, r4, r5, r6 end
		if tostring(r1):find("runtime error", 1, true) then bad[#bad + 1] = "handle:write raised: " .. tostring(r1) end
		record("handle:write (raised)")
	end, h, a) end
	for _, a in ipairs(entry("handle:close_stdin")) do call("handle:close_stdin", methods["handle:close_stdin"], h, a) end
	if h:progress() ~= nil then
		for _, a in ipairs(entry("handle:batches")) do
			for b1, b2, b3 in methods["handle:batches"](h, unpack(a, 1, a.n)) do
				check("handle:batches iterator", b1, b2, b3)
			end
		end
	end
	for _, a in ipairs(entry("handle:await")) do
		wait("handle:await", methods["handle:await"], h, a)
		wait("handle:await (settled)", methods["handle:await"], h, a)
		check("handle:await (all results)", h:await())
	end
	for _, a in ipairs(entry("handle:cancel")) do call("handle:cancel", methods["handle:cancel"], h, a) end
	for _, name in ipairs({"handle:done", "handle:progress"}) do
		for _, a in ipairs(entry(name)) do call(name, methods[name], h, a) end
	end
	nh = nh + 1
end
while nt <= #tasks do
	local t = tasks[nt]
	nt = nt + 1
	-- pmacs.async.current() returns the sweep's own task: it cannot await
	-- itself, nor be cancelled or detached by the sweep.
	if t ~= pmacs.async.current() then
		for _, name in ipairs({"task:done", "task:id", "task:name", "task:state"}) do
			for _, a in ipairs(entry(name)) do call(name, methods[name], t, a) end
		end
		for _, a in ipairs(entry("task:await")) do
			wait("task:await", methods["task:await"], t, a)
			check("task:await (all results)", t:await())
		end
		for _, name in ipairs({"task:traceback", "task:detach", "task:cancel"}) do
			for _, a in ipairs(entry(name)) do call(name, methods[name], t, a) end
		end
	end
end
while ntr <= #trees do
	local tr = trees[ntr]
	ntr = ntr + 1
	for name, fn in pairs(methods) do
		if name:find("^tree:") and name ~= "tree:close" then
			for _, a in ipairs(entry(name)) do call(name, fn, tr, a) end
		end
	end
	for _, a in ipairs(entry("tree:close")) do call("tree:close", methods["tree:close"], tr, a) end
end
-- Futures, events, queues and semaphores: every method of the kind, under
-- pcall (a wait there raises, naming itself).
while np <= #prims do
	local p = prims[np]
	np = np + 1
	local kind = tostring(p):match("^pmacs%.(%a+)$")
	for name, fn in pairs(methods) do
		if name:find("^" .. kind .. ":") then
			for _, a in ipairs(entry(name)) do call(name, fn, p, a) end
		end
	end
end
end

-- What a function returns is waited for before the next function is
-- called, so most awaits park; the argument lists of one function are all
-- dispatched first, so keyed pairs supersede.
for _, f in ipairs(funcs) do
	for _, a in ipairs(entry(f.name)) do call(f.name, f.fn, nil, a) end
	drain()
end
-- The hour-long sleep, cancelled by pmacs.workers.cancel above.
for _, h in ipairs(calls._handles) do deep(h, "extra handle", {}) end
drain()
check("final snapshot", pmacs.workers.snapshot())
return #handles, #tasks, #trees, table.concat(bad, "\n")
`

// pmacsFunctions walks the pmacs table (and every table under it) and the
// method tables of handles, tasks and trees, and returns every function by
// name.
func pmacsFunctions(b *Binding) map[string]*lua.LFunction {
	out := map[string]*lua.LFunction{}
	seen := map[*lua.LTable]bool{}
	var walk func(prefix string, t *lua.LTable)
	walk = func(prefix string, t *lua.LTable) {
		if seen[t] {
			return
		}
		seen[t] = true
		t.ForEach(func(k, v lua.LValue) {
			name := prefix + "." + lua.LVAsString(k)
			switch x := v.(type) {
			case *lua.LFunction:
				out[name] = x
			case *lua.LTable:
				walk(name, x)
			}
		})
	}
	walk("pmacs", b.L().GetGlobal("pmacs").(*lua.LTable))
	for kind, mt := range map[string]*lua.LTable{"handle": b.handleMT, "task": b.taskMT, "tree": b.treeMT,
		"future": b.futureMT, "event": b.eventMT, "queue": b.queueMT, "semaphore": b.semMT} {
		mt.RawGetString("__index").(*lua.LTable).ForEach(func(k, v lua.LValue) {
			out[kind+":"+lua.LVAsString(k)] = v.(*lua.LFunction)
		})
	}
	return out
}

// badLuaValues describes every value at any depth under v that Lua cannot
// use: a Go nil interface, a nil pointer inside an LValue, a nil or NaN
// table key, a userdata with no value, with a value that is not one of the
// binding's types, or without its metatable.
func badLuaValues(v lua.LValue, where string, seen map[*lua.LTable]bool) []string {
	switch x := v.(type) {
	case nil:
		return []string{where + ": a Go nil, not Lua's nil"}
	case *lua.LTable:
		if x == nil {
			return []string{where + ": a nil *LTable"}
		}
		if seen[x] {
			return nil
		}
		seen[x] = true
		var out []string
		x.ForEach(func(k, e lua.LValue) {
			if n, ok := k.(lua.LNumber); ok && math.IsNaN(float64(n)) {
				out = append(out, where+": a NaN key")
			}
			if k == lua.LNil {
				out = append(out, where+": a nil key")
			}
			out = append(out, badLuaValues(k, where+" (key)", seen)...)
			out = append(out, badLuaValues(e, where+"."+fmt.Sprint(k), seen)...)
		})
		return out
	case *lua.LUserData:
		switch {
		case x == nil:
			return []string{where + ": a nil *LUserData"}
		case x.Value == nil:
			return []string{where + ": a userdata with no value"}
		case x.Metatable == nil || x.Metatable == lua.LNil:
			return []string{where + ": a userdata without its metatable"}
		}
		switch x.Value.(type) {
		case *job, *Task, *tree, *lspClient, *future, *event, *queue, *semaphore:
			return nil
		}
		return []string{fmt.Sprintf("%s: a userdata holding %T", where, x.Value)}
	case *lua.LFunction:
		if x == nil {
			return []string{where + ": a nil *LFunction"}
		}
	case *lua.LState:
		if x == nil {
			return []string{where + ": a nil *LState"}
		}
	}
	return nil
}

// TestEveryPmacsFunctionReturnsComparableValues calls every function under
// the pmacs table and every method of what they return, with the argument
// lists of sweepCallsLua, and checks every value that comes back at any
// depth, from Lua (a comparison with nil must not raise) and from Go (no Go
// nil, no userdata Lua cannot use). It fails on a function that has no
// entry in sweepCallsLua, so a function added later is swept too.
func TestEveryPmacsFunctionReturnsComparableValues(t *testing.T) {
	dir := t.TempDir()
	writeFixture(t, dir)
	h := newHarness(t, false)
	L := h.b.L()

	mk, err := h.b.LoadString(sweepCallsLua, "sweep_calls.lua")
	require.NoError(t, err)
	snap := TextSnapshotValue(L, textsearch.NewSnapshot([]string{"alpha foo", "", "beta FOO foo"}))
	require.NoError(t, L.CallByParam(lua.P{Fn: mk, NRet: 1, Protect: true}, lua.LString(dir), snap))
	calls := L.Get(-1).(*lua.LTable)
	L.Pop(1)

	fns := pmacsFunctions(h.b)
	names := make([]string, 0, len(fns))
	for name := range fns {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if calls.RawGetString(name) == lua.LNil {
			t.Errorf("%s has no entry in sweepCallsLua: add its argument lists", name)
		}
	}
	calls.ForEach(func(k, v lua.LValue) {
		name := lua.LVAsString(k)
		if strings.HasPrefix(name, "_") || fns[name] != nil {
			return
		}
		if v.(*lua.LTable).RawGetString("optional") != lua.LTrue {
			t.Errorf("sweepCallsLua has an entry for %s, which does not exist", name)
		}
	})
	require.False(t, t.Failed())

	funcs := L.NewTable()
	methods := L.NewTable()
	for _, name := range names {
		if strings.HasPrefix(name, "pmacs.") {
			f := L.NewTable()
			f.RawSetString("name", lua.LString(name))
			f.RawSetString("fn", fns[name])
			funcs.Append(f)
		} else {
			methods.RawSetString(name, fns[name])
		}
	}

	var bad []string
	recorded := map[string]bool{}
	L.SetGlobal("record", L.NewFunction(func(L *lua.LState) int {
		where := L.CheckString(1)
		recorded[strings.Fields(where)[0]] = true
		for i := 2; i <= L.GetTop(); i++ {
			bad = append(bad, badLuaValues(L.Get(i), fmt.Sprintf("%s result %d", where, i-1), map[*lua.LTable]bool{})...)
		}
		return 0
	}))

	sweep, err := h.b.LoadString(sweepLua, "sweep.lua")
	require.NoError(t, err)
	task := h.b.Spawn(sweep, calls, funcs, methods)
	h.drive(t, 30*time.Second)
	require.True(t, task.Done())
	require.NoError(t, task.Err(), h.stderr.String())
	res := task.Results()
	require.Len(t, res, 4)
	require.Empty(t, res[3].String(), "values Lua cannot compare with nil")
	require.Empty(t, bad, "values that are not proper Lua values")
	for i, what := range []string{"handles", "tasks", "trees"} {
		require.Greater(t, int(res[i].(lua.LNumber)), 0, "the sweep found no %s to exercise", what)
	}
	for _, name := range names {
		if name != "handle:batches" { // recorded by its iterator
			require.True(t, recorded[name], "%s was never called", name)
		}
	}
	require.True(t, recorded["handle:batches"], "no stream was iterated")
	require.Empty(t, slices.DeleteFunc(h.b.TakeFailed(), func(f *Task) bool { return f.collected }))
}

// TestCallResultsIsReadable pins the gopher-lua internals callResults reads:
// the result count of a Go function's call site, fixed or all of them. A
// gopher-lua upgrade that moves them fails here.
func TestCallResultsIsReadable(t *testing.T) {
	require.True(t, resultsField.ok, "lua.Debug no longer leads to the call frame's NRet")
	h := newHarness(t, false)
	var got []int
	h.b.L().SetGlobal("probe", h.b.L().NewFunction(func(L *lua.LState) int {
		got = append(got, callResults(L))
		return 0
	}))
	require.NoError(t, h.b.L().DoString(`
		probe()
		local a = probe()
		local a, b, c = probe()
		local t = {probe()}
		local function tail() return probe() end
		local x, y = tail()`))
	require.Equal(t, []int{0, 1, 3, lua.MultRet, 2}, got)
}

// TestAdjustResults covers the adjustment on its own: padding, cutting,
// all results, and Go nils replaced wherever they are.
func TestAdjustResults(t *testing.T) {
	one := lua.LNumber(1)
	adjust := func(vals []lua.LValue, want int) []lua.LValue {
		out, _ := adjustResults(vals, want, nil)
		return out
	}
	require.Equal(t, []lua.LValue{one, lua.LNil, lua.LNil}, adjust([]lua.LValue{one}, 3))
	require.Equal(t, []lua.LValue{one}, adjust([]lua.LValue{one, one}, 1))
	require.Empty(t, adjust(nil, 0))
	require.Equal(t, []lua.LValue{one, lua.LNil}, adjust([]lua.LValue{one, nil}, lua.MultRet))
	require.Equal(t, []lua.LValue{lua.LNil}, adjust([]lua.LValue{nil}, resultsUnknown))

	shared := []lua.LValue{one, nil}
	buf := make([]lua.LValue, 0, 8)
	out, built := adjustResults(shared, 3, buf)
	require.True(t, built)
	require.Equal(t, []lua.LValue{one, lua.LNil, lua.LNil}, out)
	require.Nil(t, shared[1], "the caller's slice, shared by every waiter, is not modified")
	same, built := adjustResults([]lua.LValue{one, one}, 2, buf)
	require.False(t, built, "values that need no change are passed as they are, never copied into buf")
	require.Len(t, same, 2)
}

// TestExternalValueKeepsNilArrayElementsInPlace proves an external job's
// array keeps every element at its index when some are nil (a JSON null in
// an LSP reply, say): a nil element is a hole, not a reason to shift the
// rest down. Map entries whose value is nil are absent, as in Lua.
func TestExternalValueKeepsNilArrayElementsInPlace(t *testing.T) {
	h := newHarness(t, false)
	id, _ := h.rt.RegisterExternal(lsp.RequestKind, "")
	hv, err := h.b.Adopt(id)
	require.NoError(t, err)
	h.b.L().SetGlobal("H", hv)
	fn, err := h.b.LoadString(nilCheckLua+`
		local v, err, extra = H:await()
		assert(is_nil(err, "err") and is_nil(extra, "extra"))
		assert(v[1] == 1 and is_nil(v[2], "v[2]") and v[3] == 3, "array shifted: " .. tostring(v[2]) .. ", " .. tostring(v[3]))
		assert(v[4].a == "x" and is_nil(v[4].gone, "gone"))
		assert(v[5][1] == nil and v[5][2] == "y")
		local keys = 0
		for k in pairs(v[4]) do keys = keys + 1 end
		assert(keys == 1, "keys: " .. keys)
		return "ok"`, "test.lua")
	require.NoError(t, err)
	task := h.b.Spawn(fn)
	require.NoError(t, h.rt.CompleteExternalOK(id, []any{
		1, nil, 3, map[string]any{"a": "x", "gone": nil}, []any{nil, "y"},
	}))
	h.drive(t, 10*time.Second)
	require.NoError(t, task.Err(), h.stderr.String())
	require.Equal(t, []lua.LValue{lua.LString("ok")}, task.Results())
}

// TestAnyToLuaDropsKeysLuaCannotHold proves a map with a nil or NaN key
// converts without them: gopher-lua would store such a key, and pairs over
// the table would then restart at the nil key (looping for ever) or raise
// at NaN.
func TestAnyToLuaDropsKeysLuaCannotHold(t *testing.T) {
	v, err := luaFromValue(map[any]any{nil: 1, math.NaN(): 2, "k": 3, int64(4): nil})
	require.NoError(t, err)
	require.Empty(t, badLuaValues(v, "value", map[*lua.LTable]bool{}))
	var keys []string
	v.(*lua.LTable).ForEach(func(k, _ lua.LValue) { keys = append(keys, k.String()) })
	require.Equal(t, []string{"k"}, keys)
}
