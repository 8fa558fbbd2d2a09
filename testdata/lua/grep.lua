-- grep over the fixture tree the Go test writes under arg[1]/grep.
local w = pmacs.workers
local root = arg[1] .. "/grep"

local function collect(spec)
  local h = w.grep(spec)
  local items = {}
  for batch in h:batches() do
    for _, m in ipairs(batch) do items[#items + 1] = m end
  end
  local v, err = h:await()
  return items, v, err
end

local items, v, err = collect{root = root, pattern = "hello"}
assert(err == nil, tostring(err))
assert(type(v) == "table" and v.files_searched >= 2, "outcome reports files searched")

-- h:progress() is the files searched so far; final once the stream closed.
local ph = w.grep{root = root, pattern = "hello"}
assert(type(ph:progress()) == "number")
for _ in ph:batches() do end
assert(ph:progress() == v.files_searched, "final progress is the files searched")
assert(w.sum(3):progress() == nil, "request/reply jobs have no progress")
table.sort(items, function(a, b) return a.file < b.file or (a.file == b.file and a.line < b.line) end)
-- a.txt has two matching lines, sub/b.go one; .hidden and node_modules are skipped.
assert(#items == 3, "three matches, got " .. #items)
local m = items[1]
assert(m.file == "a.txt" and m.line == 1, "first match a.txt:1, got " .. m.file .. ":" .. m.line)
assert(m.text == "hello world, hello again")
assert(m.match_start == 0 and m.match_end == 5, "first span 0-based, end exclusive")
assert(#m.spans == 2, "both occurrences are spans")
assert(m.spans[2][1] == 13 and m.spans[2][2] == 18)
assert(m.text:sub(m.spans[2][1] + 1, m.spans[2][2]) == "hello")
assert(items[3].file == "sub/b.go", "relative, slash-separated paths")

-- Case folding, regex, hidden files, skip_dirs, max_results.
items = collect{root = root, pattern = "HELLO", case_sensitive = false}
assert(#items == 3, "case-insensitive finds the same lines")
items = collect{root = root, pattern = "HELLO"}
assert(#items == 0, "case-sensitive by default")
items = collect{root = root, pattern = "hel+o\\s+w", regex = true}
assert(#items == 1 and items[1].file == "a.txt")
items = collect{root = root, pattern = "hello", hidden = true}
assert(#items == 4, "hidden = true searches .hidden")
items = collect{root = root, pattern = "hello", skip_dirs = {}}
assert(#items == 4, "an empty skip_dirs searches node_modules")
items = collect{root = root, pattern = "hello", max_results = 1}
assert(#items == 1, "max_results caps the matches")
items = collect{root = root, pattern = "hello", max_batch = 1}
assert(#items == 3, "max_batch 1 still delivers everything")

-- Bad input fails the job (not the script) with grep's message.
local _, v2, err2 = collect{root = root, pattern = "(", regex = true}
assert(v2 == nil and err2:find("bad search pattern", 1, true), "invalid regex: " .. tostring(err2))
local _, v3, err3 = collect{root = root .. "/missing", pattern = "x"}
assert(v3 == nil and err3:find("bad search root", 1, true), tostring(err3))
