-- pmacs.files: opening and saving files. C-o opens a file or a directory
-- (Tab completes the path), C-s saves, M-s saves as (asking before it
-- overwrites), M-S saves all, M-w closes a buffer and M-R reloads it
-- (asking first when it has unsaved changes), M-x open. It sets ctx.open_file, ctx.open_path, ctx.save
-- and ctx.complete_path, and makes ctx.before_save: functions save runs
-- (and waits for, in a task) before it writes, and ctx.await_loaded: a
-- task waits there for a buffer's read to land. A directory is shown by
-- ctx.open_dired, which pmacs.dired sets: the two open each other, so it
-- is looked up when a directory is opened.
local M = {}

function M.setup(ctx)
  local ed, w, run, commands = ctx.ed, ctx.w, ctx.run, ctx.commands
  local dirname, join = ctx.paths.dirname, ctx.paths.join
  local reparse = ctx.reparse

  ctx.before_save = {}

  -- Tasks waiting for a buffer's read park on a future each, which the
  -- "loaded" and "close" events complete: nothing asks every frame.
  local load_waits = {} -- buf -> {future, ...}
  local function wake_loads(buf, outcome)
    local fs = load_waits[buf]
    if not fs then return end
    load_waits[buf] = nil
    for _, f in ipairs(fs) do
      if not f:done() then f:set(outcome) end
    end
  end
  ed.on("loaded", function(buf) wake_loads(buf, "loaded") end)
  ed.on("close", function(buf) wake_loads(buf, "closed") end)

  -- await_loaded waits, in a task, until buf's read has landed: true, or
  -- nil and "closed" (closed first, or no such buffer) or "timeout" (not
  -- read within timeout_ms). A read that failed lands too: the buffer is
  -- then read-only (ed.readonly).
  local function await_loaded(buf, timeout_ms)
    if not ed.valid(buf) then return nil, "closed" end
    if not ed.loading(buf) then return true end
    local f = pmacs.async.future()
    local fs = load_waits[buf] or {}
    load_waits[buf] = fs
    fs[#fs + 1] = f
    local outcome, err = f:await{timeout_ms = timeout_ms}
    if not outcome then
      -- Timed out: the future is no longer wanted.
      for i, g in ipairs(load_waits[buf] or {}) do
        if g == f then table.remove(load_waits[buf], i) break end
      end
      if load_waits[buf] and #load_waits[buf] == 0 then load_waits[buf] = nil end
      return nil, err
    end
    if outcome == "closed" then return nil, "closed" end
    return true
  end
  ctx.await_loaded = await_loaded

  -- Where the cursor was in each file when its buffer closed: reopening
  -- it (without a place to go to) puts the cursor back there.
  local last_cursor = {}
  ed.on("close", function(_, path, row, col)
    if path then last_cursor[path] = {row, col} end
  end)

  local function open_file(path, row, col)
    local was_open = ed.find(path)
    local buf, err = ed.open(path)
    if not buf then ed.error(err) return end
    local last = not row and not was_open and last_cursor[ed.path(buf)]
    if last then row, col = last[1], last[2] end
    if row then ed.set_cursor(buf, row, col or 0) end
    ed.show(buf)
    return buf
  end

  -- open_path opens a directory in a directory view and anything else as a
  -- file (a missing file becomes a new buffer the first save creates; the
  -- editor says "new file"). A trailing slash means a directory: a missing
  -- one is an error, never a new file named after it. It returns the task
  -- that opens it.
  local function open_path(path)
    if path:sub(1, 1) ~= "/" then path = join(ed.root(), path) end
    local want_dir = path:sub(-1) == "/"
    path = path:gsub("/+$", "")
    if path == "" then path = "/" end
    local h = w.fs.stat(path)
    return run(function()
      local st, err, code = h:await()
      if st and (st.kind == "dir" or st.kind == "symlink") then
        if st.kind == "dir" then ctx.open_dired(path) return end
        local listing = w.fs.read_dir(path):await()
        if listing then ctx.open_dired(path) return end
      end
      if want_dir then
        if st then ed.error("open: " .. path .. " is not a directory")
        elseif code == "ENOENT" then ed.error("open: no directory " .. path)
        else ed.error("open: " .. err) end
        return
      end
      if not st and code ~= "ENOENT" then ed.error("open: " .. err) return end
      open_file(path)
    end)
  end

  -- save writes buf; a file whose directory does not exist (a new file
  -- opened under a new path) is saved only after the user agrees to create
  -- the directory. The ctx.before_save hooks run first, in a task (a file
  -- synced with a language server is formatted), and save waits for them.
  -- opts.force overwrites a file another program changed since it was read
  -- (without it the save is refused and says so).
  local function save(buf, opts)
    local force = opts and opts.force or nil
    local path = ed.path(buf)
    if not path then ed.message(ed.name(buf) .. " has no file to save to") return end
    local dir = dirname(path)
    local h = w.fs.stat(dir)
    run(function()
      local st, _, code = h:await()
      for _, hook in ipairs(ctx.before_save) do hook(buf) end
      if not ed.valid(buf) then return end -- closed meanwhile
      if st or code ~= "ENOENT" then ed.save(buf, {force = force}) return end -- save reports any other failure
      ed.prompt("directory " .. dir .. " does not exist: create it and save? (y/n) ", {on_change = function(text)
        ed.close_prompt()
        if text == "y" or text == "Y" then ed.save(buf, {make_dirs = true, force = force}) else ed.message("not saved") end
      end})
    end)
  end
  ed.map("global", "C-s", function(buf) save(buf) end, "save")

  -- complete_path is the open prompt's Tab: it lists the directory of the
  -- typed path (a job: the prompt stays live meanwhile), extends the text to
  -- the longest common prefix of the names that match, and shows the
  -- candidates after the text when more than one is left.
  local function complete_path(text)
    local full = text:sub(1, 1) == "/" and text or join(ed.root(), text)
    local dir, prefix = full:match("^(.*/)([^/]*)$")
    if not dir then return end
    local h = w.fs.read_dir(dir == "/" and dir or dir:sub(1, -2))
    run(function()
      local res, err = h:await()
      if ed.prompt_text() ~= text then return end -- typed on meanwhile
      if not res then ed.set_prompt_hint("  [" .. err .. "]") return end
      local names = {}
      for _, e in ipairs(res.entries) do
        if e.name:sub(1, #prefix) == prefix then
          names[#names + 1] = e.kind == "dir" and e.name .. "/" or e.name
        end
      end
      if #names == 0 then ed.set_prompt_hint("  [no match]") return end
      table.sort(names)
      local common = names[1]
      for i = 2, #names do
        local n, j = names[i], 0
        while j < #common and common:byte(j + 1) == n:byte(j + 1) do j = j + 1 end
        common = common:sub(1, j)
      end
      ed.set_prompt_text(text:sub(1, #text - #prefix) .. common)
      if #names > 1 then
        local shown = table.concat(names, " ", 1, math.min(#names, 30))
        ed.set_prompt_hint("  [" .. shown .. (#names > 30 and " ..." or "") .. "]")
      end
    end)
  end

  -- C-o: relative paths are relative to the project root (where the editor
  -- started), whatever buffer is shown; the prompt starts with the root's
  -- full path, and shows the full path a relative one stands for.
  ed.map("global", "C-o", function()
    ed.prompt("open: ", {
      text = join(ed.root(), ""),
      keys = {Tab = complete_path},
      on_change = function(text)
        if text ~= "" and text:sub(1, 1) ~= "/" then ed.set_prompt_hint("  = " .. join(ed.root(), text)) end
      end,
      on_submit = function(text)
        if text ~= "" then open_path(text) end
      end,
    })
  end, "open a file or directory (Tab completes)")

  -- M-s: save as. A relative path is relative to the project root, like
  -- C-o's; an existing file is overwritten only after a y.
  ed.map("global", "M-s", function(buf)
    if not ed.path(buf) then ed.message(ed.name(buf) .. " is a view, not a file") return end
    ed.prompt("save as: ", {text = ed.path(buf), keys = {Tab = complete_path}, on_submit = function(text)
      if text == "" then return end
      local path = text:sub(1, 1) == "/" and text or join(ed.root(), text)
      if path == ed.path(buf) then save(buf) return end
      local function write()
        local ok, err = ed.set_path(buf, path)
        if not ok then ed.error("save as: " .. err) return end
        reparse(buf)
        save(buf)
      end
      local h = w.fs.stat(path)
      run(function()
        local st, err, code = h:await()
        if not st and code ~= "ENOENT" then ed.error("save as: " .. err) return end
        if not st then write() return end
        if st.kind == "dir" then ed.error("save as: " .. path .. " is a directory") return end
        ed.prompt(path .. " exists: overwrite it? (y/n) ", {on_change = function(answer)
          ed.close_prompt()
          if answer == "y" or answer == "Y" then write() else ed.message("not saved") end
        end})
      end)
    end})
  end, "save as (asks before overwriting)")
  ctx.command_help.open = "PATH: open a file or directory, as C-o"
  commands.open = function(arg)
    if arg == "" then ed.error("open: needs a path") return end
    open_path(arg)
  end
  -- confirm runs fn at once for a buffer without unsaved changes, else
  -- after a y to the question.
  local function confirm(buf, question, fn)
    if not ed.modified(buf) then fn() return end
    ed.prompt(ed.name(buf) .. " is modified: " .. question .. " (y/n) ", {on_change = function(answer)
      ed.close_prompt()
      if answer == "y" or answer == "Y" then fn() else ed.message("nothing done") end
    end})
  end

  -- M-w closes the shown buffer; the window goes back to the one before.
  -- Its journal of unsaved edits (pmacs.recover) goes too, unless the
  -- answer is k.
  local function close_buffer(buf)
    local function close(opts)
      local ok, err = ed.close(buf, opts)
      if not ok then ed.error(err) end
    end
    if not ed.modified(buf) then close() return end
    ed.prompt(ed.name(buf) .. " is modified: close it anyway? (y/n) k: keep its edits for M-x recover ", {on_change = function(answer)
      ed.close_prompt()
      if answer == "y" or answer == "Y" then close()
      elseif answer == "k" or answer == "K" then close({keep_journal = true})
      else ed.message("nothing done") end
    end})
  end
  ed.map("global", "M-w", close_buffer, "close the buffer (asks first if it has unsaved changes)")

  -- M-R reads the file again, replacing the text (and its undo history).
  local function reload(buf)
    if not ed.path(buf) then ed.message(ed.name(buf) .. " is a view, not a file") return end
    confirm(buf, "reload it from the disk anyway?", function() ed.reload(buf) end)
  end
  ed.map("global", "M-R", reload, "reload the file from the disk (asks first if it has unsaved changes)")

  -- M-S saves every file buffer with unsaved changes.
  local function save_all()
    local n = 0
    for _, b in ipairs(ed.buffers()) do
      if b.path and b.modified and not ed.loading(b.id) then
        save(b.id)
        n = n + 1
      end
    end
    if n == 0 then ed.message("no unsaved changes") end
  end
  ed.map("global", "M-S", save_all, "save every file with unsaved changes")

  ctx.command_help["save-all"] = "save every file with unsaved changes, as M-S"
  commands["save-all"] = ctx.no_arg("save-all", save_all)
  ctx.command_help.close = "close the buffer, as M-w"
  commands.close = ctx.no_arg("close", function() close_buffer(ed.current()) end)
  ctx.command_help.reload = "reload the file from the disk, as M-R"
  commands.reload = ctx.no_arg("reload", function() reload(ed.current()) end)
  ctx.open_file, ctx.open_path, ctx.save, ctx.complete_path = open_file, open_path, save, complete_path
end

return M
