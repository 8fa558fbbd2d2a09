-- pmacs.search: M-f, the search of the shown buffer as you type, and F3,
-- M-n / S-F3, M-p to step through its matches. Each keystroke starts a
-- search_text job under one supersede key, over a snapshot of the text
-- (the buffer's lines, not a copy): the rows in the window are searched
-- first, so their matches show at once even in a 60 MB buffer, and the
-- rest stream in. Smart case: a capital letter makes it case-sensitive.
-- The job delivers the first 100,000 matches and fills the index
-- ed.search_begin makes (matches by block of rows, in Go): once the scan
-- is done the count, the current match's index, next/previous and the
-- highlights are exact however many matches there are, and a step asked
-- for before then waits for it, so it never wraps early.
-- It owns the search in progress (its buffer, query, origin, job, and the
-- task taking its matches, named "isearch", cancelled with the job).
local M = {}

function M.setup(ctx)
  local ed, w, run = ctx.ed, ctx.w, ctx.run

  -- complete: every match of the search is in; waiting: the steps asked
  -- for before then, run once it is.
  local isearch = {handle = nil, task = nil, regex = false, query = "", buf = nil, origin = nil,
    complete = true, waiting = {}}

  local function isearch_stop(why)
    if isearch.task then isearch.task:cancel(why) end
    if isearch.handle then isearch.handle:cancel() end
    isearch.task, isearch.handle = nil, nil
    isearch.complete, isearch.waiting = true, {}
  end

  local function finish(h)
    if isearch.handle ~= h then return end
    isearch.complete = true
    local waiting = isearch.waiting
    isearch.waiting = {}
    for _, fn in ipairs(waiting) do fn() end
  end

  -- when_complete runs fn once buf's matches are all in: at once, or when
  -- the search streaming them ends.
  local function when_complete(buf, fn)
    if isearch.buf == buf and isearch.handle and not isearch.complete then
      isearch.waiting[#isearch.waiting + 1] = fn
      return false
    end
    fn()
    return true
  end

  local function isearch_hint(state)
    local h = isearch.handle
    local n, i = ed.search_count(isearch.buf)
    local total = h and h:progress() or n
    local parts = {}
    if isearch.query ~= "" then
      parts[#parts + 1] = (i > 0 and (i .. "/") or "") .. total .. (total == 1 and " match" or " matches")
      if total > n then parts[#parts + 1] = n .. " shown" end
    end
    parts[#parts + 1] = isearch.regex and "regex" or "literal"
    if state and state ~= "" then parts[#parts + 1] = state end
    ed.set_prompt_hint("  [" .. table.concat(parts, ", ") .. "]  Up/Down: previous/next, M-r: regex")
  end

  local function isearch_run(query)
    isearch.query = query
    isearch_stop("superseded")
    local buf, o = isearch.buf, isearch.origin
    if query == "" then
      ed.search_clear(buf)
      ed.set_cursor(buf, o.row, o.col)
      isearch_hint("")
      return
    end
    local first, last = ed.visible_rows(buf)
    local index = ed.search_begin(buf, first, last)
    local ok, h = pcall(w.search_text, {text = ed.text_snapshot(buf), pattern = query, regex = isearch.regex,
      case_sensitive = query:find("%u") ~= nil, first_row = first, end_row = last, key = "isearch",
      max_batch = 3 * 4096, index = index})
    if not ok then
      ed.search_clear(buf)
      isearch_hint((tostring(h):gsub("^.-invalid text search: ", "")))
      return
    end
    isearch.handle, isearch.complete = h, false
    local jumped = false
    local function jump(wrap)
      if jumped then return end
      jumped = ed.search_goto(buf, {from_row = o.row, from_col = o.col, inclusive = true, wrap = wrap}) ~= nil
    end
    isearch_hint("searching")
    isearch.task = run{name = "isearch", function()
      for batch in h:batches() do
        if isearch.handle ~= h or not ed.valid(buf) then return end
        ed.search_add(buf, batch)
        jump(false)
        isearch_hint("searching")
      end
      if isearch.handle ~= h or not ed.valid(buf) then return end
      local res, err = h:await()
      if not res then isearch_hint(err) finish(h) return end
      jump(true)
      if not jumped then ed.set_cursor(buf, o.row, o.col) end
      isearch_hint(ed.search_count(buf) == 0 and "no match" or "")
      finish(h)
    end}
  end

  -- search_step goes to the next (or previous) match, wrapping around.
  local function search_step(buf, backward)
    local row, _, wrapped = ed.search_goto(buf, {backward = backward})
    if not row then ed.message("no search matches (M-f searches)") return nil end
    local n, i = ed.search_count(buf)
    return string.format("match %d/%d%s", i, n, wrapped and " (wrapped)" or "")
  end

  local function search_buffer()
    local buf = ed.current()
    local row, col = ed.cursor(buf)
    isearch.buf, isearch.origin, isearch.query, isearch.open = buf, {row = row, col = col}, "", true
    local function step(backward)
      return function()
        local now = when_complete(buf, function()
          if search_step(buf, backward) then isearch_hint("") end
        end)
        if not now then isearch_hint("searching") end
      end
    end
    ed.prompt("search: ", {
      on_change = isearch_run,
      keys = {
        Down = step(false), ["C-n"] = step(false), Up = step(true), ["C-p"] = step(true),
        ["M-r"] = function()
          isearch.regex = not isearch.regex
          isearch_run(ed.prompt_text())
        end,
      },
      on_submit = function()
        -- Enter keeps the cursor on the match and the matches highlighted
        -- (F3 / S-F3 go on; Esc clears them).
        isearch.open = false
      end,
      on_cancel = function(why)
        isearch.open = false
        isearch_stop("closed")
        ed.search_clear(buf)
        if why == "key" then ed.set_cursor(buf, isearch.origin.row, isearch.origin.col) end
      end,
    })
    isearch_hint("")
  end
  ed.map("global", "M-f", search_buffer, "search the buffer as you type (Up/Down previous/next, M-r regex, Enter stays, Esc goes back)")
  -- A large file shows its first rows while the rest loads: a search typed
  -- meanwhile covered only those, so it runs again over the whole text.
  ed.on("open", function(buf)
    if isearch.open and isearch.buf == buf and isearch.query ~= "" then isearch_run(isearch.query) end
  end)
  local function step_key(backward)
    return function(buf)
      local now = when_complete(buf, function()
        local m = search_step(buf, backward)
        if m then ed.message(m) end
      end)
      if not now then ed.message("searching...") end
    end
  end
  for _, k in ipairs{"F3", "M-n"} do ed.map("global", k, step_key(false), "next search match") end
  for _, k in ipairs{"S-F3", "M-p"} do ed.map("global", k, step_key(true), "previous search match") end
end

return M
