-- pmacs.jumps: the jump list. Every file opened through ctx.open_file (a
-- definition, a grep match, a reference, a compile error) first records where the cursor was; M-, goes back there and M-> forward
-- again. It wraps ctx.open_file, so it is set up after pmacs.files and
-- before the modules that jump; it owns the two lists.
local M = {}

-- The lists keep at most this many places each.
local max_jumps = 100

function M.setup(ctx)
  local ed = ctx.ed
  local back, forward = {}, {}

  -- here is the place to come back to: the cursor in the shown file, or,
  -- from a view (*references*, *grep*), in the file shown before it.
  local function here()
    for _, buf in ipairs({ed.current(), ed.previous()}) do
      local path = buf and ed.path(buf)
      if path then
        local row, col = ed.cursor(buf)
        return {path = path, row = row, col = col}
      end
    end
  end

  local function same(a, b) return a and b and a.path == b.path and a.row == b.row and a.col == b.col end

  local function push(list, place)
    if not place or same(list[#list], place) then return end
    list[#list + 1] = place
    if #list > max_jumps then table.remove(list, 1) end
  end

  local open_file = ctx.open_file
  function ctx.open_file(path, row, col)
    local from = here()
    local buf = open_file(path, row, col)
    if buf then
      push(back, from)
      forward = {}
    end
    return buf
  end

  -- go takes the newest place off from, leaving the cursor's place on to.
  local function go(from, to, none)
    local place = table.remove(from)
    while place and same(place, here()) do place = table.remove(from) end
    if not place then ed.message(none) return end
    local buf, err = ed.open(place.path)
    if not buf then ed.error(err) return end
    push(to, here())
    ed.clear_mark(buf)
    ed.set_cursor(buf, place.row, place.col)
    ed.show(buf)
  end

  ed.map("global", "M-,", function()
    go(back, forward, "no jump to go back to")
  end, "go back to where the last jump (M-., a grep match, a reference) left")
  ed.map("global", "M->", function()
    go(forward, back, "no jump to go forward to")
  end, "go forward again along the jumps M-, went back on")
end

return M
