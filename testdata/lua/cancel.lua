-- Cancelling through the handle and through w.cancel(id).
local w = pmacs.workers

local h = w.sleep(60000)
h:cancel()
local v, err = h:await()
assert(v == nil and err == "cancelled", tostring(err))
assert(h:done())

local h2 = w.sum(1e15)
w.cancel(h2:id())
v, err = h2:await()
assert(v == nil and err == "cancelled", tostring(err))

-- Cancelling a stream mid-iteration ends the loop and drops queued items.
local s = w.emit_n(1e9, {max_batch = 64})
local got = 0
for batch in s:batches() do
  got = got + #batch
  if got >= 64 then s:cancel() end
end
assert(got >= 64, "some items arrived before cancel")
v, err = s:await()
assert(v == nil and err == "cancelled", tostring(err))

-- Cancelling a settled job, or an unknown id, is harmless.
local done = w.sum(1)
assert(done:await() == 1)
done:cancel()
w.cancel(987654321)
assert(done:await() == 1, "a settled result stays")
