-- init.lua: the demo editor's commands. Everything a user sees beyond
-- moving the cursor and typing is built here or in the embedded modules
-- under lua/pmacs/ it sets up (each says what it owns), on pmacs.workers
-- (jobs) and pmacs.editor (buffers, windows, keymaps, prompts, messages).
-- Start your own --init file from a copy of this one: the modules are
-- require-able from any init file.

local ed = pmacs.editor
local w = pmacs.workers
local run = pmacs.async.run

-- The modules under lua/pmacs/ share the editor's state through ctx, which
-- names what each may use; none reaches another through globals.
local paths = require("pmacs.path") -- an embedded module: lua/pmacs/path.lua
local ctx = {ed = ed, w = w, run = run, paths = paths}

require("pmacs.commands").setup(ctx)
local commands = ctx.commands

local dirname, join = paths.dirname, paths.join

require("pmacs.syntax").setup(ctx)

require("pmacs.files").setup(ctx)
local open_file, open_path = ctx.open_file, ctx.open_path

ed.map("global", "C-z", function(buf)
  if not ed.undo(buf) then ed.message("nothing to undo") end
end)
ed.map("global", "C-y", function(buf)
  if not ed.redo(buf) then ed.message("nothing to redo") end
end)
ed.map("global", "C-q", function() ed.quit(false) end)
ed.map("global", "C-e", function() ed.show(ed.find("*messages*")) end)

require("pmacs.selection").setup(ctx)

require("pmacs.views").setup(ctx)

------------------------------------------------------------------ go to line

ed.map("global", "M-g", function(buf)
  local n = ed.line_count(buf)
  ed.prompt(("go to line (1 to %d, or LINE:COL): "):format(n), {on_submit = function(text)
    local line, col = text:match("^%s*(%d+)%s*$"), nil
    if not line then line, col = text:match("^%s*(%d+):(%d+)%s*$") end
    if not line then
      ed.error(("go to line: %q is not a line number (1 to %d, or LINE:COL)"):format(text, n))
      return
    end
    line = tonumber(line)
    if line < 1 or line > n then
      ed.error(("go to line: %d is out of range (1 to %d)"):format(line, n))
      return
    end
    ed.clear_mark(buf)
    ed.set_cursor(buf, line - 1, col and math.max(tonumber(col) - 1, 0) or 0)
  end})
end)

require("pmacs.dired").setup(ctx)

require("pmacs.compile").setup(ctx)
require("pmacs.grep").setup(ctx)
require("pmacs.search").setup(ctx)
require("pmacs.workers_view").setup(ctx)

require("pmacs.lsp").setup(ctx)

require("pmacs.wsedit").setup(ctx)

require("pmacs.refactor").setup(ctx)

require("pmacs.completion").setup(ctx)

require("pmacs.mcp").setup(ctx)

------------------------------------------------------------------ workspace trust
local ask_trust = require("pmacs.workspace_trust").setup(ctx).ask_trust

------------------------------------------------------------------ start

ed.on("start", function(path)
  local opened = open_path(path)
  -- Asked once the first buffer is shown: a prompt belongs to the buffer
  -- shown when it opens.
  run(function() opened:await() ask_trust() end)
end)

require("pmacs.picker").setup(ctx)
