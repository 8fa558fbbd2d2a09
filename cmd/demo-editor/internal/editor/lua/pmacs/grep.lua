-- pmacs.grep: C-f (M-x grep), the live grep of the project into *grep*.
-- It searches the project root (pmacs.project). Every keystroke in the prompt starts a search with ed.grep_view under one
-- supersede key: the runtime cancels the previous search. The editor keeps
-- the job's matches itself and formats a row only when a window shows it,
-- so the count (from the job: matches found, files searched) and "done"
-- keep pace with the search however many rows there are. It searches what
-- rg does by default: .gitignore/.ignore honoured, hidden files skipped.
-- M-% in the prompt or in *grep* replaces the matches across the project
-- (ctx.project_replace, pmacs.replace). It owns *grep* and its query, and
-- sets ctx.last_grep(): {buf, root, query, regex} of the last search.
local M = {}

function M.setup(ctx)
  local ed, commands, open_file = ctx.ed, ctx.commands, ctx.open_file
  local join = ctx.paths.join

  local grep = {buf = nil, count = 0, query = "", root = nil, regex = false, state = ""}
  local spinner = {"|", "/", "-", "\\"}

  -- skipped_summary says what the search left out, as rg leaves it out:
  -- "skipped 12 ignored, 40 hidden, 3 binary", only the reasons that occurred.
  local function skipped_summary(sk)
    if not sk then return "" end
    local parts = {}
    local function add(n, what) if n > 0 then parts[#parts + 1] = n .. " " .. what end end
    add(sk.ignored_files + sk.ignored_dirs, "ignored")
    add(sk.hidden_files + sk.hidden_dirs, "hidden")
    add(sk.binary_files, "binary")
    add(sk.oversize_files, "too large")
    add(sk.unreadable_files + sk.unreadable_dirs, "unreadable")
    add(sk.excluded_dirs, "excluded")
    add(sk.other, "symlinks/special")
    if #parts == 0 then return "  (nothing skipped)" end
    return "  (skipped " .. table.concat(parts, ", ") .. ", as rg)"
  end

  local function grep_header()
    local head
    if grep.query == "" then
      head = "grep in " .. grep.root .. ": type a pattern (Enter opens the selected match, M-r regex, Esc cancels)"
    else
      local files = grep.files and (" in " .. grep.files .. " files") or ""
      head = string.format("grep %q%s: %d matches%s  %s%s",
        grep.query, grep.regex and " (regex)" or "", grep.count, files, grep.state, skipped_summary(grep.skipped))
    end
    ed.set_lines(grep.buf, 0, 1, {head})
    ed.add_highlights(grep.buf, {{0, 0, 0, #head, "header"}})
  end

  local function start_grep(query)
    grep.query, grep.count, grep.files, grep.skipped = query, 0, nil, nil
    local buf = grep.buf
    ed.grep_cancel(buf)
    ed.set_lines(buf, 0, -1, {""})
    ed.set_cursor(buf, 0, 0)
    if query == "" then grep_header() return end
    local tick = 0
    grep.state = "searching " .. spinner[1]
    -- Smart case: a capital letter makes the search case-sensitive.
    ed.grep_view(buf, {root = grep.root, pattern = query, regex = grep.regex,
      case_sensitive = query:find("%u") ~= nil, key = "live-grep",
      on_update = function(st)
        if grep.buf ~= buf or grep.query ~= query then return end
        grep.count, grep.files, grep.skipped = st.matches, st.files, st.skipped
        if st.state == "running" then
          tick = tick + 1
          grep.state = "searching " .. spinner[tick % #spinner + 1]
        elseif st.state == "error" then
          grep.state = st.error
          ed.error("grep: " .. st.error)
        else
          grep.state = st.state
        end
        grep_header()
      end})
    grep_header()
  end

  -- open_match opens the match on row (row 0, the header, opens the first).
  local function open_match(row)
    local m = ed.match_at(grep.buf, row) or ed.match_at(grep.buf, 1)
    if not m then ed.message("no match to open") return end
    open_file(join(grep.root, m.file), m.line - 1, m.col)
  end

  local function live_grep()
    if not grep.buf or not ed.find("*grep*") then
      grep.buf = ed.create("*grep*")
      ed.map(grep.buf, "Enter", function(buf) open_match(ed.cursor(buf)) end)
      ed.map(grep.buf, "M-%", function() ctx.project_replace() end)
    end
    grep.root = ed.root()
    ed.show(grep.buf)
    start_grep("")
    ed.prompt("grep: ", {
      on_change = start_grep,
      keys = {["M-r"] = function()
        grep.regex = not grep.regex
        start_grep(ed.prompt_text())
      end, ["M-%"] = function() ctx.project_replace() end},
      on_submit = function() open_match(ed.cursor(grep.buf)) end,
      -- The prompt belongs to *grep*: showing another buffer ends it too
      -- (why == "switch"), and then the search stops but the new view stays.
      on_cancel = function(why)
        local st = ed.find("*grep*") and ed.grep_status(grep.buf)
        if st and st.state == "running" then
          ed.grep_cancel(grep.buf)
          if why ~= "close" then
            grep.state = "stopped (C-f searches again)"
            grep_header()
          end
        end
        if why ~= "key" then return end
        local prev = ed.previous()
        if prev then ed.show(prev) end
      end,
    })
  end
  ed.map("global", "C-f", live_grep, "live grep as rg searches (Up/Down select, Enter opens, M-r regex, M-% replace all, Esc cancels)")
  ctx.command_help.grep = "live grep, as C-f"
  function ctx.last_grep()
    if not grep.buf then return nil end
    return {buf = grep.buf, root = grep.root, query = grep.query, regex = grep.regex}
  end
  commands.grep = ctx.no_arg("grep", live_grep)
end

return M
