-- pmacs.doc_highlight: the other occurrences of the symbol under the
-- cursor, from the language server (textDocument/documentHighlight).
-- Once the cursor has rested rest_ms in a buffer synced with a server
-- that offers it, the occurrences are highlighted: reads in the
-- "reference.read" style, writes in "reference.write", others in
-- "reference.text". A move, an edit or another buffer clears them at once
-- and starts the wait again: the wait is a task sleeping on the main
-- loop's timer, cancelled by the next move, so a resting editor asks
-- nothing and polls nothing. M-x doc-highlight turns it off and on. It
-- owns those styles and the task. Set up after pmacs.lsp.
local M = {}

-- How long the cursor must rest before the server is asked.
M.rest_ms = 250

local groups = {"reference.text", "reference.read", "reference.write"}

function M.setup(ctx)
  local ed, run, lsp = ctx.ed, ctx.run, ctx.lsp
  ed.set_style("reference.text", {bg = "#3a3a3a"})
  ed.set_style("reference.read", {bg = "#2f4f4f"})
  ed.set_style("reference.write", {bg = "#5f3f3f", bold = true})

  local state = {on = true, task = nil, buf = nil}

  local function clear()
    local buf = state.buf
    state.buf = nil
    if buf and ed.valid(buf) then
      for _, g in ipairs(groups) do ed.clear_highlights(buf, g) end
    end
  end

  local function highlight(buf, row, col)
    local doc = lsp.docs[buf]
    -- A server still starting is asked too: the request waits for its
    -- initialize, and one that turns out not to offer it answers an error,
    -- which shows nothing.
    if not doc or not doc.client or not lsp.offers(doc.client, "textDocument/documentHighlight") then
      return
    end
    pmacs.async.sleep(M.rest_ms)
    -- The server must see the text the cursor is in.
    lsp.change(buf)
    local line = ed.get_lines(buf, row, row + 1)[1] or ""
    local h = doc.client:request("textDocument/documentHighlight", {textDocument = {uri = pmacs.uri.from_path(doc.path)},
      position = {line = row, character = pmacs.utf16.units(line, col)}}, {key = "doc-highlight", timeout_ms = 5000})
    local res = h:await()
    if type(res) ~= "table" or not ed.valid(buf) or ed.current() ~= buf then return end
    local spans, n = {}, ed.line_count(buf)
    for _, hl in ipairs(res) do
      local r = type(hl) == "table" and hl.range
      if type(r) == "table" and r.start.line < n and r["end"].line < n then
        local sl = ed.get_lines(buf, r.start.line, r.start.line + 1)[1]
        local el = ed.get_lines(buf, r["end"].line, r["end"].line + 1)[1]
        spans[#spans + 1] = {r.start.line, pmacs.utf16.byte_col(sl, r.start.character),
          r["end"].line, pmacs.utf16.byte_col(el, r["end"].character), groups[hl.kind or 1] or groups[1]}
      end
    end
    clear()
    if #spans == 0 then return end
    ed.add_highlights(buf, spans)
    state.buf = buf
  end

  local function moved(buf, row, col)
    if state.task then state.task:cancel("moved") end
    state.task = nil
    clear()
    if state.on and lsp.docs[buf] then
      state.task = run({name = "doc highlight", highlight}, buf, row, col)
    end
  end
  ed.on("cursor", moved)
  -- An edit that leaves the cursor where it was (Delete) moves the
  -- occurrences all the same.
  ed.on("change", function(buf)
    if buf == ed.current() then moved(buf, ed.cursor(buf)) end
  end)

  ctx.command_help["doc-highlight"] = "turn the highlight of the symbol under the cursor's occurrences off and on (language server)"
  ctx.commands["doc-highlight"] = ctx.no_arg("doc-highlight", function()
    state.on = not state.on
    if not state.on then
      if state.task then state.task:cancel("off") end
      clear()
    end
    ed.message("occurrences of the symbol under the cursor: " .. (state.on and "highlighted" or "not highlighted"))
  end)
end

return M
