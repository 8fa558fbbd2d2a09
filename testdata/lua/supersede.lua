-- Supersede from Lua: 100 sleeps under one key, at most one completes.
local w = pmacs.workers

local hs = {}
for i = 1, 100 do hs[i] = w.sleep(30, {key = "search"}) end
local complete, cancelled = 0, 0
for i = 1, 100 do
  local v, err = hs[i]:await()
  if v == true then complete = complete + 1
  else
    assert(v == nil and err == "cancelled", "a superseded job is cancelled: " .. tostring(err))
    cancelled = cancelled + 1
  end
end
assert(complete <= 1, "at most one completes, got " .. complete)
assert(hs[100]:await() == true, "the last one, never superseded, completes")
assert(cancelled == 99)

-- A superseded stream ends its iteration and reports cancelled; its
-- successor delivers everything.
local old = w.emit_n(1e9, {key = "stream", max_batch = 10})
local first = old:batches()(old)
assert(type(first) == "table" and #first <= 10)
local new = w.emit_n(20, {key = "stream"})
for _ in old:batches() do end
local v, err = old:await()
assert(v == nil and err == "cancelled", tostring(err))
local n = 0
for batch in new:batches() do n = n + #batch end
assert(n == 20 and new:await() == true)

-- Different keys do not interfere.
local a, b = w.sleep(10, {key = "a"}), w.sleep(10, {key = "b"})
assert(a:await() == true and b:await() == true)
