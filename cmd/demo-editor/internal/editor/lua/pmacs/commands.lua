-- pmacs.commands: M-x and its table of commands, the key list F1 shows
-- and the help line. It owns ctx.commands (every module adds its own
-- commands to it: M-x reads the table when it runs), ctx.command_help
-- (what F1 says of each command, set beside it), and the commands that
-- only show what the runtime does (sleep, sum, frame-target: jobs to watch
-- in *workers*). F1's list is made from the bindings (ed.keys) and their
-- descriptions when it is shown, so it lists what is bound, not what was
-- once written down. Set it up first: the other modules add to what it
-- makes.
local M = {}

-- The help line fits 80 columns; F1 lists every key.
local help = "F1 keys ^S save ^Z undo ^F grep ^D dir ^W jobs ^O open M-x M-/ complete ^Q quit"

-- key_rows lists a scope's bindings, keys with the same description on
-- one row, in the order they were first bound.
local function key_rows(bindings)
  local groups, order = {}, {}
  for _, b in ipairs(bindings) do
    local desc = b.desc ~= "" and b.desc or "(no description)"
    if not groups[desc] then groups[desc] = {} order[#order + 1] = desc end
    table.insert(groups[desc], b.key)
  end
  local rows = {}
  for _, desc in ipairs(order) do
    local keys = table.concat(groups[desc], ", ")
    if #keys <= 32 then
      rows[#rows + 1] = string.format("  %-32s %s", keys, desc)
    else
      rows[#rows + 1] = "  " .. keys
      rows[#rows + 1] = string.format("  %-32s %s", "", desc)
    end
  end
  return rows
end

-- whole_arg reads a command's numeric argument: a whole number in
-- [lo, hi], or nil and a message saying what was expected.
local function whole_arg(cmd, arg, what, lo, hi)
  local range = string.format("%s, %d to %d", what, lo, hi)
  if not arg:match("^[+-]?%d+$") then
    return nil, string.format("%s: %q is not a whole number (%s)", cmd, arg, range)
  end
  local n = tonumber(arg)
  if n < lo or n > hi then
    return nil, string.format("%s: %s is out of range (%s)", cmd, arg, range)
  end
  return n
end

function M.setup(ctx)
  local ed, w, run = ctx.ed, ctx.w, ctx.run

  ed.set_help(help)
  local command_help = {}
  ctx.command_help = command_help

  -- keys_text is the text of *keys*: the global bindings, then what the
  -- core does with the keys none binds, the views' bindings, and the M-x
  -- commands.
  local function keys_text()
    local bound, builtin = {}, {}
    for _, b in ipairs(ed.keys("global")) do
      if b.builtin then builtin[#builtin + 1] = b else bound[#bound + 1] = b end
    end
    local lines = {"Keys (Esc or F1 goes back)", ""}
    local headers = {0}
    local function section(title, rows)
      if #rows == 0 then return end
      lines[#lines + 1] = ""
      headers[#headers + 1] = #lines
      lines[#lines + 1] = title
      for _, r in ipairs(rows) do lines[#lines + 1] = r end
    end
    for _, r in ipairs(key_rows(bound)) do lines[#lines + 1] = r end
    section("Built in (when no binding above takes the key)", key_rows(builtin))
    section("In a view (a list, *keys*, *messages*)", key_rows(ed.keys("view")))
    local names = {}
    for name in pairs(ctx.commands) do names[#names + 1] = name end
    table.sort(names)
    local rows = {}
    for _, name in ipairs(names) do
      rows[#rows + 1] = string.format("  %-32s %s", name, command_help[name] or "")
    end
    section("Commands (M-x NAME [ARGUMENT])", rows)
    return lines, headers
  end

  ed.map("global", "F1", function(buf)
    local keys = ed.find("*keys*")
    if keys and buf == keys then
      local prev = ed.previous()
      if prev then ed.show(prev) end
      return
    end
    keys = keys or ed.create("*keys*", {list = false})
    local lines, headers = keys_text()
    ed.set_lines(keys, 0, -1, lines)
    local spans = {}
    for i, row in ipairs(headers) do spans[i] = {row, 0, row, #lines[row + 1], "header"} end
    ed.set_highlights(keys, spans)
    ed.map(keys, "Esc", function()
      local prev = ed.previous()
      if prev then ed.show(prev) end
    end)
    ed.show(keys)
  end, "this list of keys and commands (Esc or F1 goes back)")

  -- no_arg refuses an argument to a command that takes none.
  function ctx.no_arg(cmd, fn)
    return function(arg)
      if arg ~= "" then ed.error(cmd .. " takes no argument, got " .. string.format("%q", arg)) return end
      fn()
    end
  end

  local commands = {
    sleep = function(arg)
      local ms, err = 5000, nil
      if arg ~= "" then ms, err = whole_arg("sleep", arg, "milliseconds", 0, 86400000) end
      if not ms then ed.error(err) return end
      local h = w.sleep(ms)
      ed.message("sleep job " .. h:id() .. " for " .. ms .. " ms")
      run(function()
        local ok, err = h:await()
        ed.message("sleep job " .. h:id() .. ": " .. (ok and "done" or err))
      end)
    end,
    sum = function(arg)
      -- Above 134217727 the sum passes 2^53 and Lua numbers lose digits.
      local n, err = 100000000, nil
      if arg ~= "" then n, err = whole_arg("sum", arg, "n", 0, 134217727) end
      if not n then ed.error(err) return end
      local h = w.sum(n)
      run(function()
        local v, err = h:await()
        ed.message(v and string.format("sum 1..%d = %.0f", n, v) or ("sum: " .. err))
      end)
    end,
    ["frame-target"] = function(arg)
      if arg ~= "" then
        local ms, err = whole_arg("frame-target", arg, "milliseconds", 1, 1000)
        if not ms then ed.error(err) return end
        w.set_frame_target_ms(ms)
      end
      ed.message("frame target " .. w.frame_target_ms() .. " ms")
    end,
  }
  ctx.commands = commands
  command_help.sleep = "[ms]: a job that sleeps (default 5000), to watch in *workers*"
  command_help.sum = "[n]: a job that sums 1..n (default 100000000)"
  command_help["frame-target"] = "[ms]: show or set the frame target (1 to 1000)"

  ed.map("global", "M-x", function()
    local names = {}
    for name in pairs(commands) do names[#names + 1] = name end
    table.sort(names)
    local known = table.concat(names, ", ")
    ed.prompt("command (" .. known .. "): ", {on_submit = function(text)
      local name, arg = text:match("^%s*(%S+)%s*(.-)%s*$")
      if not name then return end
      local fn = commands[name]
      if not fn then ed.error("no command " .. name .. " (known: " .. known .. ")") return end
      fn(arg)
    end})
  end, "run a command (the commands below)")
end

return M
