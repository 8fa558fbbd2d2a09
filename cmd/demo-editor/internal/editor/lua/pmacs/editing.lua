-- pmacs.editing: editing a word or a line at a time. Word motion
-- (C-Right/C-Left, M-Right/M-Left; with shift they select), word delete
-- (M-Backspace, C-Backspace, C-Delete, M-d), C-k (kill to the end of the
-- line, into the register C-v pastes), moving lines (M-Up/M-Down) and
-- duplicating them (M-S-Down), Enter keeping the line's indent, M-; (a
-- line comment on or off, by language) and M-l (line numbers). It owns the
-- comment table, needs ctx.can_edit and ctx.set_register from
-- pmacs.selection, and sets ctx.newline(buf): Enter's line break with the
-- indent, for the modules that take Enter over for a while (completion).
local M = {}

local words = require("pmacs.words")

-- The line comment of each language that has one.
M.comments = {
  go = "//", c = "//", cpp = "//", javascript = "//", typescript = "//", tsx = "//", rust = "//",
  lua = "--", python = "#", bash = "#", yaml = "#", toml = "#",
}

-- word_end returns the column after the next word at or after col in
-- line, or nil when no word starts before the line's end.
local function word_end(line, col)
  local c = col
  while c < #line and not words.is_word(line:byte(c + 1)) do c = c + 1 end
  if c >= #line then return nil end
  while c < #line and words.is_word(line:byte(c + 1)) do c = c + 1 end
  return c
end

-- word_start returns the column of the start of the word before col, or
-- nil when none starts after the line's start.
local function word_start(line, col)
  local c = col
  while c > 0 and not words.is_word(line:byte(c)) do c = c - 1 end
  if c == 0 then return nil end
  while c > 0 and words.is_word(line:byte(c)) do c = c - 1 end
  return c
end

function M.setup(ctx)
  local ed, can_edit = ctx.ed, ctx.can_edit

  local function line_at(buf, row) return ed.get_lines(buf, row, row + 1)[1] or "" end

  -- forward and backward return where a word motion from the cursor
  -- lands: past the next word's end (or the start of the next row), at
  -- the previous word's start (or the end of the row above).
  local function forward(buf)
    local row, col = ed.cursor(buf)
    local line = line_at(buf, row)
    local c = word_end(line, col)
    if c then return row, c end
    if col < #line then return row, #line end
    if row + 1 < ed.line_count(buf) then
      local next_row = row + 1
      return next_row, word_end(line_at(buf, next_row), 0) or 0
    end
    return row, col
  end
  local function backward(buf)
    local row, col = ed.cursor(buf)
    local line = line_at(buf, row)
    local c = word_start(line, col)
    if c then return row, c end
    if col > 0 then return row, 0 end
    if row > 0 then
      local prev = line_at(buf, row - 1)
      return row - 1, word_start(prev, #prev) or #prev
    end
    return row, col
  end

  -- A motion without shift ends a selection made with shift; with shift
  -- it starts or extends one, as the arrows do.
  local function motion(target, select)
    return function(buf)
      if select then
        if not ed.mark(buf) then ed.set_mark(buf, nil, nil, true) end
      else
        local _, _, transient = ed.mark(buf)
        if transient then ed.clear_mark(buf) end
      end
      ed.set_cursor(buf, target(buf)) -- the mark stays: a selection runs to here
    end
  end
  for _, k in ipairs({"C-", "M-"}) do
    ed.map("global", k .. "Right", motion(forward, false), "move past the end of the next word")
    ed.map("global", k .. "Left", motion(backward, false), "move to the start of the word before")
    ed.map("global", k .. "S-Right", motion(forward, true), "select to the end of the next word")
    ed.map("global", k .. "S-Left", motion(backward, true), "select to the start of the word before")
  end

  -- Word delete: the selection if there is one, else up to where the word
  -- motion lands, as one undo step.
  local function delete_to(target, verb)
    return function(buf)
      if not can_edit(buf, verb) then return end
      local sr, sc, er, ec = ed.selection(buf)
      if not sr then
        local row, col = ed.cursor(buf)
        local tr, tc = target(buf)
        if tr < row or (tr == row and tc < col) then sr, sc, er, ec = tr, tc, row, col
        else sr, sc, er, ec = row, col, tr, tc end
      end
      if sr == er and sc == ec then return end
      ed.delete_range(buf, sr, sc, er, ec)
    end
  end
  -- Terminals send C-Backspace as C-h.
  for _, k in ipairs({"M-Backspace", "C-Backspace", "C-h"}) do
    ed.map("global", k, delete_to(backward, "delete a word"), "delete the word before the cursor")
  end
  for _, k in ipairs({"M-d", "C-Delete"}) do
    ed.map("global", k, delete_to(forward, "delete a word"), "delete the word after the cursor")
  end

  -- C-k: the rest of the line into the register (C-v pastes it); at the
  -- end of a line, the line break, joining the next line.
  ed.map("global", "C-k", function(buf)
    if not can_edit(buf, "kill") then return end
    local row, col = ed.cursor(buf)
    local line = line_at(buf, row)
    ed.clear_mark(buf)
    if col < #line then
      ctx.set_register(ed.get_range(buf, row, col, row, #line))
      ed.delete_range(buf, row, col, row, #line)
    elseif row + 1 < ed.line_count(buf) then
      ctx.set_register("\n")
      ed.delete_range(buf, row, col, row + 1, 0)
    else
      ed.message("end of the buffer: nothing to kill")
    end
  end, "kill to the end of the line (at its end: join the next); C-v pastes it")

  -- line_span returns the rows a line command acts on: the selection's
  -- (a selection ending at a row's start leaves that row out), or the
  -- cursor's.
  local function line_span(buf)
    local sr, _, er, ec = ed.selection(buf)
    if not sr then local row = ed.cursor(buf) return row, row end
    if er > sr and ec == 0 then er = er - 1 end
    return sr, er
  end

  -- keep_place puts the cursor (and the mark, which the edit cleared)
  -- back at their places moved by delta rows.
  local function keep_place(buf, delta, mark)
    local row, col = ed.cursor(buf)
    ed.set_cursor(buf, row + delta, col)
    if mark then ed.set_mark(buf, mark[1] + delta, mark[2], mark[3]) end
  end

  local function move_lines(dir)
    return function(buf)
      if not can_edit(buf, "move lines") then return end
      local first, last = line_span(buf)
      local n = ed.line_count(buf)
      if (dir < 0 and first == 0) or (dir > 0 and last + 1 >= n) then return end
      local mr, mc, transient = ed.mark(buf)
      local rows = ed.get_lines(buf, first, last + 1)
      if dir < 0 then
        table.insert(rows, line_at(buf, first - 1))
        ed.set_lines(buf, first - 1, last + 1, rows)
      else
        table.insert(rows, 1, line_at(buf, last + 1))
        ed.set_lines(buf, first, last + 2, rows)
      end
      keep_place(buf, dir, mr and {mr, mc, transient})
    end
  end
  ed.map("global", "M-Up", move_lines(-1), "move the line (or the selected lines) up")
  ed.map("global", "M-Down", move_lines(1), "move the line (or the selected lines) down")

  ed.map("global", "M-S-Down", function(buf)
    if not can_edit(buf, "duplicate") then return end
    local first, last = line_span(buf)
    local mr, mc, transient = ed.mark(buf)
    ed.set_lines(buf, last + 1, last + 1, ed.get_lines(buf, first, last + 1))
    keep_place(buf, last - first + 1, mr and {mr, mc, transient})
  end, "duplicate the line (or the selected lines) below")

  -- Enter keeps the indent of the line it breaks (up to the cursor, when
  -- the cursor is inside the indent), replacing the selection as typing
  -- does.
  local function newline(buf)
    if not can_edit(buf, "insert") then return end
    local row, col = ed.selection(buf)
    if not row then row, col = ed.cursor(buf) end
    local indent = line_at(buf, row):sub(1, col):match("^[ \t]*")
    ed.insert(buf, "\n" .. indent)
  end
  ed.map("global", "Enter", newline, "new line, keeping the indent")
  ctx.newline = newline

  -- M-;: comments the rows out with the language's line comment, at the
  -- smallest indent among them, or, when every non-blank one is already
  -- commented, takes the comments out. One undo step.
  local function toggle_comment(buf)
    if not can_edit(buf, "comment") then return end
    local lang = ed.language(buf)
    local lead = lang and M.comments[lang]
    if not lead then ed.error("comment: no line comment known for " .. (lang or "this buffer") .. " (pmacs.editing's comments table)") return end
    local first, last = line_span(buf)
    local rows = ed.get_lines(buf, first, last + 1)
    local quoted = lead:gsub("%p", "%%%0")
    local all, indent = true, nil
    for _, l in ipairs(rows) do
      if l:find("%S") then
        local ws = l:match("^[ \t]*")
        if not indent or #ws < #indent then indent = ws end
        if not l:find("^[ \t]*" .. quoted) then all = false end
      end
    end
    if not indent then return end
    local row, col = ed.cursor(buf)
    local shift = 0
    for i, l in ipairs(rows) do
      if l:find("%S") then
        local old = #l
        if all then
          l = l:gsub("^([ \t]*)" .. quoted .. " ?", "%1", 1)
        else
          l = indent .. lead .. " " .. l:sub(#indent + 1)
        end
        if first + i - 1 == row then shift = #l - old end
        rows[i] = l
      end
    end
    ed.set_lines(buf, first, last + 1, rows)
    ed.set_cursor(buf, row, math.max(col + shift, 0))
  end
  ed.map("global", "M-;", toggle_comment, "comment the line (or the selected lines) out, or back in")

  local function toggle_numbers()
    ed.set_line_numbers(not ed.line_numbers())
    ed.message("line numbers " .. (ed.line_numbers() and "on" or "off"))
  end
  ed.map("global", "M-l", toggle_numbers, "line numbers on or off")
  ctx.command_help["line-numbers"] = "line numbers on or off, as M-l"
  ctx.commands["line-numbers"] = ctx.no_arg("line-numbers", toggle_numbers)
end

return M
