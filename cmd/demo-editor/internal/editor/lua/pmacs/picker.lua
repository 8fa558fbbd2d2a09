-- pmacs.picker: C-p and M-p, one picker for files, buffers and commands.
-- Every keystroke ranks on a worker under one supersede key: files with
-- w.find_files (the project's file list is cached by the runtime, so only
-- the first C-p walks it, and snapshots show while it does), buffers with
-- w.fuzzy on their names, commands with w.fuzzy on a source sent once per
-- picker, the files git status names (pmacs.git) with w.fuzzy on their
-- paths. A query starting with "@" lists buffers, with ">" commands, with
-- "!" the changed files; M-p opens on buffers. Matched characters are highlighted; Up/Down select,
-- Enter opens or runs. It owns *picker* and the task ranking the newest
-- query (named "picker"), which owns the ranking job: a newer query or
-- closing the picker cancels the task, and the job ends with it.
local M = {}

function M.setup(ctx)
  local ed, w, run, commands, open_path = ctx.ed, ctx.w, ctx.run, ctx.commands, ctx.open_path
  local join = ctx.paths.join

  local picker = {buf = nil, task = nil, rows = {}, source = nil, names = nil}

  local function picker_mode(text)
    local c = text:sub(1, 1)
    if c == "@" then return "buffers", text:sub(2) end
    if c == ">" then return "commands", text:sub(2) end
    if c == "!" then return "changed", text:sub(2) end
    return "files", text
  end

  -- picker_show replaces the rows with a ranking; each row remembers what
  -- Enter does with it.
  local function picker_show(mode, query, ranking, state)
    local lines, spans, rows = {}, {}, {}
    local head = string.format("%s %q: %d of %d  %s", mode, query, ranking.total or #ranking,
                               ranking.candidates or #ranking, state or "")
    lines[1] = head
    spans[1] = {0, 0, 0, #head, "header"}
    for i, m in ipairs(ranking) do
      local text = m.path or m.text
      lines[i + 1] = text
      rows[i] = {mode = mode, text = text}
      for _, p in ipairs(m.positions) do
        spans[#spans + 1] = {i, p - 1, i, p, "match"}
      end
    end
    ed.set_lines(picker.buf, 0, -1, lines)
    ed.set_highlights(picker.buf, spans)
    picker.rows = rows
    if #rows > 0 and select(1, ed.cursor(picker.buf)) == 0 then ed.set_cursor(picker.buf, 1, 0) end
  end

  local function picker_stop(why)
    if picker.task then picker.task:cancel(why) end
    picker.task = nil
  end

  local function picker_update(text)
    picker_stop("superseded")
    local mode, query = picker_mode(text)
    ed.set_cursor(picker.buf, 0, 0)
    local root, source, buf = picker.root, picker.source, picker.buf
    picker.task = run{name = "picker", function()
      local h
      if mode == "files" then
        h = w.find_files{root = root, query = query, limit = 100, key = "picker"}
        for snap in h:batches() do
          if not ed.valid(buf) then return end
          picker_show(mode, query, snap, "listing...")
        end
      elseif mode == "changed" then
        local top, list = nil, "no git module"
        if ctx.git then top, list = ctx.git.changed(root) end
        if not ed.valid(buf) then return end
        if not top then picker_show(mode, query, {}, list) return end
        picker.top = top
        local paths = {}
        for i, c in ipairs(list) do paths[i] = c.path end
        h = w.fuzzy{items = paths, query = query, limit = 100, key = "picker"}
      elseif mode == "buffers" then
        local names = {}
        for i, b in ipairs(ed.buffers()) do names[i] = b.name end
        h = w.fuzzy{items = names, query = query, limit = 100, key = "picker"}
      else
        h = w.fuzzy{source = source, query = query, limit = 100, key = "picker"}
      end
      local r, err = h:await()
      if not ed.valid(buf) then return end
      if r then picker_show(mode, query, r, "") else ed.error("picker: " .. err) end
    end}
  end

  local function picker_close()
    picker_stop("closed")
    if picker.source then w.fuzzy_free(picker.source) end
    picker.source = nil
  end

  local function picker_open_row(row)
    local r = picker.rows[row] or picker.rows[1]
    if not r then ed.message("nothing to open") return end
    picker_close()
    if r.mode == "files" then
      open_path(join(picker.root, r.text))
    elseif r.mode == "changed" then
      open_path(join(picker.top, r.text))
    elseif r.mode == "buffers" then
      local id = ed.find(r.text)
      if id then ed.show(id) end
    else
      commands[r.text]("")
    end
  end

  local function open_picker(initial)
    if not picker.buf or not ed.find("*picker*") then
      picker.buf = ed.create("*picker*", {list = false})
      ed.map(picker.buf, "Enter", function(buf) picker_open_row(ed.cursor(buf)) end)
    end
    picker.root = ed.root()
    picker.names = {}
    for name in pairs(commands) do picker.names[#picker.names + 1] = name end
    table.sort(picker.names)
    picker_stop("reopened") -- its job may rank the source freed here
    if picker.source then w.fuzzy_free(picker.source) end
    picker.source = w.fuzzy_source(picker.names)
    ed.show(picker.buf)
    ed.prompt("find (@ buffers, > commands, ! changed): ", {
      text = initial,
      on_change = picker_update,
      on_submit = function() picker_open_row(ed.cursor(picker.buf)) end,
      on_cancel = function(why)
        picker_close()
        if why ~= "key" then return end
        local prev = ed.previous()
        if prev then ed.show(prev) end
      end,
    })
    picker_update(initial)
  end
  ed.map("global", "C-p", function() open_picker("") end, "picker: the project's files (@ buffers, > commands, ! changed files; Enter opens)")
  ed.map("global", "M-p", function() open_picker("@") end, "picker on the buffers")
end

return M
