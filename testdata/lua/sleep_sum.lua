-- sleep and sum: values, handle methods, awaiting twice.
local w = pmacs.workers

local h = w.sleep(5)
assert(type(h:id()) == "number" and h:id() > 0, "id is a positive number")
assert(h:done() == false, "a fresh sleep is not done")
local v, err = h:await()
assert(v == true and err == nil, "sleep completes with true")
assert(h:done() == true, "done after await")
local v2, err2 = h:await()
assert(v2 == true and err2 == nil, "awaiting twice returns the same result")
assert(tostring(h):find("sleep", 1, true), "tostring names the kind")

assert(w.sleep(0):await() == true, "zero sleep")
assert(w.sleep(-5):await() == true, "negative sleep counts as zero")

assert(w.sum(100):await() == 5050, "sum 1..100")
assert(w.sum(0):await() == 0, "sum of nothing")
assert(w.sum(1000000):await() == 500000500000, "sum 1..1e6")

-- Two handles awaited in either order.
local a, b = w.sleep(20), w.sum(10)
assert(b:await() == 55)
assert(a:await() == true)

-- A handle settled before anyone waited returns at once.
local early = w.sum(3)
w.sleep(20):await()
assert(early:done() and early:await() == 6)
