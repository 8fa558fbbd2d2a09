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
local can_edit = ctx.can_edit

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
local lsp = ctx.lsp
local relative, lsp_change, lsp_reopen, lsp_request = lsp.relative, lsp.change, lsp.reopen, lsp.request
local lsp_text_edit = lsp.text_edit
local is_word, word_at = require("pmacs.words").is_word, require("pmacs.words").word_at

require("pmacs.wsedit").setup(ctx)
local apply_workspace_edit = ctx.apply_workspace_edit

------------------------------------------------------------------ rename (F2)
-- F2 (or M-x rename) asks for the new name of the symbol under the cursor,
-- sends textDocument/rename and applies the WorkspaceEdit it returns.

local function rename_symbol(buf, new_name)
  local doc = lsp.docs[buf]
  if not doc or not doc.client then ed.message("no language server for this buffer") return end
  local row, col = ed.cursor(buf)
  local line = ed.get_lines(buf, row, row + 1)[1] or ""
  local s, e = word_at(line, col)
  local old = line:sub(s + 1, e)
  if old == "" then ed.message("rename: no symbol under the cursor") return end
  local function send(new)
    if new == "" or new == old then return end
    local h = lsp_request(buf, "textDocument/rename", {newName = new}, "rename")
    if not h then return end
    run(function()
      local res, err = h:await()
      if not res then if err ~= "cancelled" then ed.error("rename: " .. err) end return end
      if res == true then ed.message("rename: the server changed nothing") return end
      local n, files, moved = apply_workspace_edit(res)
      if not n then ed.error("rename: " .. files) return end
      local ops = moved and string.format(", %d files moved or deleted", moved) or ""
      ed.message(string.format("rename %s to %s: %d edits in %d files%s (not saved yet)", old, new, n, files, ops))
    end)
  end
  if new_name then send(new_name) return end
  ed.prompt("rename " .. old .. " to: ", {text = old, on_submit = send})
end
ed.map("global", "F2", function(buf) rename_symbol(buf) end)
commands.rename = function(arg) rename_symbol(ed.current(), arg ~= "" and arg or nil) end

------------------------------------------------------------------ format (on save, M-x format)
-- Saving a file synced with a language server organizes its imports and
-- formats it first (gopls: goimports and gofmt). The imports come from the
-- server's source.organizeImports code action, applied like any workspace
-- edit; textDocument/formatting's edits are applied as one undo step,
-- unless the text changed while the server worked. A server that cannot
-- format, fails, or takes longer than format_wait_ms does not hold the save
-- up: the file is saved as it is, and the message line says why (not for a
-- server without formatting). M-x format formats without saving; M-x
-- format-on-save turns the formatting of saves off and on.

local format_wait_ms = 2000
local format_on_save = true

-- format_buffer formats buf, in a task; it returns the number of edits
-- applied, or nil, why and the error's code.
local function format_buffer(buf)
  local doc = lsp.docs[buf]
  if not doc or not doc.client then return nil, "no language server for this buffer" end
  lsp_change(buf)
  local before = doc.client:version(doc.path)
  local h = doc.client:request("textDocument/formatting", {textDocument = {uri = pmacs.uri.from_path(doc.path)},
    options = {tabSize = 8, insertSpaces = false}}, {key = "format:" .. buf, timeout_ms = format_wait_ms})
  local res, err, code = h:await()
  if not ed.valid(buf) then return nil, "the buffer was closed" end
  if not res then return nil, err, code end
  if res == true or #res == 0 then return 0 end -- null or no edits: formatted already
  lsp_change(buf)
  if doc.client:version(doc.path) ~= before then return nil, "the text changed while the server formatted it" end
  local edits = {}
  for i, te in ipairs(res) do edits[i] = lsp_text_edit(te) end
  return ed.apply_text_edits(buf, edits)
end

-- organize_imports applies the server's source.organizeImports action to
-- buf, in a task; it returns true, or nil, why and the error's code.
local function organize_imports(buf)
  local doc = lsp.docs[buf]
  if not doc or not doc.client then return nil, "no language server for this buffer" end
  local at = {line = 0, character = 0}
  local h = doc.client:request("textDocument/codeAction", {textDocument = {uri = pmacs.uri.from_path(doc.path)},
    range = {start = at, ["end"] = at}, context = {diagnostics = pmacs.array(), only = {"source.organizeImports"}}},
    {key = "imports:" .. buf, timeout_ms = format_wait_ms})
  local res, err, code = h:await()
  if not ed.valid(buf) then return nil, "the buffer was closed" end
  if not res then return nil, err, code end
  for _, a in ipairs(type(res) == "table" and res or {}) do
    if a.kind == "source.organizeImports" and type(a.edit) == "table" then
      local n, why = apply_workspace_edit(a.edit)
      if not n then return nil, why end
    end
  end
  return true
end

ctx.before_save[#ctx.before_save + 1] = function(buf)
  if not format_on_save or not ed.valid(buf) then return end
  local doc = lsp.docs[buf]
  if not doc or not doc.client then return end
  local ok, ierr, icode = organize_imports(buf)
  if not ok and icode ~= "MethodNotFound" then ed.message("organize imports: " .. ierr .. "; saved as it is") end
  if not ed.valid(buf) then return end
  local n, err, code = format_buffer(buf)
  if not n and code ~= "MethodNotFound" then ed.message("format: " .. err .. "; saved as it is") end
end

commands.format = function()
  local buf = ed.current()
  run(function()
    local n, err = format_buffer(buf)
    if not n then ed.error("format: " .. err) return end
    ed.message(n == 0 and "format: nothing to change" or string.format("format: %d edits", n))
  end)
end
commands["format-on-save"] = function()
  format_on_save = not format_on_save
  ed.message("format on save: " .. (format_on_save and "on" or "off"))
end

------------------------------------------------------------------ code actions (M-a)
-- M-a asks the server for the code actions at the cursor (over the
-- selection, when there is one), passing the diagnostics on those rows, and
-- lists them in *code actions*. Enter runs the action on its row: its edit
-- goes through apply_workspace_edit, its command goes to the server as
-- workspace/executeCommand, and the edits the server then sends come back
-- through on_apply_edit (so gopls's "Fill S" and its kin apply by the same
-- path). An action the server marks disabled is listed with its reason and
-- does nothing.

local function run_code_action(buf, client, action)
  run(function()
    if type(action.disabled) == "table" then
      ed.message("code action disabled: " .. tostring(action.disabled.reason))
      return
    end
    local title = tostring(action.title)
    if type(action.edit) == "table" then
      local n, files = apply_workspace_edit(action.edit)
      if not n then ed.error(title .. ": " .. files) return end
      ed.message(string.format("%s: %d edits in %d files (not saved yet)", title, n, files))
    end
    -- A CodeAction's command, or the action itself when it is a Command.
    local cmd = action.command
    if type(cmd) == "string" then cmd = action end
    if type(cmd) == "table" then
      local h = client:request("workspace/executeCommand", {command = cmd.command, arguments = cmd.arguments},
        {key = "code-action-run", timeout_ms = 30000})
      local _, err = h:await()
      if err and err ~= "cancelled" then ed.error(title .. ": " .. err) return end
    end
    if ed.valid(buf) then ed.show(buf) end
  end)
end

local function code_actions(buf)
  local doc = lsp.docs[buf]
  if not doc or not doc.client then ed.message("no language server for this buffer") return end
  local sr, sc, er, ec = ed.selection(buf)
  if not sr then
    sr, sc = ed.cursor(buf)
    er, ec = sr, sc
  end
  local function at(row, col)
    return {line = row, character = pmacs.utf16.units(ed.get_lines(buf, row, row + 1)[1] or "", col)}
  end
  -- The server matches the diagnostics it is sent against its own: send
  -- them as it published them.
  local diags = {}
  for _, d in ipairs(doc.client:diagnostics(doc.path)) do
    if d.line <= er and d.end_line >= sr then
      diags[#diags + 1] = {range = {start = {line = d.line, character = d.col}, ["end"] = {line = d.end_line, character = d.end_col}},
        severity = d.severity, message = d.message, source = d.source, code = d.code}
    end
  end
  local h = doc.client:request("textDocument/codeAction", {textDocument = {uri = pmacs.uri.from_path(doc.path)},
    range = {start = at(sr, sc), ["end"] = at(er, ec)}, context = {diagnostics = pmacs.array(diags)}},
    {key = "code-action", timeout_ms = 30000})
  local client, where = doc.client, string.format("%s:%d", relative(doc.path), sr + 1)
  run(function()
    local res, err = h:await()
    if not res then if err ~= "cancelled" then ed.error("code actions: " .. err) end return end
    if type(res) ~= "table" or #res == 0 then ed.message("no code actions at " .. where) return end
    local rows = {string.format("code actions at %s (Enter runs one, Esc goes back)", where)}
    for _, a in ipairs(res) do
      local row = tostring(a.title)
      if a.kind then row = row .. "  [" .. a.kind .. "]" end
      if type(a.disabled) == "table" then row = row .. "  (disabled: " .. tostring(a.disabled.reason) .. ")" end
      rows[#rows + 1] = row
    end
    local lb = ed.create("*code actions*")
    ed.set_lines(lb, 0, -1, rows)
    ed.set_cursor(lb, 1, 0)
    ed.map(lb, "Enter", function(b)
      local a = res[ed.cursor(b)]
      if not a then return end
      if not ed.valid(buf) then ed.message("code actions: the buffer was closed") return end
      ed.show(buf)
      run_code_action(buf, client, a)
    end)
    ed.map(lb, "Esc", function() if ed.valid(buf) then ed.show(buf) end end)
    ed.show(lb)
  end)
end
ed.map("global", "M-a", code_actions)
commands["code-action"] = function() code_actions(ed.current()) end

------------------------------------------------------------------ completion (M-/)
-- M-/ asks the server for completions at the cursor and shows them in a
-- popup under the word. Typing goes on into the buffer: each keystroke that
-- keeps the cursor in the word sends a new request under the supersede key
-- "completion", which cancels the last one ($/cancelRequest), and only the
-- newest request's items are ever shown. Up/Down select, Enter or Tab
-- inserts (the item's textEdit, else its insertText or label, replacing
-- the typed prefix), Esc closes; moving out of the word closes too.

local comp = nil -- {buf, row, start (byte column of the word), handle, items, sel, top}
local comp_rows = 10
local comp_keys = {"Up", "Down", "Enter", "Tab", "Esc", "Left", "Right", "Home", "End"}

local function comp_close()
  local c = comp
  if not c then return end
  comp = nil
  if c.handle then c.handle:cancel() end
  for _, k in ipairs(comp_keys) do ed.unmap(c.buf, k) end
  ed.popup(c.buf, nil)
end

local function comp_line(it)
  local s = it.label or "?"
  if type(it.detail) == "string" and it.detail ~= "" then s = s .. "  " .. it.detail:match("^[^\n]*") end
  if #s > 60 then s = s:sub(1, 57) .. "..." end
  return s
end

local function comp_render()
  local c = comp
  local n = #c.items
  if n == 0 then ed.popup(c.buf, nil) ed.message("no completions") return end
  c.sel = math.max(1, math.min(c.sel, n))
  if c.sel < c.top then c.top = c.sel end
  if c.sel >= c.top + comp_rows then c.top = c.sel - comp_rows + 1 end
  local lines = {}
  for i = c.top, math.min(n, c.top + comp_rows - 1) do lines[#lines + 1] = comp_line(c.items[i]) end
  ed.popup(c.buf, lines, {row = c.row, col = c.start, selected = c.sel - c.top + 1})
  ed.message(string.format("completion %d/%d (Enter or Tab inserts, Esc closes)", c.sel, n))
end

local comp_word -- below

local function comp_request()
  local c = comp
  local h = lsp_request(c.buf, "textDocument/completion", {context = {triggerKind = 1}}, "completion")
  if not h then comp_close() return end
  c.handle = h
  local _, _, asked_col = comp_word(c)
  run(function()
    local items = {}
    for batch in h:batches() do
      if comp ~= c or c.handle ~= h or not ed.valid(c.buf) then return end -- superseded: never shown
      for _, it in ipairs(batch) do
        if type(it) == "table" and it.label then items[#items + 1] = it end
      end
    end
    if comp ~= c or c.handle ~= h or not ed.valid(c.buf) then return end
    local ok, err = h:await()
    if not ok then
      if err ~= "cancelled" then ed.error("completion: " .. err) comp_close() end
      return
    end
    -- Keys typed since the request was sent (handled in this same turn of
    -- the loop, before their "change" asks again) make it old already.
    local _, _, col = comp_word(c)
    if col ~= asked_col then return end
    -- In sortText order (ties in the server's); a big list keeps the
    -- server's order, which is the relevance order of the servers we know:
    -- sorting thousands with a Lua comparator would cost a frame or more.
    if #items <= 500 then
      for i, it in ipairs(items) do it.order = i end
      table.sort(items, function(a, b)
        local sa, sb = a.sortText or a.label, b.sortText or b.label
        if sa ~= sb then return sa < sb end
        return a.order < b.order
      end)
    end
    c.items, c.sel, c.top = items, 1, 1
    comp_render()
  end)
end

-- comp_word is the typed prefix when buf's cursor is still in the word
-- completion started at, else nil.
comp_word = function(c)
  local row, col = ed.cursor(c.buf)
  if row ~= c.row or col < c.start then return nil end
  local line = ed.get_lines(c.buf, row, row + 1)[1] or ""
  local word = line:sub(c.start + 1, col)
  for i = 1, #word do
    if not is_word(word:byte(i)) then return nil end
  end
  return word, line, col
end

-- comp_changed runs after each edit's didChange: a keystroke in the word
-- asks again; one that left it closes the popup.
local function comp_changed(buf)
  if not comp or comp.buf ~= buf then return end
  if not comp_word(comp) then comp_close() return end
  comp_request()
end

-- comp_accept inserts the selected item; with none shown, the key does
-- what it does without completion.
lsp.after_change[#lsp.after_change + 1] = comp_changed

local function comp_accept(key)
  local c = comp
  local it = c.items[c.sel]
  local _, line, col = comp_word(c)
  comp_close()
  if not it or not line then ed.insert(c.buf, key) return end
  local cur = pmacs.utf16.units(line, col)
  local edit
  local te = it.textEdit
  if type(te) == "table" then
    -- An InsertReplaceEdit has insert and replace ranges: insert keeps
    -- the rest of the word after the cursor.
    local r = te.range or te.insert or te.replace
    edit = {line = r.start.line, col = r.start.character, end_line = r["end"].line,
            end_col = r["end"].character, text = te.newText}
    -- Letters typed after the request are replaced too.
    if edit.end_line == c.row and edit.end_col < cur then edit.end_col = cur end
  else
    edit = {line = c.row, col = pmacs.utf16.units(line, c.start), end_line = c.row, end_col = cur,
            text = it.insertText or it.label}
  end
  local edits = {edit}
  for _, a in ipairs(type(it.additionalTextEdits) == "table" and it.additionalTextEdits or {}) do
    edits[#edits + 1] = lsp_text_edit(a) -- an import the item needs, say
  end
  local n, err = ed.apply_text_edits(c.buf, edits)
  if not n then ed.error("completion: " .. err) return end
  ed.message("")
end

-- comp_move selects the next or previous item; with none shown (still
-- asking, nothing found, or the cursor clicked out of the word) it ends
-- completion and the key moves the cursor as usual.
local function comp_move(d)
  return function(buf)
    if not comp or #comp.items == 0 or not comp_word(comp) then
      comp_close()
      ed.move(buf, d < 0 and "up" or "down")
      return
    end
    comp.sel = (comp.sel - 1 + d) % #comp.items + 1
    comp_render()
  end
end

local function complete(buf)
  if comp then comp_close() end
  local doc = lsp.docs[buf]
  if not doc or not doc.client then ed.message("no language server for this buffer") return end
  if not can_edit(buf, "complete") then return end
  local row, col = ed.cursor(buf)
  local line = ed.get_lines(buf, row, row + 1)[1] or ""
  local start = col
  while start > 0 and is_word(line:byte(start)) do start = start - 1 end
  comp = {buf = buf, row = row, start = start, items = {}, sel = 1, top = 1}
  ed.map(buf, "Up", comp_move(-1))
  ed.map(buf, "Down", comp_move(1))
  ed.map(buf, "Enter", function() comp_accept("\n") end)
  ed.map(buf, "Tab", function() comp_accept("\t") end)
  ed.map(buf, "Esc", function() comp_close() ed.message("") end)
  -- Moving the cursor ends completion (and then moves).
  for key, how in pairs({Left = "left", Right = "right", Home = "home", End = "end"}) do
    ed.map(buf, key, function(b) comp_close() ed.move(b, how) end)
  end
  comp_request()
end
ed.map("global", "M-/", complete)

-- Leaving the word another way (a click) ends completion at the next key
-- (every completion key checks) or the next frame; the popup and the keys
-- are the buffer's own, so another buffer shown meanwhile is not touched.
ed.on("frame", function(buf)
  if not comp then return end
  if buf ~= comp.buf or not comp_word(comp) then comp_close() end
end)
ed.on("close", function(buf)
  if comp and comp.buf == buf then comp = nil end
end)

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
