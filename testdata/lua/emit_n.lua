-- emit_n streams 1..count in batches of at most max_batch.
local w = pmacs.workers

local n, max_batch = 10000, 100
local h = w.emit_n(n, {max_batch = max_batch})
local expect, batches = 1, 0
for batch in h:batches() do
  assert(type(batch) == "table", "a batch is a list")
  assert(#batch >= 1 and #batch <= max_batch, "batch size within max_batch, got " .. #batch)
  for _, x in ipairs(batch) do
    assert(x == expect, "items in order: want " .. expect .. " got " .. tostring(x))
    expect = expect + 1
  end
  batches = batches + 1
end
assert(expect == n + 1, "every item delivered")
assert(batches >= n / max_batch, "at least n/max_batch batches")
local v, err = h:await()
assert(v == true and err == nil, "the stream's outcome after iteration")
assert(h:done())

-- An empty stream ends at once.
local empty = w.emit_n(0)
for _ in empty:batches() do error("no batch expected") end
assert(empty:await() == true)

-- Batches that arrive while the task waits elsewhere are kept for it.
local later = w.emit_n(50, {max_batch = 7})
w.sleep(30):await()
local seen = 0
for batch in later:batches() do
  assert(#batch <= 7)
  seen = seen + #batch
end
assert(seen == 50, "buffered batches are delivered, got " .. seen)

-- Iterating after the stream closed yields nothing more, and await repeats.
for _ in later:batches() do error("closed stream iterated again") end
assert(later:await() == true)
