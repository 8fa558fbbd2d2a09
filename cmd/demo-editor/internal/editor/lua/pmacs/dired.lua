-- pmacs.dired: directory views (C-d, M-x dired). A view lists a
-- directory's entries (read by a job, one stat per entry); Enter opens
-- the entry, Backspace or ^ goes up, r renames, d removes, m changes the
-- mode, g refreshes, and a rename or remove the runtime reports refreshes
-- every view that shows either end. Views follow the disk: a change
-- another program makes refreshes the views of its directory in place,
-- the cursor kept on its entry (the project watch, ctx.watch, for views
-- under the project root; a watch of a view's directory outside it runs
-- while such a view is open). It owns the views' state, and sets
-- ctx.open_dired(path) and ctx.current_dir() (the directory a command
-- acts in). Set up after pmacs.files, which it opens entries with
-- (ctx.open_path, ctx.open_file), and pmacs.disk (ctx.watch).
local M = {}

function M.setup(ctx)
  local ed, w, run, commands = ctx.ed, ctx.w, ctx.run, ctx.commands
  local dirname, join = ctx.paths.dirname, ctx.paths.join
  local open_path, open_file = ctx.open_path, ctx.open_file

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
      if not dired[buf] or not ed.valid(buf) then return end -- closed meanwhile
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

  -- Changes other programs make: the project watch (ctx.watch) for the
  -- views under the project root, and one watch per directory a view
  -- outside it shows, started with the first such view and cancelled with
  -- the last. A batch refreshes each view whose directory it touched once,
  -- however many changes it holds; a notice (changes dropped, or
  -- directories polled) refreshes all.
  local watches = {} -- root -> {h = handle, views = count}
  local function follow_batch(batch, root)
    local dirs = {}
    for _, c in ipairs(batch) do
      if c.op == "notice" then dirs = nil break end
      dirs[dirname(c.path)] = true
    end
    for buf, view in pairs(dired) do
      if view.watch == root and (not dirs or dirs[view.path]) then dired_refresh(buf) end
    end
  end
  ctx.watch.subscribe(function(batch) follow_batch(batch, "project") end)
  local function watch_for(st)
    if ctx.watch.covers(st.path) then st.watch = "project" return end
    local root = st.path
    st.watch = root
    local wt = watches[root]
    if wt then wt.views = wt.views + 1 return end
    local h = w.watch{root = root, max_batch = 256}
    wt = {h = h, views = 1}
    watches[root] = wt
    run(function()
      for batch in h:batches() do follow_batch(batch, root) end
      if watches[root] == wt then watches[root] = nil end
      local _, err = h:await()
      if err ~= "cancelled" then ed.error("dired: watching " .. root .. ": " .. err) end
    end)
  end
  local function unwatch(st)
    local root = st.watch
    st.watch = nil
    local wt = root and watches[root]
    if not wt then return end
    wt.views = wt.views - 1
    if wt.views == 0 then
      watches[root] = nil
      wt.h:cancel()
    end
  end

  local function dired_entry(buf)
    local st = dired[buf]
    local e = st and st.entries[ed.cursor(buf)]
    if not e then ed.message("no file on this row") return end
    return e, e.name == ".." and dirname(st.path) or join(st.path, e.name)
  end

  local function open_dired(path)
    local name = "dired " .. path
    local buf = ed.find(name)
    if not buf then
      buf = ed.create(name)
      dired[buf] = {path = path, entries = {}}
      watch_for(dired[buf])
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
              if dired[b] then dired[b].select = nil end
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

  ed.on("close", function(buf)
    if dired[buf] then unwatch(dired[buf]) end
    dired[buf] = nil
  end)

  -- C-d starts at the project root (pmacs.project); Backspace goes up.
  ed.map("global", "C-d", function() open_dired(ed.root()) end, "directory view of the project root (Enter, Backspace/^ up, r rename, d remove, m chmod, g refresh)")

  ctx.command_help.dired = "[dir]: the directory view, as C-d"
  commands.dired = function(arg) open_dired(arg ~= "" and arg or ed.root()) end
  ctx.open_dired = open_dired
  ctx.current_dir = current_dir
end

return M
