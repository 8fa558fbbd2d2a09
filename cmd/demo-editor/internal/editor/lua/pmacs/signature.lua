-- pmacs.signature: signature help while typing arguments. Typing "(" or
-- "," in a buffer whose language server offers textDocument/signatureHelp
-- asks it (under the supersede key "signature", so a newer keystroke
-- cancels the older request) and puts the active signature on the message
-- line; the other keys typed inside the call show it again, ")" ends it.
-- It needs ctx.lsp (docs, request, after_change).
local M = {}

-- stats counts the answers that reached the task and the stale ones
-- dropped (for a call typing has left since), for benchmarks.
M.stats = {answers = 0, stale = 0}

function M.setup(ctx)
  local ed, run, lsp = ctx.ed, ctx.run, ctx.lsp
  local cur = nil -- {buf, row, col (of the "("), label, task}

  local function stop()
    if cur and cur.task and not cur.task:done() then cur.task:cancel("closed") end
    cur = nil
  end

  local function offered(buf)
    -- Any of the buffer's servers: lsp.request asks the first that offers
    -- it, once a document still opening has opened.
    local doc = lsp.docs[buf]
    return doc ~= nil and (not doc.client or lsp.clients_for(buf, "textDocument/signatureHelp")[1] ~= nil)
  end

  local function changed(buf)
    local row, col = ed.cursor(buf)
    local ch = col > 0 and (ed.get_lines(buf, row, row + 1)[1] or ""):sub(col, col) or ""
    if cur and (cur.buf ~= buf or cur.row ~= row or col <= cur.col or ch == ")") then
      stop()
      if ch == ")" then ed.message("") end
      return
    end
    if ch ~= "(" and ch ~= "," then
      if cur and cur.label then ed.message(cur.label) end
      return
    end
    if not offered(buf) then return end
    if cur and cur.task and not cur.task:done() then cur.task:cancel("superseded") end
    local call = cur or {buf = buf, row = row, col = col - 1}
    cur = call
    call.task = run{name = "signature help", function()
      local h = lsp.request(buf, "textDocument/signatureHelp",
        {context = {triggerKind = 2, triggerCharacter = ch, isRetrigger = call.label ~= nil}}, "signature")
      if not h then return end
      local res = h:await()
      if res then M.stats.answers = M.stats.answers + 1 end
      if cur ~= call then
        if res then M.stats.stale = M.stats.stale + 1 end
        return
      end
      if type(res) ~= "table" or type(res.signatures) ~= "table" or #res.signatures == 0 then return end
      local sig = res.signatures[(tonumber(res.activeSignature) or 0) + 1] or res.signatures[1]
      if type(sig) == "table" and type(sig.label) == "string" then
        call.label = sig.label
        ed.message(sig.label)
      end
    end}
  end

  lsp.after_change[#lsp.after_change + 1] = changed
  ed.on("close", function(buf) if cur and cur.buf == buf then stop() end end)
end

return M
