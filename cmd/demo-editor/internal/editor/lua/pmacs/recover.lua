-- pmacs.recover: crash recovery. The editor journals every file buffer's
-- unsaved edits in the state directory (ed.journal and friends); this
-- module asks what to do with a journal found when a file opens (a session
-- that ended without saving: a crash, a kill, a quit that discarded), and
-- gives M-x recover, a list of every journal. It reads nothing from ctx
-- but ed, commands, command_help and open_file.
local M = {}

function M.setup(ctx)
  local ed, commands, run = ctx.ed, ctx.commands, ctx.run

  local function when(t)
    if not t then return "an earlier session" end
    return os.date("%Y-%m-%d %H:%M", t)
  end

  -- ask offers buf's journal: y recovers it (into buf, or into a new
  -- buffer when the file changed since), n deletes it, Esc decides later
  -- (M-x recover asks again; the buffer's edits are not journalled
  -- meanwhile, so the journal that may hold lost work stays as it is).
  local function ask(buf)
    local j = ed.journal(buf)
    if not j then return false end
    local name = ed.name(buf)
    if j.error then
      ed.error(("recover: the journal of %s cannot be read: %s (M-x recover lists it; n deletes it)"):format(name, j.error))
    end
    local question
    if j.error then
      question = ("delete the unreadable journal of %s? (y/n) "):format(name)
    elseif j.matches then
      question = ("%s has unsaved edits from %s (%s): recover them? (y/n, Esc: later) "):format(name, when(j.created), j.describe)
    else
      question = ("%s changed on disk since its unsaved edits of %s: recover them into %s? (y/n, Esc: later) ")
        :format(name, when(j.created), j.recover_to)
    end
    ed.prompt(question, {
      on_change = function(answer)
        ed.close_prompt()
        if answer == "y" or answer == "Y" then
          if j.error then ed.discard_journal(buf) ed.message("journal deleted") return end
          local nb, err = ed.recover(buf)
          if not nb then ed.error(err) return end
          if nb ~= buf then
            ed.show(nb)
            ed.message(("recovered into %s (not saved yet; %s is as on disk)"):format(ed.path(nb), name))
          end
        elseif answer == "n" or answer == "N" then
          if j.error then ed.message("journal kept; M-x recover lists it") return end
          ed.discard_journal(buf)
          ed.message("journal of " .. name .. " deleted")
        else
          ed.message("journal of " .. name .. " kept: M-x recover to decide")
        end
      end,
      on_cancel = function()
        ed.message("journal of " .. name .. " kept: M-x recover to decide")
      end,
    })
    return true
  end

  -- A file that opens with a journal asks at once when it is shown and no
  -- other question is open (the workspace's trust, say); otherwise once the
  -- question is answered.
  ed.on("open", function(buf)
    if not ed.journal(buf) then return end
    run(function()
      while ed.valid(buf) and ed.prompt_text() do pmacs.async.sleep(100) end
      if not ed.valid(buf) or not ed.journal(buf) then return end
      if ed.current() == buf then
        ask(buf)
      else
        ed.message(ed.name(buf) .. " has a journal of unsaved edits: M-x recover in it to recover them")
      end
    end)
  end)

  -- M-x recover: the shown buffer's waiting journal, if it has one;
  -- otherwise every journal, newest first. Enter opens a journal's file
  -- (which asks), x deletes the journal on the row, g lists them again.
  local list_buf, rows = nil, {}
  local function show_list()
    ed.journals(function(list, err)
      if not list then ed.error("recover: " .. err) return end
      if not (list_buf and ed.valid(list_buf)) then
        list_buf = ed.create("*journals*")
        ed.map(list_buf, "Enter", function(b)
          local r = rows[ed.cursor(b)]
          if not r then return end
          if not r.path then ed.error("recover: " .. (r.error or "unreadable journal")) return end
          if r.buf and ed.valid(r.buf) then
            ed.show(r.buf)
            if not ask(r.buf) then ed.message(ed.name(r.buf) .. " is open: its journal is this session's") end
            return
          end
          ctx.open_file(r.path)
        end, "open the journal's file (it asks to recover)")
        ed.map(list_buf, "x", function(b)
          local r = rows[ed.cursor(b)]
          if not r then return end
          ed.prompt("delete the journal of " .. (r.path or r.file) .. "? (y/n) ", {on_change = function(a)
            ed.close_prompt()
            if a ~= "y" and a ~= "Y" then ed.message("kept") return end
            local ok, rerr = ed.remove_journal(r.file, function(done, derr)
              if done then ed.message("journal deleted") show_list() else ed.error("recover: " .. derr) end
            end)
            if not ok then ed.error(rerr) end
          end})
        end, "delete the journal on this row")
        ed.map(list_buf, "g", function() show_list() end, "list the journals again")
      end
      rows = {}
      local lines = {("journals of unsaved edits (%d): Enter opens the file and asks, x deletes, g refreshes"):format(#list)}
      local labels = {unchanged = "file unchanged", changed = "file changed since", missing = "file missing",
        unreadable = "unreadable"}
      for i, j in ipairs(list) do
        rows[i] = j
        local what = j.path or j.file
        local extra = j.buf and "  [open]" or ""
        if j.error then extra = extra .. "  " .. j.error end
        lines[#lines + 1] = ("  %s  %-18s %8d bytes  %s%s"):format(os.date("%Y-%m-%d %H:%M", j.time), labels[j.state] or j.state,
          j.size, what, extra)
      end
      if #list == 0 then lines[#lines + 1] = "  (none: every buffer's edits are saved)" end
      ed.set_lines(list_buf, 0, -1, lines)
      ed.show(list_buf)
    end)
  end

  ctx.command_help.recover = "recover the shown file's unsaved edits, or list every journal of unsaved edits"
  commands.recover = ctx.no_arg("recover", function()
    local buf = ed.current()
    if ed.journal(buf) then ask(buf) return end
    show_list()
  end)
end

return M
