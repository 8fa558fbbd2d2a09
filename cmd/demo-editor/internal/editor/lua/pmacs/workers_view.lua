-- pmacs.workers_view: C-w (M-x workers), *workers*: the live job table and
-- under it the live task tree (pmacs.async.tasks: each task's children
-- indented under it, with what it waits on, for how long, and the jobs it
-- owns), redrawn every frame while it is shown; c cancels the job on the
-- cursor row, or the task and its whole tree (its jobs too), r resets the
-- fatal root on the cursor row. It owns *workers* and which job, task or
-- root each of its rows stands for.
local M = {}

function M.setup(ctx)
  local ed, w, commands = ctx.ed, ctx.w, ctx.commands

  local workers = {buf = nil, rows = {}, task_rows = {}, fatal_rows = {}}

  local function task_label(t)
    return t.name and (t.name .. " #" .. t.id) or ("#" .. t.id)
  end

  -- task_lines adds the live tasks to lines, depth first: a child right
  -- under its parent, indented one step deeper. A task whose parent is not
  -- live (detached, or started outside any task) is a root.
  local function task_lines(lines, hl, task_rows)
    local tasks = pmacs.async.tasks()
    local live, children, roots = {}, {}, {}
    for _, t in ipairs(tasks) do live[t.id] = true end
    for _, t in ipairs(tasks) do
      if t.parent and live[t.parent] then
        children[t.parent] = children[t.parent] or {}
        table.insert(children[t.parent], t)
      else
        roots[#roots + 1] = t
      end
    end
    lines[#lines + 1] = ""
    lines[#lines + 1] = string.format("Tasks: %d        (c on a task row cancels it and its tree)", #tasks)
    hl[#hl + 1] = {#lines - 1, 0, #lines - 1, #lines[#lines], "header"}
    local function add(t, depth)
      local line = string.rep("  ", depth + 1) .. task_label(t) .. "  " .. t.state
      if t.waiting then line = line .. string.format(" on %s for %.0fms", t.waiting, t.since_ms or 0) end
      if #t.jobs > 0 then
        local ids = {}
        for i, id in ipairs(t.jobs) do ids[i] = tostring(id) end
        line = line .. "  jobs " .. table.concat(ids, ",")
      end
      if t.cancelled then line = line .. "  (cancelling)" end
      lines[#lines + 1] = line
      task_rows[#lines - 1] = t
      if t.cancelled then hl[#hl + 1] = {#lines - 1, 0, #lines - 1, #line, "warning"} end
      for _, c in ipairs(children[t.id] or {}) do add(c, depth + 1) end
    end
    for _, t in ipairs(roots) do add(t, 0) end
  end

  local function render_workers(buf)
    local s = w.snapshot()
    local rows = {}
    local lines = {string.format("Active jobs: %d        (c: cancel the job, or the task tree, on the cursor row)", #s.active),
                   string.format("  %-6s %-12s %10s  %-20s %s", "id", "kind", "age", "key", "")}
    local hl = {{0, 0, 0, #lines[1], "header"}, {1, 0, 1, #lines[2], "dim"}}
    for _, a in ipairs(s.active) do
      lines[#lines + 1] = string.format("  %-6d %-12s %8.0fms  %-20s %s", a.id, a.kind, a.age_ms,
        a.key or "-", a.cancel_requested and "cancel requested" or (a.stream and "streaming" or "running"))
        .. (a.progress and ("  " .. a.progress) or "")
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
    local task_rows = {}
    task_lines(lines, hl, task_rows)
    workers.task_rows = task_rows
    lines[#lines + 1] = ""
    lines[#lines + 1] = string.format("Recent completions: %d", #s.completed)
    hl[#hl + 1] = {#lines - 1, 0, #lines - 1, #lines[#lines], "header"}
    for _, c in ipairs(s.completed) do
      local line = string.format("  %-6d %-12s %8.1fms  %-20s %s", c.id, c.kind, c.duration_ms,
        c.key or "-", c.outcome)
      if c.error then line = line .. ": " .. c.error end
      if c.result then line = line .. ": " .. c.result end
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
        local row = ed.cursor(buf)
        local t = workers.task_rows[row]
        if t then
          if pmacs.async.cancel(t.id, "cancelled from *workers*") then
            ed.message("cancelled task " .. task_label(t) .. " and its tree")
          else
            ed.message("task " .. task_label(t) .. " has ended")
          end
          return
        end
        local id = workers.rows[row]
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
  ed.map("global", "C-w", show_workers, "*workers*: jobs in flight and recent (c cancels the job on the row)")
  ctx.command_help.workers = "*workers*, as C-w"
  commands.workers = ctx.no_arg("workers", show_workers)
end

return M
