-- pmacs.syntax: syntax colours. Each file buffer with a language is parsed
-- by a job under its own supersede key, so a keystroke cancels the parse
-- of the previous text. The parse reuses the last tree (incremental);
-- highlights are taken for the visible rows only and again when the view
-- scrolls. A very large buffer is coloured from a parse of the rows around
-- the window. It owns each buffer's tree and parse generation, and sets
-- ctx.reparse(buf) for a buffer whose language may have changed (save as).
local M = {}

function M.setup(ctx)
  local ed, w, run = ctx.ed, ctx.w, ctx.run

  local syntax = {} -- buf -> {tree = , gen = dispatched, landed = newest landed, windowed = bool}

  local function refresh_highlights(buf)
    local s = syntax[buf]
    -- A buffer closed in this frame is still in syntax until its "close"
    -- hook runs.
    if not s or not s.tree or s.landed ~= s.gen or not ed.valid(buf) then return end
    local top, bottom = ed.visible_rows(buf)
    ed.set_highlights(buf, s.tree:highlights(top, bottom))
  end

  -- Above max_parse_rows rows or max_parse_bytes bytes a buffer gets no
  -- full-file tree: its colours come from a parse of the rows around the
  -- window only, redone when the view moves or the text changes, and the
  -- message line says so. A full tree costs
  -- about 46 times the file in memory and its parse grows faster than the
  -- file (a 3 MB Go file: 0.7 s and 140 MB; 60 MB: 43 s and 2.8 GB), and
  -- each keystroke would copy the whole text on the main loop (get_text, 0.2
  -- s at 60 MB) to hand it to the reparse; the window's parse takes 1 to 2
  -- ms at any size. Its colours can be wrong where the parse starts inside
  -- a construct that began above it (a raw string, a block comment): it
  -- starts at the nearest row above the window that begins with a letter
  -- (looking up to window_above rows up), which in most languages opens a
  -- top-level declaration, and it takes window_below rows past the window
  -- so a construct open at its last row can close. Rows so long that the
  -- window's text passes window_max_bytes (a minified file) get no colours,
  -- and the message line says so.
  local max_parse_rows = 250000
  local max_parse_bytes = 4 * 1024 * 1024
  local window_above, window_below = 200, 20
  local window_max_bytes = 1024 * 1024
  local windowed_said = {} -- buf -> true once said

  local function highlight_window(buf, s, lang)
    local top, bottom = ed.visible_rows(buf)
    local from = math.max(0, top - window_above)
    local rows = ed.get_lines(buf, from, math.min(ed.line_count(buf), bottom + window_below))
    local first = 1
    for i = top - from, 1, -1 do
      if rows[i]:find("^[%a_]") then first = i break end
    end
    local base = from + first - 1
    local source = table.concat(rows, "\n", first)
    s.gen = s.gen + 1
    local gen = s.gen
    if #source > window_max_bytes then
      ed.clear_highlights(buf)
      if not s.too_long then
        s.too_long = true
        ed.message(string.format("%s: the rows around the window hold over %d KiB: no syntax colours there", ed.name(buf), window_max_bytes / 1024))
      end
      return
    end
    local h = w.parse{source = source, language = lang, key = "buf:" .. buf}
    run(function()
      local tree, err = h:await()
      if not tree then
        if err ~= "cancelled" then ed.error("parse " .. ed.name(buf) .. ": " .. tostring(err)) end
        return
      end
      local spans = gen == s.gen and syntax[buf] == s and ed.valid(buf) and tree:highlights(math.max(top - base, 0), bottom - base)
      tree:close()
      if not spans then return end -- a newer window was asked for, or the buffer closed
      s.landed = gen
      for _, sp in ipairs(spans) do
        sp.start_row, sp.end_row = sp.start_row + base, sp.end_row + base
      end
      ed.set_highlights(buf, spans)
    end)
  end

  local function reparse(buf)
    local lang = ed.language(buf)
    if not lang then return end
    local n = ed.line_count(buf)
    local s = syntax[buf]
    if n > max_parse_rows or ed.byte_count(buf) > max_parse_bytes then
      if not s or not s.windowed then
        if s and s.tree then s.tree:close() end
        s = {gen = 0, landed = 0, windowed = true}
        syntax[buf] = s
      end
      if not windowed_said[buf] then
        windowed_said[buf] = true
        ed.message(string.format("%s: %d rows: syntax colours from the rows around the window only (no full parse above %d rows or %d MiB)",
          ed.name(buf), n, max_parse_rows, math.floor(max_parse_bytes / (1024 * 1024))))
      end
      highlight_window(buf, s, lang)
      return
    end
    windowed_said[buf] = nil
    if not s or s.windowed then
      s = {gen = 0, landed = 0}
      syntax[buf] = s
    end
    s.gen = s.gen + 1
    local gen = s.gen
    local h = w.parse{source = ed.get_text(buf), language = lang, prior = s.tree, key = "buf:" .. buf}
    run(function()
      local tree, err = h:await()
      if syntax[buf] ~= s then -- the buffer was closed meanwhile
        if tree then tree:close() end
        return
      end
      if not tree then
        if err ~= "cancelled" then ed.error("parse " .. ed.name(buf) .. ": " .. tostring(err)) end
        return
      end
      if gen < s.landed then tree:close() return end -- an older parse landing late
      if s.tree then s.tree:close() end
      s.tree, s.landed = tree, gen
      refresh_highlights(buf)
    end)
  end

  ed.on("open", reparse)
  ed.on("change", reparse)
  ed.on("view", function(buf)
    local s = syntax[buf]
    if s and s.windowed then highlight_window(buf, s, ed.language(buf)) else refresh_highlights(buf) end
  end)
  ed.on("close", function(buf)
    windowed_said[buf] = nil
    local s = syntax[buf]
    if s and s.tree then s.tree:close() end
    syntax[buf] = nil
  end)
  ctx.reparse = reparse
end

return M
