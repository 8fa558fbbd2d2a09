-- init.lua: the demo editor's commands. Everything a user sees beyond
-- moving the cursor and typing is built here or in the embedded modules
-- under lua/pmacs/ it sets up (each says what it owns), on pmacs.workers
-- (jobs) and pmacs.editor (buffers, windows, keymaps, prompts, messages).
-- Start your own --init file from a copy of this one: the modules are
-- require-able from any init file.

local ed = pmacs.editor

-- The modules under lua/pmacs/ share the editor's state through ctx, which
-- names what each may use; none reaches another through globals. A module
-- adds what others need to ctx when it is set up (each header says what),
-- so the order below is the order of their dependencies: a module reads
-- from ctx only what the ones above it put there. Two that need each other
-- (files opens a directory in dired, dired opens its entries with files)
-- break the cycle with a lookup on ctx when it runs (ctx.open_dired), and
-- a module that must act on another's events adds a hook to a list the
-- other calls (ctx.before_save, ctx.lsp.after_change, ctx.lsp.on_start).
local ctx = {ed = ed, w = pmacs.workers, run = pmacs.async.run, paths = require("pmacs.path")}

require("pmacs.commands").setup(ctx)   -- ctx.commands (M-x), ctx.command_help, ctx.no_arg
require("pmacs.project").setup(ctx)    -- ctx.project (markers, root); before the start hook below
require("pmacs.syntax").setup(ctx)     -- ctx.reparse
require("pmacs.files").setup(ctx)      -- ctx.open_file, open_path, save, complete_path, before_save
require("pmacs.recover").setup(ctx)    -- crash recovery: the journal question, M-x recover
require("pmacs.disk").setup(ctx)       -- ctx.watch (the project watch): reloads, refused clobbering saves
-- Before the modules that jump: it wraps ctx.open_file to record the jumps.
require("pmacs.jumps").setup(ctx)
require("pmacs.selection").setup(ctx)  -- ctx.can_edit, ctx.set_register
require("pmacs.editing").setup(ctx)    -- ctx.newline
require("pmacs.views").setup(ctx)
require("pmacs.dired").setup(ctx)      -- ctx.open_dired, current_dir
require("pmacs.compile").setup(ctx)
require("pmacs.grep").setup(ctx)
require("pmacs.search").setup(ctx)
require("pmacs.workers_view").setup(ctx)
require("pmacs.lsp").setup(ctx)        -- ctx.lsp
require("pmacs.wsedit").setup(ctx)     -- ctx.apply_workspace_edit
require("pmacs.pulldiag").setup(ctx)   -- diagnostics of servers that are asked for them
require("pmacs.refactor").setup(ctx)
require("pmacs.replace").setup(ctx)    -- ctx.project_replace; after grep and wsedit
require("pmacs.completion").setup(ctx)
require("pmacs.signature").setup(ctx)  -- signature help while typing arguments
require("pmacs.symbols").setup(ctx)    -- outline, symbols, workspace symbols
require("pmacs.calls").setup(ctx)      -- the call hierarchy
require("pmacs.doc_highlight").setup(ctx)
require("pmacs.watched_files").setup(ctx)
require("pmacs.semantic").setup(ctx)   -- ctx.semantic: colours from semantic tokens
require("pmacs.inlay").setup(ctx)      -- ctx.inlay: inlay hints as virtual text
require("pmacs.mcp").setup(ctx)
require("pmacs.git").setup(ctx)        -- ctx.git: the gutter against the index, hunks, blame, branch
local ask_trust = require("pmacs.workspace_trust").setup(ctx).ask_trust
-- After search: its M-p (previous match) gives way to the picker's.
require("pmacs.picker").setup(ctx)

------------------------------------------------------------------ keys of no module

ed.map("global", "C-z", function(buf)
  if not ed.undo(buf) then ed.message("nothing to undo") end
end, "undo")
ed.map("global", "C-y", function(buf)
  if not ed.redo(buf) then ed.message("nothing to redo") end
end, "redo")
ed.map("global", "C-q", function() ed.quit(false) end, "quit (again within 3 s with unsaved changes)")
ed.map("global", "C-e", function() ed.show(ed.find("*messages*")) end, "*messages*")

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
end, "go to line (LINE or LINE:COL)")

------------------------------------------------------------------ your configuration

-- $XDG_CONFIG_HOME/pmacs/init.lua (~/.config/pmacs/init.lua) runs last,
-- with ctx as its argument (local ctx = ...), so it can rebind keys, add
-- commands and language servers, and change the project markers before
-- the first path opens; its own modules in lua/ beside it are
-- require-able. --clean skips it. An error in it is shown with its line,
-- and the editor starts without the rest of it.
do
  local user, path, err = ed.user_config()
  if err then
    ed.error("config: " .. err)
  elseif user then
    local ok, rerr = pcall(user, ctx)
    if not ok then
      print("config: " .. path .. " stopped: " .. tostring(rerr))
      ed.error("config: " .. tostring(rerr))
    end
  end
end

------------------------------------------------------------------ start

ed.on("start", function(path)
  local opened = ctx.open_path(path)
  -- Asked once the first buffer is shown: a prompt belongs to the buffer
  -- shown when it opens.
  ctx.run(function() opened:await() ask_trust() end)
end)
