-- pmacs.views: the views of the editor itself: *buffers* (C-b), the M-:
-- line of Lua and the value it shows, and the two windows (M-2 splits,
-- M-o switches, M-1 goes back to one), and q and Esc closing any view. It
-- owns no state beyond the buffer list *buffers* shows.
local M = {}

function M.setup(ctx)
  local ed = ctx.ed

  -- M-: a line of Lua, run at once on the editor's state (C-g stops one
  -- that never ends); the values it returns show on the message line.
  local function pack(...) return {n = select("#", ...), ...} end

  local function show_value(v, depth)
    if type(v) == "string" then return string.format("%q", v) end
    if type(v) ~= "table" or depth > 1 then return tostring(v) end
    local parts, n = {}, 0
    for k, x in pairs(v) do
      n = n + 1
      if n > 10 then parts[#parts + 1] = "..." break end
      local key = type(k) == "string" and k:match("^[%a_][%w_]*$") and k or ("[" .. show_value(k, 2) .. "]")
      parts[#parts + 1] = key .. " = " .. show_value(x, depth + 1)
    end
    return "{" .. table.concat(parts, ", ") .. "}"
  end

  ed.map("global", "M-:", function()
    ed.prompt("eval: ", {on_submit = function(text)
      if text:match("^%s*$") then return end
      local chunk, err = loadstring("return " .. text, "input")
      if not chunk then chunk, err = loadstring(text, "input") end
      if not chunk then ed.error("eval: " .. err) return end
      local res = pack(pcall(chunk))
      if not res[1] then ed.error("eval: " .. tostring(res[2])) return end
      if res.n == 1 then ed.message("eval: no value") return end
      local out = {}
      for i = 2, res.n do out[#out + 1] = show_value(res[i], 0) end
      ed.message(table.concat(out, ", "))
    end})
  end, "evaluate a line of Lua and show what it returns")

  -- Two windows: each keeps its own buffer, cursor and scroll.
  local function say_err(ok, err) if not ok then ed.message(err) end end
  ed.map("global", "M-2", function() say_err(ed.split()) end, "split into two windows")
  ed.map("global", "M-o", function() say_err(ed.other_window()) end, "switch to the other window")
  ed.map("global", "M-1", function() ed.unsplit() end, "back to one window")

  -- C-b: *buffers*, a row per buffer; Enter switches to the one on the row.
  local function show_buffers()
    local buf = ed.find("*buffers*") or ed.create("*buffers*")
    local list = ed.buffers()
    local lines, ids = {}, {}
    for i, b in ipairs(list) do
      lines[i] = string.format("%s %-24s %s", b.modified and "+" or " ", b.name, b.path or "")
      ids[i - 1] = b.id
    end
    ed.set_lines(buf, 0, -1, lines)
    ed.map(buf, "Enter", function(b) local id = ids[ed.cursor(b)] if id then ed.show(id) end end)
    ed.show(buf)
  end
  ed.map("global", "C-b", show_buffers, "*buffers* (Enter switches)")

  -- q and Esc in any view (a read-only buffer with no file: *buffers*,
  -- *grep*, *references*, *code actions*...) close it, and the window
  -- shows the buffer shown before it. *messages* cannot be closed: they
  -- only go back from it.
  local function close_view(buf)
    if not ed.close(buf) then
      local prev = ed.previous()
      if prev then ed.show(prev) end
    end
  end
  ed.map("view", "q", close_view, "close the view and go back")
  ed.map("view", "Esc", close_view, "close the view and go back")
end

return M
