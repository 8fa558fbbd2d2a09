-- pmacs.replace: find and replace. M-% (M-x replace) asks for a pattern
-- (M-r: regex, Go's RE2 syntax, with \1..\9 for its groups in the
-- replacement) and its replacement, then walks the buffer's matches from
-- the cursor on, wrapping, each selected in turn: y replaces it, n skips
-- it, ! replaces it and all the rest, q stops there, Esc replaces nothing.
-- The replacements are made together, as one undo step (ed.replace_matches
-- finds them in Go; ed.apply_text_edits makes them).
--
-- M-% in the *grep* prompt or view (M-x project-replace) replaces the last
-- grep's matches across the project: it asks for the replacement, lists
-- every change in *project-replace* for review, then applies them through
-- the workspace-edit path the language server uses
-- (ctx.apply_workspace_edit): all or nothing, one undo step per file, the
-- buffers left modified (y) or saved (s). Smart case, as grep and search.
-- It sets ctx.project_replace(); it needs ctx.last_grep from pmacs.grep,
-- ctx.await_loaded from pmacs.files and ctx.apply_workspace_edit from
-- pmacs.wsedit.
local M = {}

function M.setup(ctx)
  local ed, run, commands, join = ctx.ed, ctx.run, ctx.commands, ctx.paths.join

  local state = {regex = false}
  local load_wait_ms = 10000 -- how long a file the project replace opens may take to read

  local function smart_case(pattern) return pattern:find("%u") ~= nil end

  -- answer opens a one-key prompt: fn gets the key typed (the prompt
  -- closed), or nil for Esc.
  local function answer(label, fn)
    local answered = false
    ed.prompt(label, {
      on_change = function(text)
        if text == "" then return end
        answered = true
        ed.close_prompt()
        fn(text)
      end,
      on_cancel = function(why)
        if not answered and why ~= "replaced" then fn(nil) end
      end,
    })
  end

  -- walk asks about each match of buf in order and applies the accepted
  -- ones as one undo step.
  local function walk(buf, pattern, matches)
    local row, col = ed.cursor(buf)
    local first = 1
    for i, m in ipairs(matches) do
      if m.line > row or (m.line == row and m.byte_col >= col) then first = i break end
    end
    local order = {}
    for i = first, #matches do order[#order + 1] = matches[i] end
    for i = 1, first - 1 do order[#order + 1] = matches[i] end
    local accepted, i = {}, 1

    local function finish(apply)
      ed.clear_mark(buf)
      if not ed.valid(buf) then return end
      if not apply or #accepted == 0 then
        ed.message(("replace: nothing replaced (%d matches of %s)"):format(#matches, pattern))
        return
      end
      local n, err = ed.apply_text_edits(buf, accepted)
      if not n then ed.error("replace: " .. err) return end
      ed.message(("replaced %d of %d matches (C-z undoes them all)"):format(n, #matches))
    end

    local function ask()
      if i > #order then finish(true) return end
      local m = order[i]
      ed.set_cursor(buf, m.line, m.byte_end)
      ed.set_mark(buf, m.line, m.byte_col)
      answer(("replace %q with %q? (y/n/!/q) [%d of %d] "):format(m.old, m.text, i, #order), function(key)
        if key == nil then finish(false) return end
        if key == "y" or key == " " then
          accepted[#accepted + 1] = m
          i = i + 1
          ask()
        elseif key == "n" then
          i = i + 1
          ask()
        elseif key == "!" then
          for j = i, #order do accepted[#accepted + 1] = order[j] end
          finish(true)
        elseif key == "q" then
          finish(true)
        else
          ed.message("y replaces, n skips, ! replaces the rest, q stops, Esc replaces nothing")
          ask()
        end
      end)
    end
    ask()
  end

  local function replace_in(buf, pattern, replacement)
    if not ctx.can_edit(buf, "replace") then return end
    local ok, matches, err = pcall(ed.replace_matches, buf, {pattern = pattern, replacement = replacement,
      regex = state.regex, case_sensitive = smart_case(pattern)})
    if not ok then ed.error((tostring(matches):gsub("^.-replace_matches: ", "replace: "))) return end
    if not matches then ed.error("replace: " .. err) return end
    if #matches == 0 then ed.message("replace: no match for " .. pattern) return end
    walk(buf, pattern, matches)
  end

  local function regex_hint()
    ed.set_prompt_hint("  [" .. (state.regex and "regex, \\1 in the replacement" or "literal") .. "]  M-r: regex")
  end

  local function query_replace(buf)
    buf = buf or ed.current()
    if not ctx.can_edit(buf, "replace") then return end
    ed.prompt("replace: ", {
      keys = {["M-r"] = function() state.regex = not state.regex regex_hint() end},
      on_submit = function(pattern)
        if pattern == "" then return end
        ed.prompt(("replace %s with: "):format(pattern), {on_submit = function(replacement)
          replace_in(buf, pattern, replacement)
        end})
      end,
    })
    regex_hint()
  end
  ed.map("global", "M-%", query_replace, "replace in the buffer (literal or M-r regex with \\1 groups; y/n/! all/q; one undo step)")
  ctx.command_help.replace = "replace in the buffer, as M-%"
  commands.replace = ctx.no_arg("replace", function() query_replace() end)

  ------------------------------------------------------------ project-wide

  -- open_all opens the files that are not open yet, all at once, and
  -- waits (in a task) until every one is read: {path -> {buf, opened}},
  -- or nil and why one cannot be used.
  local function open_all(paths)
    local out = {}
    for _, path in ipairs(paths) do
      local buf, opened = ed.find(path), false
      if not buf then
        local err
        buf, err = ed.open(path)
        if not buf then return nil, err, out end
        opened = true
      end
      out[path] = {buf = buf, opened = opened}
    end
    for _, path in ipairs(paths) do
      local buf = out[path].buf
      local ok, err = ctx.await_loaded(buf, load_wait_ms)
      if err == "closed" then return nil, path .. " was closed before it was read", out end
      if err == "timeout" then return nil, ("%s took longer than %d s to read"):format(path, load_wait_ms / 1000), out end
      if not ok then return nil, err, out end
      if ed.readonly(buf) then return nil, path .. " is read-only", out end
    end
    return out
  end

  -- new_line returns line with the edits of one row (byte columns,
  -- in order) made.
  local function new_line(line, edits)
    local parts, at = {}, 0
    for _, m in ipairs(edits) do
      parts[#parts + 1] = line:sub(at + 1, m.byte_col)
      parts[#parts + 1] = m.text
      at = m.byte_end
    end
    parts[#parts + 1] = line:sub(at + 1)
    return table.concat(parts)
  end

  -- plan finds the replacements on the grep's rows, file by file: a
  -- list of {path, buf, opened, edits}.
  local function plan(g, replacement)
    local by_file, files = {}, {}
    for row = 1, ed.line_count(g.buf) - 1 do
      local m = ed.match_at(g.buf, row)
      if m then
        local path = join(g.root, m.file)
        if not by_file[path] then by_file[path] = {} files[#files + 1] = path end
        local rows = by_file[path]
        if rows[#rows] ~= m.line - 1 then rows[#rows + 1] = m.line - 1 end
      end
    end
    local out = {}
    local bufs, err, partial = open_all(files)
    if not bufs then
      for path, b in pairs(partial) do out[#out + 1] = {path = path, buf = b.buf, opened = b.opened, edits = {}} end
      return nil, err, out
    end
    for _, path in ipairs(files) do
      local buf, opened = bufs[path].buf, bufs[path].opened
      local rows = {}
      for _, r in ipairs(by_file[path]) do
        if r < ed.line_count(buf) then rows[#rows + 1] = r end
      end
      table.sort(rows)
      local ok, edits = pcall(ed.replace_matches, buf, {pattern = g.query, replacement = replacement,
        regex = g.regex, case_sensitive = smart_case(g.query), rows = rows})
      if not ok then return nil, (tostring(edits):gsub("^.-replace_matches: ", "")), out end
      out[#out + 1] = {path = path, buf = buf, opened = opened, edits = edits or {}}
    end
    return out
  end

  local function close_opened(files)
    for _, f in ipairs(files) do
      if f.opened and ed.valid(f.buf) and not ed.modified(f.buf) then ed.close(f.buf) end
    end
  end

  local function review(g, replacement, files)
    local buf = ed.find("*project-replace*") or ed.create("*project-replace*")
    local total, nfiles = 0, 0
    local lines, targets = {""}, {}
    for _, f in ipairs(files) do
      if #f.edits > 0 then nfiles = nfiles + 1 end
      local by_row, rows = {}, {}
      for _, m in ipairs(f.edits) do
        total = total + 1
        if not by_row[m.line] then by_row[m.line] = {} rows[#rows + 1] = m.line end
        table.insert(by_row[m.line], m)
      end
      for _, r in ipairs(rows) do
        local line = ed.get_lines(f.buf, r, r + 1)[1]
        lines[#lines + 1] = ("%s:%d: %s"):format(ctx.lsp.relative(f.path), r + 1, new_line(line, by_row[r]))
        targets[#lines - 1] = {path = f.path, row = r, col = by_row[r][1].byte_col}
      end
    end
    local head = ("replace %q with %q: %d matches in %d files (Enter opens a row)"):format(g.query, replacement, total, nfiles)
    lines[1] = head
    ed.set_lines(buf, 0, -1, lines)
    ed.set_highlights(buf, {{0, 0, 0, #head, "header"}})
    ed.map(buf, "Enter", function(b)
      local t = targets[ed.cursor(b)]
      if t then ctx.open_file(t.path, t.row, t.col) end
    end)
    ed.set_cursor(buf, 0, 0)
    ed.show(buf)
    return total, nfiles
  end

  -- apply makes the replacements through the workspace-edit path (in a
  -- task): all or nothing, one undo step per file; save writes them too.
  local function apply(files, save)
    local changes, touched = {}, {}
    for _, f in ipairs(files) do
      if #f.edits > 0 then
        local list = {}
        for _, m in ipairs(f.edits) do
          list[#list + 1] = {range = {start = {line = m.line, character = m.col},
            ["end"] = {line = m.end_line, character = m.end_col}}, newText = m.text}
        end
        changes[pmacs.uri.from_path(f.path)] = list
        touched[#touched + 1] = f.buf
      end
    end
    local n, nfiles = ctx.apply_workspace_edit({changes = changes})
    if not n then
      close_opened(files)
      ed.error("project-replace: nothing replaced: " .. nfiles)
      return
    end
    close_opened(files)
    if save then
      for _, buf in ipairs(touched) do ctx.save(buf) end
      ed.message(("project-replace: replaced %d matches in %d files, saving them"):format(n, nfiles))
    else
      ed.message(("project-replace: replaced %d matches in %d files; the buffers are modified (C-s saves, C-z undoes a file)"):format(n, nfiles))
    end
  end

  local function project_replace()
    local g = ctx.last_grep()
    if not g or g.query == "" or not ed.valid(g.buf) then
      ed.error("project-replace: grep first (C-f), then M-% in *grep*")
      return
    end
    local st = ed.grep_status(g.buf)
    if st and st.state == "running" then ed.message("project-replace: the grep is still searching") return end
    if not st or st.matches == 0 then ed.message("project-replace: the grep found nothing to replace") return end
    ed.prompt(("replace %s in the grep's %d matches with: "):format(g.query, st.matches), {on_submit = function(replacement)
      run(function()
        ed.message("project-replace: reading the files...")
        local files, err, partial = plan(g, replacement)
        if not files then
          close_opened(partial)
          ed.error("project-replace: " .. err)
          return
        end
        local total = review(g, replacement, files)
        if total == 0 then close_opened(files) ed.message("project-replace: nothing left to replace") return end
        answer(("apply %d replacements? (y: apply, s: apply and save, n: cancel) "):format(total), function(key)
          if key == "y" or key == "s" then
            run(function() apply(files, key == "s") end)
          else
            close_opened(files)
            ed.message("project-replace: nothing replaced")
          end
        end)
      end)
    end})
  end
  ctx.project_replace = project_replace
  ctx.command_help["project-replace"] = "replace the last grep's matches across the project (review, then y applies, s applies and saves)"
  commands["project-replace"] = ctx.no_arg("project-replace", project_replace)
end

return M
