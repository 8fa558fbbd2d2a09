-- pmacs.calls: the call hierarchy of the function under the cursor. M-h
-- (M-x calls) asks the server to prepare it
-- (textDocument/prepareCallHierarchy), then for the incoming calls (who
-- calls it: each caller at the call) and the outgoing ones (what it
-- calls: each callee at its definition), asked side by side, into
-- *calls*; Enter jumps, recorded in the jump list. It owns *calls*. Set
-- up after pmacs.lsp.
local M = {}

function M.setup(ctx)
  local ed, run, lsp = ctx.ed, ctx.run, ctx.lsp
  local kind_name = require("pmacs.symbols").kind_name

  local calls = {targets = {}}

  -- place is the path, row and column of a position in a URI, or nil for a
  -- URI that names no local file.
  local function place(uri, pos)
    local path = type(uri) == "string" and pmacs.uri.to_path(uri)
    if not path or type(pos) ~= "table" then return nil end
    return {path = path, line = pos.line, character = pos.character}
  end

  local function show_calls(buf)
    local h = lsp.request(buf, "textDocument/prepareCallHierarchy", nil, "calls")
    if not h then return end
    local doc = lsp.docs[buf]
    run{name = "calls", function()
      local items, err = h:await()
      if not items then if err ~= "cancelled" then ed.error("calls: " .. err) end return end
      local item = type(items) == "table" and items[1]
      if type(item) ~= "table" then ed.message("no function here to list the calls of") return end
      local opts = {timeout_ms = 30000}
      local incoming = doc.client:request("callHierarchy/incomingCalls", {item = item}, opts)
      local outgoing = doc.client:request("callHierarchy/outgoingCalls", {item = item}, opts)
      local ins, ierr, icode = incoming:await()
      local outs, oerr, ocode = outgoing:await()
      -- clangd before 20 answers outgoingCalls with MethodNotFound.
      if icode == "MethodNotFound" then ierr = "(the server does not list them)" end
      if ocode == "MethodNotFound" then oerr = "(the server does not list them)" end
      local lines, targets = {string.format("calls of %s (%s) (Enter jumps)", item.name, kind_name(item.kind))}, {}
      local function row(text, at)
        lines[#lines + 1] = text
        targets[#lines - 1] = at
      end
      row("called by:")
      if not ins then row("  " .. tostring(ierr)) end
      for _, c in ipairs(type(ins) == "table" and ins or {}) do
        local from = type(c) == "table" and c.from
        if type(from) == "table" then
          -- Each call site of the caller, in the caller's file.
          for _, r in ipairs(type(c.fromRanges) == "table" and #c.fromRanges > 0 and c.fromRanges or {from.selectionRange}) do
            local at = place(from.uri, r.start)
            if at then
              row(string.format("  %s  %s:%d:%d", from.name, lsp.relative(at.path), at.line + 1, at.character + 1), at)
            end
          end
        end
      end
      row("calls:")
      if not outs then row("  " .. tostring(oerr)) end
      for _, c in ipairs(type(outs) == "table" and outs or {}) do
        local to = type(c) == "table" and c.to
        local at = type(to) == "table" and place(to.uri, (to.selectionRange or to.range or {}).start)
        if at then
          row(string.format("  %s  %s:%d:%d", to.name, lsp.relative(at.path), at.line + 1, at.character + 1), at)
        end
      end
      local cb = ed.find("*calls*") or ed.create("*calls*")
      ed.map(cb, "Enter", function(b)
        local at = calls.targets[select(1, ed.cursor(b))]
        if not at then ed.message("no call on this row") return end
        lsp.jump(at.path, at.line, at.character)
      end)
      calls.targets = targets
      ed.set_lines(cb, 0, -1, lines)
      ed.set_highlights(cb, {{0, 0, 0, #lines[1], "header"}})
      ed.show(cb)
      ed.set_cursor(cb, 0, 0)
    end}
  end
  ed.map("global", "M-h", function(buf) show_calls(buf) end, "language server: who calls the function, and what it calls, in *calls*")
  ctx.command_help.calls = "the callers of the function at the cursor and its callees in *calls* (language server)"
  ctx.commands.calls = ctx.no_arg("calls", function() show_calls(ed.current()) end)
end

return M
