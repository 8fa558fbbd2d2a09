-- pmacs.refactor: the language server's changes to the code: F2 (M-x
-- rename) renames the symbol under the cursor, M-a (M-x code-action)
-- lists the code actions at the cursor and runs one, M-x format formats,
-- and saving a file synced with a server organizes its imports and
-- formats it first (a ctx.before_save hook; M-x format-on-save turns it
-- off and on). It owns that switch. Set up after pmacs.files, pmacs.lsp
-- and pmacs.wsedit: their edits go through ctx.apply_workspace_edit.
local M = {}

function M.setup(ctx)
  local ed, run, commands, lsp = ctx.ed, ctx.run, ctx.commands, ctx.lsp
  local relative, lsp_change, lsp_request, lsp_text_edit = lsp.relative, lsp.change, lsp.request, lsp.text_edit
  local apply_workspace_edit = ctx.apply_workspace_edit
  local word_at = require("pmacs.words").word_at

  -- F2 (or M-x rename) asks for the new name of the symbol under the cursor,
  -- sends textDocument/rename and applies the WorkspaceEdit it returns.

  local function rename_symbol(buf, new_name)
    if not lsp.docs[buf] then ed.message("no language server for this buffer") return end
    local row, col = ed.cursor(buf)
    local line = ed.get_lines(buf, row, row + 1)[1] or ""
    local s, e = word_at(line, col)
    local old = line:sub(s + 1, e)
    if old == "" then ed.message("rename: no symbol under the cursor") return end
    local function send(new)
      if new == "" or new == old then return end
      run(function()
        local h, client = lsp_request(buf, "textDocument/rename", {newName = new}, "rename")
        if not h then return end
        local res, err = h:await()
        if not res then if err ~= "cancelled" then ed.error("rename: " .. err) end return end
        if res == true then ed.message("rename: the server changed nothing") return end
        local n, files, moved = apply_workspace_edit(res, client)
        if not n then ed.error("rename: " .. files) return end
        local ops = moved and string.format(", %d files moved or deleted", moved) or ""
        ed.message(string.format("rename %s to %s: %d edits in %d files%s (not saved yet)", old, new, n, files, ops))
      end)
    end
    if new_name then send(new_name) return end
    ed.prompt("rename " .. old .. " to: ", {text = old, on_submit = send})
  end
  ed.map("global", "F2", function(buf) rename_symbol(buf) end, "rename the symbol (language server)")
  ctx.command_help.rename = "[NAME]: rename the symbol, as F2"
  commands.rename = function(arg) rename_symbol(ed.current(), arg ~= "" and arg or nil) end

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
  -- format_buffer formats buf, or only range ({start_row, start_col,
  -- end_row, end_col} in bytes) with textDocument/rangeFormatting when the
  -- server offers it.
  -- A buffer with several servers is formatted by the first that formats.
  local function format_buffer(buf, range)
    local doc = lsp.await_doc(buf)
    if not doc or not doc.client then return nil, "no language server for this buffer" end
    local client = lsp.clients_for(buf, "textDocument/formatting")[1]
    if not client then
      local names = {}
      for _, s in ipairs(doc.clients) do names[#names + 1] = s.name end
      return nil, table.concat(names, " and ") .. " does not format", "NotOffered"
    end
    lsp_change(buf)
    local before = client:version(doc.path)
    local method, params = "textDocument/formatting", {textDocument = {uri = pmacs.uri.from_path(doc.path)},
      options = {tabSize = 8, insertSpaces = false}}
    if range then
      if not lsp.offers(client, "textDocument/rangeFormatting") then
        return nil, "the language server does not format a range (M-x format without a selection formats the file)"
      end
      local function at(row, col)
        return {line = row, character = client:units(ed.get_lines(buf, row, row + 1)[1] or "", col)}
      end
      local er, ec = range[3], range[4]
      if ec == 0 and er > range[1] then
        -- A selection of whole rows ends at the start of the next: that
        -- row is not selected, and a server would format it too.
        er = er - 1
        ec = #(ed.get_lines(buf, er, er + 1)[1] or "")
      end
      method, params.range = "textDocument/rangeFormatting", {start = at(range[1], range[2]), ["end"] = at(er, ec)}
    end
    local h = client:request(method, params, {key = "format:" .. buf, timeout_ms = format_wait_ms})
    local res, err, code = h:await()
    if not ed.valid(buf) then return nil, "the buffer was closed" end
    if not res then return nil, err, code end
    if res == true or #res == 0 then return 0 end -- null or no edits: formatted already
    lsp_change(buf)
    if client:version(doc.path) ~= before then return nil, "the text changed while the server formatted it" end
    local edits = {}
    for i, te in ipairs(res) do edits[i] = lsp_text_edit(te, client:encoding()) end
    return ed.apply_text_edits(buf, edits)
  end

  -- organize_imports applies the server's source.organizeImports action to
  -- buf, in a task; it returns true, or nil, why and the error's code.
  -- offers_kind says whether client's code actions include kind: it lists
  -- it among its codeActionKinds, or lists none.
  local function offers_kind(client, kind)
    local cap = (client:capabilities() or {}).codeActionProvider
    if type(cap) ~= "table" or type(cap.codeActionKinds) ~= "table" then return cap ~= nil end
    for _, k in ipairs(cap.codeActionKinds) do
      if k == kind then return true end
    end
    return false
  end

  -- resolve_action returns action with its edit, asking client's
  -- codeAction/resolve when the server left the edit out for later; the
  -- action as it is when it needs none, or nil and why.
  local function resolve_action(client, action, timeout_ms)
    if type(action.edit) == "table" or type(action.command) == "string"
        or (action.data == nil and action.command ~= nil) or not client:supports("codeAction/resolve") then
      return action
    end
    local res, err = client:request("codeAction/resolve", action, {key = "code-action-resolve", timeout_ms = timeout_ms}):await()
    if not res then return nil, err end
    if type(res) ~= "table" then return nil, "the server resolved the action to nothing" end
    return res
  end

  -- A buffer with several servers has its imports organized by the first
  -- whose code actions include it: two servers' edits of the same text
  -- would not apply one after the other.
  local function organize_imports(buf)
    local doc = lsp.docs[buf]
    if not doc or not doc.client then return nil, "no language server for this buffer" end
    local client
    for _, c in ipairs(lsp.clients_for(buf, "textDocument/codeAction")) do
      if offers_kind(c, "source.organizeImports") then client = c break end
    end
    if not client then return true end
    local at = {line = 0, character = 0}
    local h = client:request("textDocument/codeAction", {textDocument = {uri = pmacs.uri.from_path(doc.path)},
      range = {start = at, ["end"] = at}, context = {diagnostics = pmacs.array(), only = {"source.organizeImports"}}},
      {key = "imports:" .. buf, timeout_ms = format_wait_ms})
    local res, err, code = h:await()
    if not ed.valid(buf) then return nil, "the buffer was closed" end
    if not res then return nil, err, code end
    for _, a in ipairs(type(res) == "table" and res or {}) do
      if a.kind == "source.organizeImports" then
        local ra, rerr = resolve_action(client, a, format_wait_ms)
        if not ra then return nil, rerr end
        if type(ra.edit) == "table" then
          local n, why = apply_workspace_edit(ra.edit, client)
          if not n then return nil, why end
        end
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
    -- A server that does not format is not asked, and M-x format says so.
    if not n and code ~= "MethodNotFound" and code ~= "NotOffered" then ed.message("format: " .. err .. "; saved as it is") end
  end

  ctx.command_help.format = "format the buffer (the selection, where the server formats a range) with the language server"
  commands.format = function()
    local buf = ed.current()
    -- With a selection, only the selected rows (range formatting).
    local sr, sc, er, ec = ed.selection(buf)
    local range = sr and {sr, sc, er, ec} or nil
    run(function()
      local n, err = format_buffer(buf, range)
      if not n then ed.error("format: " .. err) return end
      ed.message(n == 0 and "format: nothing to change" or string.format("format: %d edits", n))
    end)
  end
  ctx.command_help["format-on-save"] = "organize imports and format on save: off or on"
  commands["format-on-save"] = function()
    format_on_save = not format_on_save
    ed.message("format on save: " .. (format_on_save and "on" or "off"))
  end

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
      -- Listed without its edit, the action is resolved now it is chosen.
      local resolved, rerr = resolve_action(client, action, 30000)
      if not resolved then
        if rerr ~= "cancelled" then ed.error(title .. ": " .. tostring(rerr)) end
        return
      end
      action = resolved
      if type(action.edit) == "table" then
        local n, files = apply_workspace_edit(action.edit, client)
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

  -- Every server of the buffer that offers code actions is asked; their
  -- lists are merged in the order of the servers, each action labelled
  -- with its server's name when there are several, and runs with it.
  local function code_actions(buf)
    local doc = lsp.docs[buf]
    if not doc then ed.message("no language server for this buffer") return end
    if not doc.client then ed.message("the language server is starting: ask again in a moment") return end
    local clients, names = lsp.clients_for(buf, "textDocument/codeAction")
    if #clients == 0 then ed.message("the language server does not offer code actions") return end
    local sr, sc, er, ec = ed.selection(buf)
    if not sr then
      sr, sc = ed.cursor(buf)
      er, ec = sr, sc
    end
    local asks = {}
    for i, client in ipairs(clients) do
      local function at(row, col)
        return {line = row, character = client:units(ed.get_lines(buf, row, row + 1)[1] or "", col)}
      end
      -- The server matches the diagnostics it is sent against its own:
      -- send each its own, as it published them.
      local diags = {}
      for _, d in ipairs(client:diagnostics(doc.path)) do
        if d.line <= er and d.end_line >= sr then
          diags[#diags + 1] = {range = {start = {line = d.line, character = d.col}, ["end"] = {line = d.end_line, character = d.end_col}},
            severity = d.severity, message = d.message, source = d.source, code = d.code}
        end
      end
      asks[i] = {client = client, name = names[i], h = client:request("textDocument/codeAction", {textDocument = {uri = pmacs.uri.from_path(doc.path)},
        range = {start = at(sr, sc), ["end"] = at(er, ec)}, context = {diagnostics = pmacs.array(diags)}},
        {key = "code-action@" .. names[i], timeout_ms = 30000})}
    end
    local where = string.format("%s:%d", relative(doc.path), sr + 1)
    run(function()
      local list, errs = {}, {}
      for _, ask in ipairs(asks) do
        local res, err = ask.h:await()
        if not res then
          if err ~= "cancelled" then errs[#errs + 1] = (#asks > 1 and (ask.name .. ": ") or "") .. err end
        elseif type(res) == "table" then
          for _, a in ipairs(res) do
            if type(a) == "table" then list[#list + 1] = {action = a, client = ask.client, name = ask.name} end
          end
        end
      end
      if #list == 0 then
        if #errs > 0 then ed.error("code actions: " .. table.concat(errs, "; ")) else ed.message("no code actions at " .. where) end
        return
      end
      local rows = {string.format("code actions at %s (Enter runs one, Esc goes back)", where)}
      for _, it in ipairs(list) do
        local a = it.action
        local row = tostring(a.title)
        if a.kind then row = row .. "  [" .. a.kind .. "]" end
        if #asks > 1 then row = row .. "  (" .. it.name .. ")" end
        if type(a.disabled) == "table" then row = row .. "  (disabled: " .. tostring(a.disabled.reason) .. ")" end
        rows[#rows + 1] = row
      end
      local lb = ed.create("*code actions*")
      ed.set_lines(lb, 0, -1, rows)
      ed.set_cursor(lb, 1, 0)
      ed.map(lb, "Enter", function(b)
        local it = list[ed.cursor(b)]
        if not it then return end
        if not ed.valid(buf) then ed.message("code actions: the buffer was closed") return end
        ed.show(buf)
        run_code_action(buf, it.client, it.action)
      end)
      ed.show(lb)
    end)
  end
  ed.map("global", "M-a", code_actions, "code actions at the cursor or selection (Enter runs one)")
  ctx.command_help["code-action"] = "code actions, as M-a"
  commands["code-action"] = function() code_actions(ed.current()) end
end

return M
