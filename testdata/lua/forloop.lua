-- Generic for loops keep Lua's semantics after the rewrite that lets their
-- iterators wait.
local w = pmacs.workers

local keys = {}
for k, v in pairs({a = 1, b = 2, c = 3}) do keys[#keys + 1] = k .. v end
table.sort(keys)
assert(table.concat(keys, ",") == "a1,b2,c3", "pairs yields keys and values")

local seq = {}
for i, v in ipairs({"x", "y", "z"}) do seq[#seq + 1] = i .. v end
assert(table.concat(seq, ",") == "1x,2y,3z")

-- break, nested loops, closures capturing a fresh variable per iteration.
local fns, found = {}, nil
for i, v in ipairs({10, 20, 30, 40}) do
  fns[#fns + 1] = function() return v end
  for _, inner in ipairs({1, 2}) do
    if v == 30 and inner == 2 then found = i end
  end
  if v == 30 then break end
end
assert(found == 3 and #fns == 3 and fns[1]() == 10 and fns[3]() == 30)

-- A stateful iterator with an explicit state and control value.
local function range(n)
  return function(limit, i) if i < limit then return i + 1, i * i end end, n, 0
end
local got = {}
for i, sq in range(4) do got[#got + 1] = i .. ":" .. sq end
assert(table.concat(got, ",") == "1:0,2:1,3:4,4:9")

-- An iterator written in Lua may wait, too.
local function slowly(list)
  local i = 0
  return function()
    i = i + 1
    if list[i] then return w.sum(list[i]):await() end
  end
end
local sums = {}
for s in slowly({1, 2, 3}) do sums[#sums + 1] = s end
assert(table.concat(sums, ",") == "1,3,6")

-- Chunks loaded at run time get the same rewrite.
local chunk = assert(loadstring([[
  local h = pmacs.workers.emit_n(30, {max_batch = 4})
  local n = 0
  for batch in h:batches() do n = n + #batch end
  return n
]]))
assert(chunk() == 30, "a loadstring chunk iterates a stream")
local f = assert(load("local t = 0 for _, v in ipairs({...}) do t = t + v end return t"))
assert(f(1, 2, 3) == 6, "load with a string")
local parts, i = {"return ", "4", "2"}, 0
local g = assert(load(function() i = i + 1 return parts[i] end))
assert(g() == 42, "load with a reader")
local nf, lerr = loadstring("for in do")
assert(nf == nil and type(lerr) == "string", "syntax errors are returned")
