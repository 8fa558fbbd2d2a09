-- w.snapshot() rows for active and completed jobs.
local w = pmacs.workers

local h = w.sleep(200, {key = "snap"})
local s = w.emit_n(1e9, {key = "snapstream"})
local snap = w.snapshot()
assert(type(snap.active) == "table" and type(snap.completed) == "table")
local row, srow
for _, r in ipairs(snap.active) do
  if r.id == h:id() then row = r end
  if r.id == s:id() then srow = r end
end
assert(row, "the sleep is active")
assert(row.kind == "sleep" and row.key == "snap" and row.stream == false)
assert(row.cancel_requested == false and type(row.age_ms) == "number" and row.age_ms >= 0)
assert(srow and srow.kind == "emit_n" and srow.stream == true)

h:cancel()
s:cancel()
local snap2 = w.snapshot()
for _, r in ipairs(snap2.active) do
  if r.id == h:id() then assert(r.cancel_requested == true, "cancel shows before it settles") end
end
h:await()
s:await()

local ok = w.sum(10)
ok:await()
local bad = pmacs.workers.fs.stat(arg[1] .. "/definitely-missing")
bad:await()

local outcomes = {}
for _, r in ipairs(w.snapshot().completed) do outcomes[r.id] = r end
assert(outcomes[h:id()].outcome == "cancelled" and outcomes[h:id()].key == "snap")
assert(outcomes[ok:id()].outcome == "complete" and outcomes[ok:id()].kind == "compute_sum")
assert(type(outcomes[ok:id()].duration_ms) == "number" and type(outcomes[ok:id()].settled_age_ms) == "number")
assert(outcomes[bad:id()].outcome == "failed" and outcomes[bad:id()].kind == "fs_stat")
assert(outcomes[bad:id()].error:find("no such file", 1, true), outcomes[bad:id()].error)
local newest = w.snapshot().completed[1]
assert(newest.id == bad:id(), "completed is newest first")
for _, r in ipairs(w.snapshot().active) do
  assert(r.id ~= ok:id(), "a completed job is not active")
end
