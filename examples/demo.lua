-- A tour of pmacs.workers, run headless:
--   go run ./cmd/demo-editor --script examples/demo.lua [ROOT] [PATTERN]
-- Every job below runs on a worker goroutine; this script only waits in
-- coroutines, so an editor running it would keep drawing frames throughout.
local w = pmacs.workers
local root = arg[1] or "."
local pattern = arg[2] or "func"

-- Request/reply: a sum computed on a worker.
local sum = w.sum(1000000):await()
print(("sum(1e6) = %d"):format(sum))

-- Supersede: ten sleeps under one key; each new one cancels the one before.
local handles = {}
for i = 1, 10 do handles[i] = w.sleep(50, {key = "demo"}) end
local done, cancelled = 0, 0
for _, h in ipairs(handles) do
  local ok, err = h:await()
  if ok then done = done + 1 elseif err == "cancelled" then cancelled = cancelled + 1 end
end
print(("supersede: 10 sleeps under one key -> %d completed, %d cancelled"):format(done, cancelled))

-- A stream, delivered one batch per frame.
local h = w.emit_n(100000, {max_batch = 4096})
local items, batches = 0, 0
for batch in h:batches() do
  items, batches = items + #batch, batches + 1
end
print(("emit_n: %d items in %d frame batches"):format(items, batches))

-- Parallel grep, streamed; then the same search superseded by a new query.
local g = w.grep{root = root, pattern = pattern, key = "search"}
local matches, first = 0, nil
for batch in g:batches() do
  matches = matches + #batch
  first = first or batch[1]
end
local outcome, gerr = g:await()
if not outcome then
  print(("grep %q in %s failed: %s"):format(pattern, root, gerr))
  return
end
print(("grep %q in %s: %d matching lines, %d files searched"):format(
  pattern, root, matches, outcome.files_searched))
if first then print(("  first: %s:%d: %s"):format(first.file, first.line, first.text)) end

local old = w.grep{root = root, pattern = pattern, key = "search"}
local new = w.grep{root = root, pattern = pattern .. "_no_such_thing", key = "search"}
local ok, err = old:await()
local _, newerr = new:await()
-- On a tiny tree the first search can finish before the second is
-- dispatched; then there is nothing left to cancel.
print(("superseded grep: %s; its successor: %s"):format(
  ok and "finished before the new query arrived" or err, newerr or "complete"))

-- Parse with tree-sitter on a worker, then ask for highlights.
local src = "local function greet(name)\n  print('hello ' .. name)\nend\n"
local tree = w.parse{source = src, language = "lua"}:await()
local spans = tree:highlights(0, 3)
print(("parse: %s, %d highlight spans, error=%s"):format(
  tree:root_type(), #spans, tostring(tree:has_error())))
for _, s in ipairs(spans) do
  print(("  span %d:%d-%d:%d %s"):format(s.start_row, s.start_col, s.end_row, s.end_col, s.group))
end

-- The *workers* view's data.
local snap = w.snapshot()
print(("snapshot: %d active, %d recent completions; newest: %s %s"):format(
  #snap.active, #snap.completed, snap.completed[1].kind, snap.completed[1].outcome))
