-- parse, tree methods, highlights and incremental reparse with prior.
local w = pmacs.workers

local src = "local x = 1\nprint(x)\n"
local tree, err = w.parse{source = src, language = "lua"}:await()
assert(err == nil, tostring(err))
assert(tree:language() == "lua")
assert(tree:root_type() == "program", "root type, got " .. tree:root_type())
assert(tree:sexpr():find("variable_declaration", 1, true) or tree:sexpr():find("local", 1, true), tree:sexpr())
assert(tree:has_error() == false)
assert(type(tree:duration_ms()) == "number" and tree:duration_ms() >= 0)
assert(tostring(tree):find("lua", 1, true))

local spans = tree:highlights(0, 2)
assert(#spans > 0, "highlights found")
local groups = {}
for _, s in ipairs(spans) do
  assert(type(s.start_row) == "number" and type(s.start_col) == "number")
  assert(type(s.end_row) == "number" and type(s.end_col) == "number")
  assert(s.start_row >= 0 and s.start_row < 2, "span starts inside the rows asked")
  groups[s.group] = s
end
assert(groups.keyword, "'local' is a keyword")
assert(groups.keyword.start_row == 0 and groups.keyword.start_col == 0 and groups.keyword.end_col == 5)
assert(#tree:highlights(5, 5) == 0, "an empty row range has no spans")

-- Incremental reparse against the prior tree equals a fresh parse.
local src2 = "local x = 1\nprint(x + 2)\n"
local t2 = w.parse{source = src2, language = "lua", prior = tree, key = "buf:1"}:await()
local fresh = w.parse{source = src2, language = "lua"}:await()
assert(t2:sexpr() == fresh:sexpr(), "incremental equals fresh")
assert(tree:sexpr() ~= t2:sexpr(), "the prior tree is unchanged")

-- Broken source parses with errors.
local broken = w.parse{source = "local = = 1", language = "lua"}:await()
assert(broken:has_error() == true)

-- Another language.
local gotree = w.parse{source = "package main\nfunc main() {}\n", language = "go"}:await()
assert(gotree:root_type() == "source_file")
gotree:close()
assert(gotree:root_type() == "", "a closed tree reports nothing")

-- Superseded parses under one key: only the last completes.
local hs = {}
for i = 1, 5 do hs[i] = w.parse{source = string.rep("local a = 1\n", 2000), language = "lua", key = "buf:2"} end
local ok = 0
for i = 1, 5 do
  local t, e = hs[i]:await()
  if t then ok = ok + 1 else assert(e == "cancelled", tostring(e)) end
end
assert(ok >= 1 and hs[5]:await(), "the last parse completes")
