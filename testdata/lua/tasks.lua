-- pmacs.async.run: arguments, results, errors, nesting and frames.
local w = pmacs.workers
local run = pmacs.async.run

local t = run(function(a, b) return a + b, "two" end, 40, 2)
assert(t:done(), "a task that never waits is done at once")
local x, y = t:await()
assert(x == 42 and y == "two")
local x2 = t:await()
assert(x2 == 42, "awaiting a task twice")
assert(tostring(t):find("done", 1, true))

local slow = run(function() return w.sum(10):await() * 2 end)
assert(not slow:done(), "a waiting task is not done")
assert(slow:await() == 110)

-- Many tasks awaiting one handle all get the result.
local h = w.sleep(10)
local ts = {}
for i = 1, 10 do ts[i] = run(function() return h:await() end) end
for i = 1, 10 do assert(ts[i]:await() == true) end

-- A task awaiting another task that awaits a third.
local c = run(function() w.sleep(5):await(); return "c" end)
local b = run(function() return c:await() .. "b" end)
local a = run(function() return b:await() .. "a" end)
assert(a:await() == "cba")

-- An error stops only its task; await gives nil, err.
local bad = run(function() w.sleep(1):await(); local n = nil; return n + 1 end)
local good = run(function() w.sleep(5):await(); return "still running" end)
local v, err = bad:await()
assert(v == nil and err:find("add operation", 1, true), tostring(err))
assert(good:await() == "still running")
local v2, err2 = bad:await()
assert(v2 == nil and err2 == err, "a failed task awaited twice")
local early = run(function() error("at once") end)
assert(early:done())
v, err = early:await()
assert(v == nil and err:find("at once", 1, true))
-- An error table reaches the awaiting task unchanged.
local tabled = run(function() error({code = 7}) end)
v, err = tabled:await()
assert(v == nil and type(err) == "table" and err.code == 7, tostring(err))

-- coroutine.yield() inside a task resumes it next frame.
local frames = 0
local yielder = run(function() for i = 1, 3 do coroutine.yield(); frames = frames + 1 end return frames end)
assert(yielder:await() == 3)

-- Go functions run as tasks too.
assert(run(tostring, 5):await() == "5")

-- A task cannot await itself.
local me
me = run(function() w.sleep(1):await(); return pcall(me.await, me) end)
local okself, errself = me:await()
assert(okself == false and errself:find("a task cannot await itself", 1, true), tostring(errself))

-- Dispatching in a loop, awaiting each: every await parks until a later frame.
local sum = 0
for i = 1, 50 do sum = sum + w.sum(i):await() end
assert(sum == 22100)
