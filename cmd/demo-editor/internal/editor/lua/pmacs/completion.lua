-- pmacs.completion: M-/, completion from the language server.
-- M-/ asks the server for completions at the cursor and shows them in a
-- popup under the word. Typing goes on into the buffer: each keystroke that
-- keeps the cursor in the word sends a new request under the supersede key
-- "completion", which cancels the last one ($/cancelRequest), and only the
-- newest request's items are ever shown. Up/Down select, Enter or Tab
-- inserts (the item's textEdit, else its insertText or label, replacing
-- the typed prefix), Esc closes; moving out of the word closes too.
-- It owns the completion in progress, its popup and the task (named
-- "completion") asking for the newest items, which owns the request: a
-- newer request or closing the popup cancels it, and the request with it. Set up after
-- pmacs.lsp (a keystroke asks again from ctx.lsp.after_change) and
-- pmacs.selection (ctx.can_edit) and pmacs.editing (ctx.newline).
local M = {}

-- stats counts the answers that reached the list's task and, of those,
-- the stale ones it dropped (asked for a word since typed on): what a
-- benchmark of typing with completion live reads.
M.stats = {answers = 0, stale = 0}

function M.setup(ctx)
  local ed, run, lsp, can_edit = ctx.ed, ctx.run, ctx.lsp, ctx.can_edit
  local lsp_request, lsp_text_edit = lsp.request, lsp.text_edit
  local is_word = require("pmacs.words").is_word

  local comp = nil -- {buf, row, start (byte column of the word), task, items, sel, top}
  local comp_rows = 10
  local comp_keys = {"Up", "Down", "Enter", "Tab", "Esc", "Left", "Right", "Home", "End"}

  local function comp_close()
    local c = comp
    if not c then return end
    comp = nil
    -- Not the task that is closing it: it returns right after.
    if c.task and c.task ~= pmacs.async.current() then c.task:cancel("closed") end
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

  -- comp_word is the typed prefix when buf's cursor is still in the word
  -- completion started at, else nil.
  local function comp_word(c)
    local row, col = ed.cursor(c.buf)
    if row ~= c.row or col < c.start then return nil end
    local line = ed.get_lines(c.buf, row, row + 1)[1] or ""
    local word = line:sub(c.start + 1, col)
    for i = 1, #word do
      if not is_word(word:byte(i)) then return nil end
    end
    return word, line, col
  end

  local function comp_request()
    local c = comp
    if c.task then c.task:cancel("superseded") end
    local _, _, asked_col = comp_word(c)
    c.task = run{name = "completion", function()
      local h, client = lsp_request(c.buf, "textDocument/completion", {context = {triggerKind = 1}}, "completion")
      if not h then comp_close() return end
      c.client = client
      local items = {}
      for batch in h:batches() do
        if comp ~= c or not ed.valid(c.buf) then return end -- closed: never shown
        for _, it in ipairs(batch) do
          if type(it) == "table" and it.label then items[#items + 1] = it end
        end
      end
      if comp ~= c or not ed.valid(c.buf) then return end
      local ok, err = h:await()
      if not ok then
        if err ~= "cancelled" then ed.error("completion: " .. err) comp_close() end
        return
      end
      M.stats.answers = M.stats.answers + 1
      -- Keys typed since the request was sent (handled in this same turn of
      -- the loop, before their "change" asks again) make it old already.
      local _, _, col = comp_word(c)
      if col ~= asked_col then M.stats.stale = M.stats.stale + 1 return end
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
    end}
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
    if not it or not line then
      if key == "\n" then ctx.newline(c.buf) else ed.insert(c.buf, key) end
      return
    end
    -- Columns as the server that listed the item counts them.
    local client = c.client
    local enc = client and client:encoding() or "utf-16"
    local function units(l, b) return client and client:units(l, b) or pmacs.utf16.units(l, b) end
    local cur = units(line, col)
    local edit
    local te = it.textEdit
    if type(te) == "table" then
      -- An InsertReplaceEdit has insert and replace ranges: insert keeps
      -- the rest of the word after the cursor.
      local r = te.range or te.insert or te.replace
      edit = lsp_text_edit({range = r, newText = te.newText}, enc)
      -- Letters typed after the request are replaced too.
      if edit.end_line == c.row and edit.end_col < cur then edit.end_col = cur end
    else
      edit = {line = c.row, col = units(line, c.start), end_line = c.row, end_col = cur,
              text = it.insertText or it.label, encoding = enc == "utf-8" and enc or nil}
    end
    local edits = {edit}
    for _, a in ipairs(type(it.additionalTextEdits) == "table" and it.additionalTextEdits or {}) do
      edits[#edits + 1] = lsp_text_edit(a, enc) -- an import the item needs, say
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
    if not lsp.docs[buf] then ed.message("no language server for this buffer") return end
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
  ed.map("global", "M-/", complete, "complete the word from the language server (Enter/Tab inserts)")

  -- Leaving the word another way (a click) ends completion at the next key
  -- (every completion key checks) or the next frame; the popup and the keys
  -- are the buffer's own, so another buffer shown meanwhile is not touched.
  ed.on("frame", function(buf)
    if not comp then return end
    if buf ~= comp.buf or not comp_word(comp) then comp_close() end
  end)
  ed.on("close", function(buf)
    if comp and comp.buf == buf then
      if comp.task then comp.task:cancel("closed") end
      comp = nil
    end
  end)
end

return M
