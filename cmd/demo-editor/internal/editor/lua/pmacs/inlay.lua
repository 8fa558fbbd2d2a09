-- pmacs.inlay: inlay hints from the language server (textDocument/inlayHint)
-- for the visible rows only, shown as virtual text (ed.set_inlays) that is
-- no part of the buffer's text. They are asked again when the view moves
-- or the text changes, after a short pause (a burst of scrolling or typing
-- asks once), each request cancelling the one before, and shown only if
-- the document is still at the version they were asked for. It owns the
-- per-buffer request tasks and M-x inlay-hints, and turns on gopls's hints
-- (off by default in gopls).
local M = {}

-- debounce_ms is the pause after a scroll or keystroke before asking.
M.debounce_ms = 80

function M.setup(ctx)
  local ed, run, lsp = ctx.ed, ctx.run, ctx.lsp
  local enabled = true
  local tasks = {} -- buf -> the task waiting to ask, or asking
  local client_of = {} -- buf -> the client its hints were last asked of
  local said = {}
  -- on_show: functions called with (buf, n) once n hints are shown.
  local on_show = {}

  local go = lsp.servers.go
  go.settings = go.settings or {}
  go.settings.gopls = go.settings.gopls or {}
  go.settings.gopls.hints = {assignVariableTypes = true, compositeLiteralFields = true, compositeLiteralTypes = true,
    constantValues = true, functionTypeParameters = true, parameterNames = true, rangeVariableTypes = true}

  -- label is a hint's text: a string, or the values of its parts, with
  -- the padding it asks for.
  local function label(hint)
    local text = hint.label
    if type(text) == "table" then
      local parts = {}
      for _, p in ipairs(text) do parts[#parts + 1] = type(p) == "table" and tostring(p.value or "") or "" end
      text = table.concat(parts)
    end
    if type(text) ~= "string" or text == "" then return nil end
    if hint.paddingLeft then text = " " .. text end
    if hint.paddingRight then text = text .. " " end
    return text
  end

  local function ask(buf)
    local doc = lsp.docs[buf]
    if not enabled or not doc or not doc.client or not ed.valid(buf) then return end
    local c, path = doc.client, doc.path
    if c:status().state ~= "running" then return end
    client_of[buf] = c
    if not c:supports("textDocument/inlayHint") then return end
    if tasks[buf] then tasks[buf]:cancel("superseded") end
    tasks[buf] = run{name = "inlay hints", function()
      pmacs.async.sleep(M.debounce_ms)
      if not ed.valid(buf) then return end
      local n = ed.line_count(buf)
      local top, bottom = ed.visible_rows(buf)
      bottom = math.min(bottom, n)
      local last = ed.get_lines(buf, n - 1, n)[1] or ""
      local stop = bottom < n and {line = bottom, character = 0} or {line = n - 1, character = pmacs.utf16.units(last, #last)}
      local version, rev = c:version(path), ed.revision(buf)
      local h = c:request("textDocument/inlayHint", {textDocument = {uri = pmacs.uri.from_path(path)},
        range = {start = {line = top, character = 0}, ["end"] = stop}}, {key = "inlay:" .. buf, timeout_ms = 30000})
      local res, err, code = h:await()
      if not res then
        if err ~= "cancelled" and code ~= "ContentModified" and code ~= "RequestCancelled" then
          local msg = "inlay hints: " .. path .. ": " .. tostring(err)
          if not said[msg] then said[msg] = true print(msg) end
        end
        return
      end
      if not enabled or not ed.valid(buf) or c:version(path) ~= version or ed.revision(buf) ~= rev then return end
      local rows = ed.get_lines(buf, top, bottom)
      local list = {}
      for _, hint in ipairs(type(res) == "table" and res or {}) do
        local p, text = type(hint) == "table" and hint.position, type(hint) == "table" and label(hint)
        local line = type(p) == "table" and type(p.line) == "number" and rows[p.line - top + 1]
        if line and text and type(p.character) == "number" then
          list[#list + 1] = {row = p.line, col = pmacs.utf16.byte_col(line, p.character), text = text,
            group = hint.kind == 2 and "inlay.parameter" or "inlay"}
        end
      end
      ed.set_inlays(buf, list)
      for _, hook in ipairs(on_show) do hook(buf, #list) end
    end}
  end

  ed.on("view", function(buf) if lsp.docs[buf] then ask(buf) end end)
  table.insert(lsp.after_change, ask)
  -- The first hints come once the document has its client.
  ed.on("frame", function()
    if not enabled then return end
    for buf, doc in pairs(lsp.docs) do
      if doc.client and client_of[buf] ~= doc.client then ask(buf) end
    end
  end)
  ed.on("close", function(buf)
    if tasks[buf] then tasks[buf]:cancel("closed") end
    tasks[buf], client_of[buf] = nil, nil
  end)

  local function toggle()
    enabled = not enabled
    for buf, t in pairs(tasks) do
      t:cancel("inlay hints off")
      if ed.valid(buf) then ed.clear_inlays(buf) end
    end
    tasks, client_of = {}, {}
    for buf in pairs(lsp.docs) do ask(buf) end
    ed.message("inlay hints " .. (enabled and "on" or "off"))
  end
  ctx.command_help["inlay-hints"] = "toggle the language server's inlay hints (types, parameter names) on the visible rows"
  ctx.commands["inlay-hints"] = ctx.no_arg("inlay-hints", toggle)

  ctx.inlay = {on_show = on_show, ask = ask, enabled = function() return enabled end}
end

return M
