-- pmacs.workers_view: C-w (M-x workers), *workers*: the live job table,
-- redrawn every frame while it is shown; c cancels the job on the cursor
-- row, r resets the fatal root on the cursor row. It owns *workers* and
-- which job or root each of its rows stands for.
local M = {}

function M.setup(ctx)
  local ed, w, commands = ctx.ed, ctx.w, ctx.commands

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
  ed.map("global", "C-w", show_workers, "*workers*: jobs in flight and recent (c cancels the job on the row)")
  ctx.command_help.workers = "*workers*, as C-w"
  commands.workers = ctx.no_arg("workers", show_workers)
end

return M
