-- pmacs.workspace_trust: M-x trust, M-x untrust and the question asked on
-- the first open of a workspace that has project-local programs and no
-- decision (or whose programs changed since it was trusted). The workspace
-- is untrusted until the user trusts it (docs/security.md): its own
-- programs (.bin/gopls) never run, servers come from PATH outside it, and
-- the status line says "restricted"; pmacs.trust decides from Lua too. A
-- decision is stored in the user's state directory; the language servers
-- that were held back start on the "trust" event (lsp_retrust in init.lua).
-- setup returns {ask_trust = fn}, which the start of the editor calls.
local M = {}

function M.setup(ctx)
  local ed, commands = ctx.ed, ctx.commands

  local function program_list(names)
    local s = table.concat(names, ", ", 1, math.min(#names, 3))
    if #names > 3 then s = s .. string.format(" and %d more", #names - 3) end
    return s
  end

  local function folder_arg(arg) return arg ~= "" and arg or nil end

  ctx.command_help.trust = "[folder]: trust the workspace (or folder): its own programs may run"
  commands.trust = function(arg)
    local st, err = pmacs.trust.allow(folder_arg(arg))
    if not st then ed.error("trust: " .. err) return end
    if #st.programs > 0 then
      ed.message(string.format("trusted %s: its programs may run (%s)", st.folder, program_list(st.programs)))
    else
      ed.message("trusted " .. st.folder)
    end
  end

  ctx.command_help.untrust = "[folder]: refuse the workspace (or folder)"
  commands.untrust = function(arg)
    local st, err = pmacs.trust.deny(folder_arg(arg))
    if not st then ed.error("untrust: " .. err) return end
    ed.message(st.folder .. " is restricted: none of its own programs run (M-x trust to allow them)")
  end

  -- ask_trust asks about the workspace when it has programs of its own and
  -- no decision that covers them. A stray key decides nothing: the answer is
  -- typed, y (trust) or n (refuse, remembered), and confirmed with Enter;
  -- the hint after the text says what Enter will do. Anything else on Enter
  -- asks again; Esc (or leaving the prompt) decides later, and the
  -- workspace stays restricted meanwhile.
  local trust_hints = {
    [""] = "  type y (trust) or n (refuse), then Enter; Esc: decide later",
    y = "  Enter: trust it", n = "  Enter: refuse (remembered; M-x trust later)",
    other = "  not y or n: type y or n, then Enter",
  }
  local function trust_answer(text)
    local a = text:lower():match("^%s*(.-)%s*$")
    if a == "y" or a == "yes" then return "y" end
    if a == "n" or a == "no" then return "n" end
    return nil
  end
  local function ask_trust()
    local st, err = pmacs.trust.status()
    if not st then ed.error("trust: " .. err .. "; the workspace stays restricted") return end
    local form
    if st.status == "changed" then
      print(string.format("trust: %s changed since you trusted it (%s); it is restricted until you trust it again",
        st.folder, table.concat(st.changes, ", ")))
      form = "%s changed since you trusted it (" .. program_list(st.changes) .. "): trust it again? (y/n) "
    elseif st.status == "untrusted" and #st.programs > 0 then
      form = "%s has project-local programs (" .. program_list(st.programs) .. "): trust it? (y/n) "
    else
      return
    end
    print("trust: " .. form:format(ed.root()))
    -- The prompt shows two thirds of the screen's width of its label: a
    -- long root is named by its last part there, so the question stays.
    local question = form:format(ed.root())
    if #question > math.floor(ed.size() * 2 / 3) then question = form:format(".../" .. ed.root():match("[^/]*$")) end
    local function open()
      ed.prompt(question, {
        on_change = function(t)
          local a = trust_answer(t)
          ed.set_prompt_hint(a and trust_hints[a] or t == "" and trust_hints[""] or trust_hints.other)
        end,
        on_submit = function(t)
          local a = trust_answer(t)
          if a == "y" then
            commands.trust("")
          elseif a == "n" then
            commands.untrust("")
          else
            ed.message("answer y (trust) or n (refuse), then Enter; Esc decides later")
            open()
          end
        end,
        on_cancel = function(why)
          if why ~= "replaced" then
            ed.message("no decision: the workspace stays restricted (M-x trust, M-x untrust)")
          end
        end,
      })
      ed.set_prompt_hint(trust_hints[""])
    end
    open()
  end

  return {ask_trust = ask_trust}
end

return M
