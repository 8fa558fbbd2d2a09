-- pmacs.selection: the mark, the selection and the clipboard. The mark is
-- the selection's other end (the cursor is the other). C-Space sets it,
-- and movement then extends the selection until Esc or an edit clears it;
-- a movement key with shift starts a selection that the next movement
-- without shift ends. C-c copies, C-x cuts and C-v pastes, through the
-- register this module owns and, for copy and cut, the terminal's
-- clipboard (OSC 52), so the text reaches the desktop even over ssh. It
-- sets ctx.can_edit(buf, verb): whether keys may change buf, said when not,
-- and ctx.set_register(text): what C-v pastes next (C-k kills into it).
local M = {}

function M.setup(ctx)
  local ed = ctx.ed

  local register = nil

  -- A transient mark (set by shift+movement, or by a mouse drag in the Go
  -- core) ends at the next movement without shift.
  -- In order: F1 lists the keys as they were bound.
  local moves = {{"Up", "up"}, {"Down", "down"}, {"Left", "left"}, {"Right", "right"}, {"Home", "home"},
                 {"End", "end"}, {"PgUp", "pgup"}, {"PgDn", "pgdn"}, {"C-Home", "top"}, {"C-End", "bottom"}}
  for _, m in ipairs(moves) do
    local key, how = m[1], m[2]
    ed.map("global", "S-" .. key, function(buf)
      if not ed.mark(buf) then ed.set_mark(buf, nil, nil, true) end
      ed.move(buf, how)
    end, "select while moving (a movement without shift ends the selection)")
    ed.map("global", key, function(buf)
      local _, _, transient = ed.mark(buf)
      if transient then ed.clear_mark(buf) end
      ed.move(buf, how)
    end, "move")
  end

  ed.map("global", "C-Space", function(buf)
    if ed.mark(buf) then
      ed.clear_mark(buf)
      ed.message("mark cleared")
    else
      ed.set_mark(buf)
      ed.message("mark set (move to select; C-c copy, C-x cut, Esc clears)")
    end
  end, "set the mark: movement selects from it (again: clear it)")
  ed.map("global", "Esc", function(buf)
    ed.clear_mark(buf)
    ed.search_clear(buf)
  end, "clear the selection and the search matches")

  -- take_selection copies the selection into the register and the system
  -- clipboard; it returns the range, or nil when nothing is selected.
  local function take_selection(buf, verb)
    local sr, sc, er, ec = ed.selection(buf)
    if not sr then ed.message("nothing selected to " .. verb .. " (C-Space or shift+movement selects)") return end
    register = ed.get_range(buf, sr, sc, er, ec)
    ed.set_clipboard(register)
    return sr, sc, er, ec
  end

  -- can_edit says (and explains) whether keys may change buf.
  local function can_edit(buf, verb)
    if ed.loading(buf) then ed.error(verb .. ": " .. ed.name(buf) .. " is still loading") return false end
    if ed.readonly(buf) then ed.error(verb .. ": " .. ed.name(buf) .. " is read-only") return false end
    return true
  end

  ed.map("global", "C-c", function(buf)
    local sr = take_selection(buf, "copy")
    if not sr then return end
    ed.clear_mark(buf)
    ed.message(("copied %d bytes"):format(#register))
  end, "copy (to the terminal's clipboard too)")
  ed.map("global", "C-x", function(buf)
    if not can_edit(buf, "cut") then return end
    local sr, sc, er, ec = take_selection(buf, "cut")
    if not sr then return end
    ed.delete_range(buf, sr, sc, er, ec)
    ed.message(("cut %d bytes"):format(#register))
  end, "cut (to the terminal's clipboard too)")
  ed.map("global", "C-v", function(buf)
    if not register then ed.message("nothing to paste (C-c or C-x first)") return end
    if not can_edit(buf, "paste") then return end
    ed.insert(buf, register) -- over the selection, if any: one undo step
  end, "paste (over the selection)")
  ctx.can_edit = can_edit
  function ctx.set_register(text)
    register = text
    ed.set_clipboard(text)
  end
end

return M
