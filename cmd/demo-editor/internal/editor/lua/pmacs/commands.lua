-- pmacs.commands: M-x and its table of commands, the key list F1 shows
-- and the help line. It owns ctx.commands (every module adds its own
-- commands to it: M-x reads the table when it runs), ctx.all_keys, and
-- the commands that only show what the runtime does (sleep, sum,
-- frame-target: jobs to watch in *workers*). Set it up first: the other
-- modules add to what it makes.
local M = {}

-- The help line fits 80 columns; F1 lists every key.
local help = "F1 keys ^S save ^Z undo ^F grep ^D dir ^W jobs ^O open M-x M-/ complete ^Q quit"

local all_keys = {
  "Keys (Esc or F1 goes back)",
  "",
  "  arrows, Home, End, PgUp, PgDn   move (C-Home, C-End: start and end of the buffer)",
  "  shift + a movement key          select; a movement without shift ends the selection",
  "  mouse                           click: place the cursor; drag: select; wheel: scroll",
  "  C-Space                         set the mark: movement selects from it (again: clear)",
  "  Esc                             clear the selection",
  "  C-c, C-x, C-v                   copy, cut, paste (copy and cut reach the terminal's clipboard)",
  "  C-z, C-y                        undo, redo",
  "  C-s, M-s                        save, save as (asks before overwriting)",
  "  C-o                             open a file or directory (Tab completes)",
  "  M-g                             go to line (LINE or LINE:COL)",
  "  M-f                             search the buffer as you type (Up/Down previous/next, M-r regex, Enter stays, Esc goes back)",
  "  F3, S-F3 (M-n, M-p); M-%        next, previous search match; Esc clears them; replace (y/n/!/q)",
  "  C-f                             live grep as rg searches (Up/Down select, Enter opens, M-r regex, M-% replace all, Esc cancels)",
  "  C-d                             directory view (Enter, Backspace/^ up, r rename, d remove, m chmod, g refresh)",
  "  C-w                             *workers*: jobs in flight and recent (c cancels the job on the row)",
  "  C-b                             *buffers* (Enter switches)",
  "  M-2, M-o, M-1                   split into two windows, switch window, back to one window",
  "  C-e                             *messages*",
  "  M-x                             commands: grep, replace, project-replace, dired, workers, open, rename, code-action, format, format-on-save, sleep, sum, frame-target",
  "  M-:                             evaluate a line of Lua and show what it returns",
  "  M-., M-k, M-?, M-e              language server: definition, hover, references, *diagnostics* (Enter jumps)",
  "  M-/, F2, M-a                    complete the word (Enter/Tab inserts), rename the symbol, code actions (Enter runs one)",
  "  C-g                             interrupt a runaway script; cancel a prompt",
  "  C-q                             quit (twice within 3 s with unsaved changes)",
  "  F1                              this list",
}

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
  ctx.all_keys = all_keys
  ed.map("global", "F1", function(buf)
    local keys = ed.find("*keys*")
    if keys and buf == keys then
      local prev = ed.previous()
      if prev then ed.show(prev) end
      return
    end
    keys = keys or ed.create("*keys*", {list = false})
    ed.set_lines(keys, 0, -1, all_keys)
    ed.set_highlights(keys, {{0, 0, 0, #all_keys[1], "header"}})
    ed.map(keys, "Esc", function()
      local prev = ed.previous()
      if prev then ed.show(prev) end
    end)
    ed.show(keys)
  end)

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
  end)
end

return M
