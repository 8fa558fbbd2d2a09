-- pmacs.disk: the editor follows the disk. One watch of the project root
-- (w.watch: the walk's ignore rules, storms coalesced) runs from the start,
-- handing its changes a frame-sized batch at a time to whoever subscribed
-- (ctx.watch.subscribe). This module subscribes for the open buffers: a
-- file another program changed is read again off the main loop when its
-- buffer has no unsaved changes (cursor and scroll kept), and when it has
-- some, the status says so and a prompt offers r reload, k keep, d diff
-- (the buffer against the disk, `diff -u` run as a program). A buffer is
-- also checked whenever it is shown (a file outside the root, or one the
-- watch's ignore rules leave out, is seen there). Saving
-- never overwrites another program's change (ed.save refuses, saying so);
-- M-x save-force does. It sets ctx.watch; set up after pmacs.files (it
-- saves through ctx.save).
local M = {}

-- diff_lines bounds the diff view.
local diff_lines = 20000

function M.setup(ctx)
  local ed, w, run, commands = ctx.ed, ctx.w, ctx.run, ctx.commands

  ------------------------------------------------------------ the project watch

  local subs = {}
  local watched -- {root =, h =} while the watch runs
  local function under(root, path)
    return path == root or path:sub(1, #root + 1) == root .. "/"
  end
  -- ctx.watch.subscribe(fn) calls fn(batch) with every batch of changes
  -- under the project root ({path, op, dir}, or {op = "notice", path =
  -- root, notice =} when changes were dropped or directories are polled: a
  -- subscriber then looks again at everything it keeps), and returns a
  -- function that unsubscribes. ctx.watch.root() is the watched root, nil
  -- when no watch runs (the root is / or the home directory, or the watch
  -- failed); ctx.watch.covers(path) says whether changes to path are seen.
  ctx.watch = {
    subscribe = function(fn)
      subs[#subs + 1] = fn
      return function()
        for i, f in ipairs(subs) do
          if f == fn then table.remove(subs, i) return end
        end
      end
    end,
    root = function() return watched and watched.root end,
    covers = function(path) return watched ~= nil and path ~= nil and under(watched.root, path) end,
    -- How many changes a batch hands over: a checkout's storm arrives in
    -- frame-sized pieces, never as one long step of the main loop. A
    -- user's init file may change it (it runs before the watch starts).
    batch_size = 256,
  }

  local function start_watch()
    local root = ed.root()
    if not root or root == "/" or root == os.getenv("HOME") then return end
    local h = w.watch{root = root, max_batch = ctx.watch.batch_size, key = "disk:watch"}
    local me = {root = root, h = h}
    watched = me
    run(function()
      for batch in h:batches() do
        for _, fn in ipairs(subs) do
          local ok, err = pcall(fn, batch)
          if not ok then ed.error("watch subscriber: " .. tostring(err)) end
        end
      end
      if watched == me then watched = nil end
      local _, err = h:await()
      if err ~= "cancelled" then ed.error("watching " .. root .. ": " .. tostring(err)) end
    end)
  end

  ------------------------------------------------------------ buffers

  local inflight = {} -- buf -> true: a check or a reload of it runs
  local again = {}    -- buf -> true: another change came meanwhile
  local conflicts = {} -- buf -> true: changed on disk and here

  -- show_diff shows buf's text against its file as `diff -u` sees it, in
  -- *diff NAME*: the program reads the text on its stdin and its output is
  -- split into lines off the main loop, diff_lines at most.
  local function show_diff(buf)
    local path = ed.path(buf)
    if not path then ed.message(ed.name(buf) .. " is a view, not a file") return end
    local h = w.spawn{cmd = {"diff", "-u", "--label", path .. " (disk)", "--label", ed.name(buf) .. " (buffer)", path, "-"},
      stdin = ed.get_text(buf), timeout_ms = 30000, key = "disk:diff:" .. buf}
    local name = "*diff " .. ed.name(buf) .. "*"
    run(function()
      local lines, cut = {}, false
      for batch in h:batches() do
        for _, l in ipairs(batch) do
          if #lines >= diff_lines then cut = true break end
          lines[#lines + 1] = l.text
        end
        if cut then h:cancel() break end
      end
      local r, err = h:await()
      if not cut and not r then ed.error("diff " .. path .. ": " .. tostring(err)) return end
      if not cut and r.code == 0 then ed.message(ed.name(buf) .. " is the same as its file on disk") return end
      if not cut and r.code ~= 1 then
        ed.error("diff " .. path .. ": " .. (lines[#lines] or ("exit " .. r.code)))
        return
      end
      if cut then lines[#lines + 1] = ("... (cut at %d lines)"):format(diff_lines) end
      local d = ed.find(name) or ed.create(name)
      ed.set_lines(d, 0, -1, lines)
      local hl = {}
      for i, l in ipairs(lines) do
        local c = l:sub(1, 1)
        if c == "@" then hl[#hl + 1] = {i - 1, 0, i - 1, #l, "header"}
        elseif c == "-" and i > 2 then hl[#hl + 1] = {i - 1, 0, i - 1, #l, "error"} end
      end
      ed.set_highlights(d, hl)
      ed.show(d)
    end)
  end

  local function ask(buf)
    if not conflicts[buf] or ed.current() ~= buf or ed.prompt_text() then return end
    ed.prompt(ed.name(buf) .. " changed on disk: r reload, k keep, d diff ", {on_change = function(text)
      ed.close_prompt()
      conflicts[buf] = nil
      if text == "r" or text == "R" then
        ed.reload(buf)
      elseif text == "d" or text == "D" then
        show_diff(buf)
      else
        ed.message("kept " .. ed.name(buf) .. "; saving it asks first (M-x save-force overwrites the disk)")
      end
    end})
  end

  -- check compares buf's file with what the buffer last read or wrote,
  -- and reloads or asks; a change that comes while it runs is looked at
  -- once it is over.
  local function check(buf)
    if not ed.valid(buf) or not ed.path(buf) then return end
    if inflight[buf] then again[buf] = true return end
    inflight[buf] = true
    local function over()
      inflight[buf] = nil
      if again[buf] then
        again[buf] = nil
        check(buf)
      end
    end
    ed.disk_check(buf, function(state)
      if not ed.valid(buf) then inflight[buf], again[buf] = nil, nil return end
      if state == "busy" then
        -- A read or save is landing: look again once it has.
        inflight[buf], again[buf] = nil, true
        return
      end
      if state == "changed" then
        if not ed.modified(buf) then
          ed.reload(buf, over)
          return
        end
        conflicts[buf] = true
        ed.error(ed.name(buf) .. " changed on disk, and it has unsaved changes")
        ask(buf)
      elseif state == "gone" and not conflicts[buf] then
        ed.message(ed.path(buf) .. " was removed on disk; saving writes it again")
      end
      over()
    end)
  end

  local function recheck(buf)
    if again[buf] and not inflight[buf] then
      again[buf] = nil
      check(buf)
    end
  end
  ed.on("save", recheck)
  ed.on("loaded", recheck)
  ed.on("close", function(buf) inflight[buf], again[buf], conflicts[buf] = nil, nil, nil end)

  ctx.watch.subscribe(function(batch)
    local paths, all = {}, false
    for _, c in ipairs(batch) do
      if c.op == "notice" then all = true break end
      paths[c.path] = true
    end
    for _, b in ipairs(ed.buffers()) do
      if b.path and (paths[b.path] or (all and ctx.watch.covers(b.path))) then check(b.id) end
    end
  end)

  -- A buffer is checked whenever it is shown: the watch does not see a
  -- file outside the root, nor one its ignore rules leave out (a hidden or
  -- .gitignore'd file), and a stat costs the main loop nothing.
  ed.on("show", function(buf)
    if ed.path(buf) then check(buf) end
    ask(buf)
  end)

  ------------------------------------------------------------ force

  local function save_force(buf)
    if not ed.path(buf) then ed.message(ed.name(buf) .. " is a view, not a file") return end
    conflicts[buf] = nil
    ctx.save(buf, {force = true})
  end

  ctx.command_help["save-force"] = "save the file even if another program changed it since it was read"
  commands["save-force"] = ctx.no_arg("save-force", function() save_force(ed.current()) end)
  ctx.command_help["diff-disk"] = "show the buffer's unsaved changes against its file on disk (diff -u)"
  commands["diff-disk"] = ctx.no_arg("diff-disk", function() show_diff(ed.current()) end)
  ed.map("global", "M-D", function(buf) show_diff(buf) end, "diff the buffer against its file on disk")

  ed.on("start", start_watch)
end

return M
