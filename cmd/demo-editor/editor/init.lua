-- init.lua: the demo editor's commands. Everything a user sees beyond
-- moving the cursor and typing is built here, on pmacs.workers (jobs) and
-- pmacs.editor (buffers, windows, keymaps, prompts, messages). Start your
-- own --init file from a copy of this one.

local ed = pmacs.editor
local w = pmacs.workers
local run = pmacs.async.run

ed.set_help("^S save ^Z undo ^F grep ^D dir ^W workers ^O open ^B bufs ^E log M-x cmd ^Q quit")

local function dirname(path)
  local d = path:match("^(.*)/[^/]*$")
  if d == nil or d == "" then return "/" end
  return d
end

local function join(dir, name)
  if name:sub(1, 1) == "/" then return name end
  if dir:sub(-1) == "/" then return dir .. name end
  return dir .. "/" .. name
end

-- The directory a command acts in: the shown file's or directory's, else
-- the project root.
local dired = {} -- buf -> {path = dir, entries = {row -> entry}}
local function current_dir()
  local buf = ed.current()
  if dired[buf] then return dired[buf].path end
  local p = ed.path(buf)
  if p then return dirname(p) end
  return ed.root()
end

------------------------------------------------------------------ syntax
-- Each file buffer with a language is parsed by a job under its own
-- supersede key, so a keystroke cancels the parse of the previous text.
-- The parse reuses the last tree (incremental); highlights are taken for
-- the visible rows only and again when the view scrolls.

local syntax = {} -- buf -> {tree = , gen = dispatched, landed = newest landed}

local function refresh_highlights(buf)
  local s = syntax[buf]
  if not s or not s.tree or s.landed ~= s.gen then return end
  local top, bottom = ed.visible_rows(buf)
  ed.set_highlights(buf, s.tree:highlights(top, bottom))
end

local function reparse(buf)
  local lang = ed.language(buf)
  if not lang then return end
  local s = syntax[buf]
  if not s then
    s = {gen = 0, landed = 0}
    syntax[buf] = s
  end
  s.gen = s.gen + 1
  local gen = s.gen
  local h = w.parse{source = ed.get_text(buf), language = lang, prior = s.tree, key = "buf:" .. buf}
  run(function()
    local tree, err = h:await()
    if syntax[buf] ~= s then -- the buffer was closed meanwhile
      if tree then tree:close() end
      return
    end
    if not tree then
      if err ~= "cancelled" then ed.error("parse " .. ed.name(buf) .. ": " .. tostring(err)) end
      return
    end
    if gen < s.landed then tree:close() return end -- an older parse landing late
    if s.tree then s.tree:close() end
    s.tree, s.landed = tree, gen
    refresh_highlights(buf)
  end)
end

ed.on("open", reparse)
ed.on("change", reparse)
ed.on("view", refresh_highlights)
ed.on("close", function(buf)
  local s = syntax[buf]
  if s and s.tree then s.tree:close() end
  syntax[buf] = nil
end)

------------------------------------------------------------------ files

local function open_file(path, row, col)
  local buf, err = ed.open(path)
  if not buf then ed.error(err) return end
  if row then ed.set_cursor(buf, row, col or 0) end
  ed.show(buf)
  return buf
end

local open_dired -- defined below

-- open_path opens a directory in a directory view and anything else as a
-- file (a missing file becomes a new buffer the first save creates).
local function open_path(path)
  if path:sub(1, 1) ~= "/" then path = join(current_dir(), path) end
  path = path:gsub("/+$", "")
  if path == "" then path = "/" end
  local h = w.fs.stat(path)
  run(function()
    local st, err, code = h:await()
    if st and (st.kind == "dir" or st.kind == "symlink") then
      if st.kind == "dir" then open_dired(path) return end
      local listing = w.fs.read_dir(path):await()
      if listing then open_dired(path) return end
    end
    if not st and code ~= "ENOENT" then ed.error("open: " .. err) return end
    open_file(path)
  end)
end

ed.map("global", "C-s", function(buf)
  if not ed.path(buf) then ed.message(ed.name(buf) .. " has no file to save to") return end
  ed.save(buf)
end)
ed.map("global", "C-z", function(buf)
  if not ed.undo(buf) then ed.message("nothing to undo") end
end)
ed.map("global", "C-y", function(buf)
  if not ed.redo(buf) then ed.message("nothing to redo") end
end)
ed.map("global", "C-q", function() ed.quit(false) end)
ed.map("global", "C-e", function() ed.show(ed.find("*messages*")) end)
ed.map("global", "C-o", function()
  ed.prompt("open: ", {text = current_dir() .. "/", on_submit = function(text)
    if text ~= "" then open_path(text) end
  end})
end)

------------------------------------------------------------------ live grep
-- Every keystroke in the prompt starts a grep under one supersede key: the
-- runtime cancels the previous search, and its results never show under
-- the new query (the consumer checks that its handle is still current).

local grep = {buf = nil, handle = nil, count = 0, query = "", root = nil}
local spinner = {"|", "/", "-", "\\"}

local function grep_header(state)
  local files = grep.files and (" in " .. grep.files .. " files") or ""
  local head
  if grep.query == "" then
    head = "grep in " .. grep.root .. ": type a pattern (Enter opens the selected match, Esc cancels)"
  else
    head = string.format("grep %q: %d matches%s  %s", grep.query, grep.count, files, state)
  end
  ed.set_lines(grep.buf, 0, 1, {head})
  ed.add_highlights(grep.buf, {{0, 0, 0, #head, "header"}})
end

local function start_grep(query)
  if grep.handle then grep.handle:cancel() end
  grep.handle, grep.query, grep.count, grep.files = nil, query, 0, nil
  local buf = grep.buf
  ed.set_lines(buf, 0, -1, {""})
  ed.set_cursor(buf, 0, 0)
  if query == "" then grep_header("") return end
  -- Smart case: a capital letter makes the search case-sensitive.
  local h = w.grep{root = grep.root, pattern = query, case_sensitive = query:find("%u") ~= nil,
                   key = "live-grep", max_batch = 256}
  grep.handle = h
  grep_header("searching " .. spinner[1])
  run(function()
    local tick = 0
    for batch in h:batches() do
      if grep.handle ~= h then return end
      -- The editor formats the rows and remembers where each points
      -- (ed.match_at), so the batch is garbage after this frame.
      ed.append_matches(buf, batch)
      grep.count = grep.count + #batch
      if h.progress then grep.files = h:progress() end
      tick = tick + 1
      grep_header("searching " .. spinner[tick % #spinner + 1])
    end
    if grep.handle ~= h then return end
    local res, err = h:await()
    if res then
      grep.files = res.files_searched
      grep_header("done")
    else
      grep_header(err)
      if err ~= "cancelled" then ed.error("grep: " .. err) end
    end
  end)
end

-- open_match opens the match on row (row 0, the header, opens the first).
local function open_match(row)
  local m = ed.match_at(grep.buf, row) or ed.match_at(grep.buf, 1)
  if not m then ed.message("no match to open") return end
  open_file(join(grep.root, m.file), m.line - 1, m.col)
end

local function live_grep()
  if not grep.buf or not ed.find("*grep*") then
    grep.buf = ed.create("*grep*")
    ed.map(grep.buf, "Enter", function(buf) open_match(ed.cursor(buf)) end)
  end
  grep.root = current_dir()
  ed.show(grep.buf)
  start_grep("")
  ed.prompt("grep: ", {
    on_change = start_grep,
    on_submit = function() open_match(ed.cursor(grep.buf)) end,
    on_cancel = function()
      if grep.handle then grep.handle:cancel() end
      grep.handle = nil
      local prev = ed.previous()
      if prev then ed.show(prev) end
    end,
  })
end
ed.map("global", "C-f", live_grep)

------------------------------------------------------------------ dired

local function mode_string(e)
  local kinds = {dir = "d", symlink = "l", file = "-", other = "?"}
  local s = kinds[e.kind] or "?"
  local bits = {"r", "w", "x"}
  for shift = 8, 0, -1 do
    local on = math.floor(e.mode / 2 ^ shift) % 2 == 1
    s = s .. (on and bits[(8 - shift) % 3 + 1] or "-")
  end
  return s
end

local function dired_refresh(buf)
  local st = dired[buf]
  if not st then return end
  local h = w.fs.read_dir(st.path, {per_entry = true, key = "dired:" .. buf})
  run(function()
    local res, err = h:await()
    if not res then
      if err ~= "cancelled" then ed.error("dired " .. st.path .. ": " .. err) end
      return
    end
    if not dired[buf] then return end -- closed meanwhile
    local row = ed.cursor(buf)
    -- Keep the selection on the same name (or on the new name after a
    -- rename); failing that, on the same row.
    local selected = st.select or (st.entries[row] and st.entries[row].name)
    st.select = nil
    local lines = {st.path .. ":"}
    local hl = {{0, 0, 0, #lines[1], "header"}}
    st.entries = {[1] = {name = "..", kind = "dir", mode = 0}}
    lines[2] = "  " .. ".."
    for _, e in ipairs(res.entries) do
      local line = string.format("  %s %10d  %s", mode_string(e), e.size, e.name)
      if e.target then line = line .. " -> " .. e.target end
      lines[#lines + 1] = line
      st.entries[#lines - 1] = e
      if e.kind == "dir" then
        hl[#hl + 1] = {#lines - 1, #line - #e.name, #lines - 1, #line, "directory"}
      elseif e.kind == "symlink" then
        hl[#hl + 1] = {#lines - 1, 25, #lines - 1, #line, "symlink"}
      end
    end
    for _, e in ipairs(res.errors) do
      lines[#lines + 1] = "  ? " .. e.name .. ": " .. e.message
      hl[#hl + 1] = {#lines - 1, 0, #lines - 1, #lines[#lines], "error"}
    end
    ed.set_lines(buf, 0, -1, lines)
    ed.set_highlights(buf, hl)
    local new_row = row
    for r, e in pairs(st.entries) do
      if e.name == selected then new_row = r end
    end
    ed.set_cursor(buf, math.max(1, math.min(new_row, #lines - 1)), 0)
  end)
end

local function dired_entry(buf)
  local st = dired[buf]
  local e = st and st.entries[ed.cursor(buf)]
  if not e then ed.message("no file on this row") return end
  return e, e.name == ".." and dirname(st.path) or join(st.path, e.name)
end

open_dired = function(path)
  local name = "dired " .. path
  local buf = ed.find(name)
  if not buf then
    buf = ed.create(name)
    dired[buf] = {path = path, entries = {}}
    ed.map(buf, "Enter", function(b)
      local e, p = dired_entry(b)
      if not e then return end
      if e.kind == "dir" or e.name == ".." or e.kind == "symlink" then open_path(p) else open_file(p) end
    end)
    ed.map(buf, "Backspace", function(b) open_dired(dirname(dired[b].path)) end)
    ed.map(buf, "^", function(b) open_dired(dirname(dired[b].path)) end)
    ed.map(buf, "g", dired_refresh)
    ed.map(buf, "r", function(b)
      local e, from = dired_entry(b)
      if not e or e.name == ".." then return end
      ed.prompt("rename " .. e.name .. " to: ", {text = e.name, on_submit = function(to)
        if to == "" or to == e.name then return end
        local h = w.fs.rename(from, join(dired[b].path, to))
        dired[b].select = to
        run(function()
          -- Success refreshes through the "resource" event.
          local ok, err = h:await()
          if not ok then
            dired[b].select = nil
            ed.error("rename: " .. err)
          end
        end)
      end})
    end)
    ed.map(buf, "d", function(b)
      local e, path = dired_entry(b)
      if not e or e.name == ".." then return end
      ed.prompt("remove " .. e.name .. "? (y/n) ", {on_change = function(text)
        ed.close_prompt()
        if text ~= "y" and text ~= "Y" then ed.message("not removed") return end
        local h = w.fs.remove(path)
        run(function()
          local ok, err = h:await()
          if ok then ed.message("removed " .. path) else ed.error("remove: " .. err) end
        end)
      end})
    end)
    ed.map(buf, "m", function(b)
      local e, path = dired_entry(b)
      if not e or e.name == ".." then return end
      ed.prompt("chmod " .. e.name .. " (octal): ", {text = string.format("%o", e.mode), on_submit = function(mode)
        if not mode:match("^[0-7]+$") or #mode > 4 then ed.error("chmod: " .. mode .. " is not an octal mode") return end
        local h = w.fs.chmod(path, mode)
        run(function()
          local ok, err = h:await()
          if not ok then ed.error("chmod: " .. err) return end
          -- A chmod is not among the operations Tick reports: refresh here.
          dired_refresh(b)
        end)
      end})
    end)
  end
  ed.show(buf)
  dired_refresh(buf)
  return buf
end

-- Renames and removes are reported by the runtime once they complete:
-- every directory view that shows either end refreshes.
ed.on("resource", function(op)
  for buf, st in pairs(dired) do
    if dirname(op.from) == st.path or (op.to and dirname(op.to) == st.path) then
      dired_refresh(buf)
    end
  end
end)

ed.on("close", function(buf) dired[buf] = nil end)

ed.map("global", "C-d", function() open_dired(current_dir()) end)

------------------------------------------------------------------ *workers*
-- The live job table, redrawn every frame while it is shown; c cancels the
-- job on the cursor row, r resets the fatal root on the cursor row.

local workers = {buf = nil, rows = {}, fatal_rows = {}}

local function render_workers(buf)
  local s = w.snapshot()
  local rows = {}
  local lines = {string.format("Active jobs: %d        (c: cancel the job on the cursor row)", #s.active),
                 string.format("  %-6s %-12s %10s  %-20s %s", "id", "kind", "age", "key", "")}
  local hl = {{0, 0, 0, #lines[1], "header"}, {1, 0, 1, #lines[2], "dim"}}
  for _, a in ipairs(s.active) do
    lines[#lines + 1] = string.format("  %-6d %-12s %8.0fms  %-20s %s", a.id, a.kind, a.age_ms,
      a.key or "-", a.cancel_requested and "cancel requested" or (a.stream and "streaming" or "running"))
    rows[#lines - 1] = a.id
  end
  -- Roots refusing every job since a mutation of theirs panicked: shown
  -- only when there are some, with the panic message.
  local fatal_rows = {}
  if #s.fatal > 0 then
    lines[#lines + 1] = ""
    lines[#lines + 1] = string.format("Fatal roots: %d        (r: reset the root on the cursor row)", #s.fatal)
    hl[#hl + 1] = {#lines - 1, 0, #lines - 1, #lines[#lines], "header"}
    for _, f in ipairs(s.fatal) do
      -- Two rows, both resetting the root: a path and a panic message side
      -- by side would not fit a terminal's width.
      for _, line in ipairs({"  " .. (f.root ~= "" and f.root or "(paths under no root)"), "    " .. f.reason}) do
        lines[#lines + 1] = line
        hl[#hl + 1] = {#lines - 1, 0, #lines - 1, #line, "error"}
        fatal_rows[#lines - 1] = f.root
      end
    end
  end
  workers.fatal_rows = fatal_rows
  lines[#lines + 1] = ""
  lines[#lines + 1] = string.format("Recent completions: %d", #s.completed)
  hl[#hl + 1] = {#lines - 1, 0, #lines - 1, #lines[#lines], "header"}
  for _, c in ipairs(s.completed) do
    local line = string.format("  %-6d %-12s %8.1fms  %-20s %s", c.id, c.kind, c.duration_ms,
      c.key or "-", c.outcome)
    if c.error then line = line .. ": " .. c.error end
    lines[#lines + 1] = line
    local group = ({complete = "ok", cancelled = "warning", failed = "error"})[c.outcome]
    hl[#hl + 1] = {#lines - 1, 0, #lines - 1, #line, group}
  end
  workers.rows = rows
  ed.set_lines(buf, 0, -1, lines)
  ed.set_highlights(buf, hl)
end

local function show_workers()
  if not workers.buf or not ed.find("*workers*") then
    workers.buf = ed.create("*workers*")
    ed.on("frame", render_workers, workers.buf)
    ed.map(workers.buf, "c", function(buf)
      local id = workers.rows[ed.cursor(buf)]
      if not id then ed.message("no running job on this row") return end
      w.cancel(id)
      ed.message("cancel requested for job " .. id)
    end)
    ed.map(workers.buf, "r", function(buf)
      local root = workers.fatal_rows[ed.cursor(buf)]
      if not root then ed.message("no fatal root on this row") return end
      local ok, err = w.reset_root(root)
      if ok then
        ed.message("reset root " .. (root ~= "" and root or "(paths under no root)"))
      else
        ed.message(err)
      end
    end)
    render_workers(workers.buf)
    ed.set_cursor(workers.buf, 2, 0) -- the first job row
  end
  ed.show(workers.buf)
  render_workers(workers.buf)
end
ed.map("global", "C-w", show_workers)

------------------------------------------------------------------ *buffers*

local function show_buffers()
  local buf = ed.find("*buffers*") or ed.create("*buffers*")
  local list = ed.buffers()
  local lines, ids = {}, {}
  for i, b in ipairs(list) do
    lines[i] = string.format("%s %-24s %s", b.modified and "+" or " ", b.name, b.path or "")
    ids[i - 1] = b.id
  end
  ed.set_lines(buf, 0, -1, lines)
  ed.map(buf, "Enter", function(b) local id = ids[ed.cursor(b)] if id then ed.show(id) end end)
  ed.show(buf)
end
ed.map("global", "C-b", show_buffers)

------------------------------------------------------------------ M-x commands
-- Commands that show what the runtime does: start jobs to watch in
-- *workers*.

local commands = {
  grep = live_grep,
  dired = function(arg) open_dired(arg ~= "" and arg or current_dir()) end,
  workers = show_workers,
  open = function(arg) open_path(arg) end,
  sleep = function(arg)
    local ms = tonumber(arg) or 5000
    local h = w.sleep(ms)
    ed.message("sleep job " .. h:id() .. " for " .. ms .. " ms")
    run(function()
      local ok, err = h:await()
      ed.message("sleep job " .. h:id() .. ": " .. (ok and "done" or err))
    end)
  end,
  sum = function(arg)
    local n = tonumber(arg) or 100000000
    local h = w.sum(n)
    run(function()
      local v, err = h:await()
      ed.message(v and string.format("sum 1..%d = %.0f", n, v) or ("sum: " .. err))
    end)
  end,
  ["frame-target"] = function(arg)
    if tonumber(arg) then w.set_frame_target_ms(tonumber(arg)) end
    ed.message("frame target " .. w.frame_target_ms() .. " ms")
  end,
}

ed.map("global", "M-x", function()
  local names = {}
  for name in pairs(commands) do names[#names + 1] = name end
  table.sort(names)
  ed.prompt("command (" .. table.concat(names, ", ") .. "): ", {on_submit = function(text)
    local name, arg = text:match("^%s*(%S+)%s*(.-)%s*$")
    local fn = name and commands[name]
    if not fn then ed.error("no command " .. tostring(name)) return end
    fn(arg)
  end})
end)

------------------------------------------------------------------ start

ed.on("start", function(path) open_path(path) end)
