-- pmacs.git: git for file buffers in a work tree, through the git program
-- as process jobs. A buffer's gutter marks the rows that differ from the
-- file's version in the index (+ added, ~ changed, ‾ or _ where rows were
-- removed), recomputed on a worker (w.diff) 100 ms after the last edit;
-- the status line shows the branch, with * while the work tree differs
-- from HEAD. Both follow saves and changes of .git/index and HEAD made
-- outside the editor (a watch on the git directory). M-x next-hunk and
-- prev-hunk (M-} and M-{) move between the marked hunks, stage-hunk puts
-- the hunk at the cursor into the index (git apply --cached), revert-hunk
-- puts the index's text back into the buffer, git-blame says who last
-- changed the cursor's line, and git-status lists the changed files
-- (Enter opens one).
--
-- git reads the repository's own configuration, which can name programs
-- for it to run (core.fsmonitor, filters), so nothing here runs git for a
-- file of an untrusted workspace: the gutter starts once it is trusted.
-- It owns, per buffer, the index text and the hunks, and per repository
-- the watch and the status.
local M = {}

function M.setup(ctx)
  local ed, w, run = ctx.ed, ctx.w, ctx.run
  local async = pmacs.async
  local dirname = ctx.paths.dirname

  -- Above this size the index version of a file is not read: the gutter
  -- would hold another copy of a file too big to diff on every keystroke.
  local max_index_bytes = 16 * 1024 * 1024
  local debounce_ms = 100
  local git_timeout_ms = 30000

  ed.set_style("git.added", {fg = "green"})
  ed.set_style("git.changed", {fg = "blue"})
  ed.set_style("git.removed", {fg = "red"})

  local bufs = {}  -- buf -> {repo =, rel =, index = text | false (not in the index), hunks =, task =, gen =}
  local repos = {} -- gitdir -> {top =, gitdir =, bufs = {[buf] = true}, watch =, refresh =, status = text}
  local said_untrusted = false

  -- git runs git in dir; the result of w.system (code, stdout, stderr,
  -- truncated), or nil and the failure.
  local function git(dir, args, opts)
    opts = opts or {}
    -- --no-optional-locks: git status would otherwise refresh and write
    -- the index, which the watch below would see as a change to refresh
    -- for, over and over.
    local cmd = {"git", "--no-optional-locks", "-c", "core.quotepath=off", "--no-pager"}
    for _, a in ipairs(args) do cmd[#cmd + 1] = a end
    return w.system{cmd = cmd, cwd = dir, stdin = opts.stdin, max_output = opts.max_output or 1024 * 1024,
      timeout_ms = git_timeout_ms, key = opts.key}:await()
  end

  local function under(path, root)
    return path == root or path:sub(1, #root + 1) == root .. "/"
  end

  -- trusted says whether git may run for path: inside the editor's
  -- workspace once it is trusted.
  local function trusted(path)
    local st = pmacs.trust.status()
    if not st or st.status ~= "trusted" then return false end
    local root, real = ed.root()
    return under(path, root) or (real and under(path, real))
  end

  -- split_lines splits text at "\n", keeping each line's "\r".
  local function split_lines(text)
    local lines = {}
    for l in text:gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
    local tail = text:match("[^\n]*$")
    if tail ~= "" then lines[#lines + 1] = tail end
    return lines
  end

  -- ranges turns hunks into the gutter's ranges (0-based rows). nrows is
  -- the buffer's row count now, which an edit made while the diff ran may
  -- have changed: a range that would then overlap the one before it is
  -- left out (the edit's own diff follows).
  local function ranges(hunks, nrows)
    local out, next_free = {}, 0
    for _, h in ipairs(hunks) do
      local r
      if h.old_count == 0 then
        r = {h.new_start - 1, h.new_count, "+", "git.added"}
      elseif h.new_count == 0 then
        -- Rows removed: marked on the row after them, or under the last
        -- row when they were at the end.
        if h.new_start < nrows then
          r = {h.new_start, 0, "‾", "git.removed"}
        else
          r = {math.max(nrows - 1, 0), 0, "_", "git.removed"}
        end
      else
        r = {h.new_start - 1, h.new_count, "~", "git.changed"}
      end
      if r[1] >= next_free then
        out[#out + 1] = r
        next_free = r[1] + math.max(r[2], 1)
      end
    end
    return out
  end

  -- diff_now diffs buf's text against its index text on a worker and sets
  -- the gutter; inside a task, superseded by the next call for buf.
  local function diff_now(buf, st)
    if st.index == false then
      st.hunks = {}
      ed.set_sign_ranges(buf, "git", {})
      return
    end
    local hunks, err = w.diff{a = st.index, b = ed.text_snapshot(buf), key = "git-diff:" .. buf}:await()
    if bufs[buf] ~= st or not ed.valid(buf) then return end
    if not hunks then
      if err ~= "cancelled" then print("git: diff " .. ed.name(buf) .. ": " .. tostring(err)) end
      return
    end
    st.hunks = hunks
    ed.set_sign_ranges(buf, "git", ranges(hunks, ed.line_count(buf)))
  end

  -- schedule recomputes buf's gutter after debounce_ms without edits: a
  -- newer call cancels the older task (and the diff it waits on).
  local function schedule(buf, delay)
    local st = bufs[buf]
    if not st or st.index == nil then return end
    if st.task then st.task:cancel("superseded") end
    st.task = run{name = "git-gutter", function()
      if delay > 0 then async.sleep(delay) end
      diff_now(buf, st)
    end}
  end

  -- load_index reads the index version of buf's file, then diffs.
  local function load_index(buf, st)
    local r, err = git(st.repo.top, {"cat-file", "blob", ":" .. st.rel},
      {max_output = max_index_bytes, key = "git-index:" .. buf})
    if bufs[buf] ~= st then return end
    if not r then print("git: " .. tostring(err)) return end
    if r.code ~= 0 then
      st.index = false -- not in the index: untracked, nothing to mark
    elseif r.truncated then
      print(("git: %s: the index version is over %d MiB: no gutter"):format(st.rel, math.floor(max_index_bytes / (1024 * 1024))))
      st.index = nil
      ed.set_sign_ranges(buf, "git", nil)
      return
    else
      st.index = r.stdout
    end
    schedule(buf, 0)
  end

  -- refresh_status sets the branch and dirty mark of every buffer of repo.
  local function refresh_status(repo)
    local r = git(repo.top, {"status", "--porcelain=v2", "--branch"}, {key = "git-status:" .. repo.gitdir})
    if repos[repo.gitdir] ~= repo then return end
    local text = ""
    if r and r.code == 0 then
      local head = r.stdout:match("# branch%.head ([^\n]+)") or "?"
      if head == "(detached)" then
        local oid = r.stdout:match("# branch%.oid (%x+)")
        head = oid and oid:sub(1, 7) or head
      end
      -- Anything past the headers is a changed or untracked path; a
      -- truncated list is dirty too.
      local dirty = r.stdout:find("\n[^#]") ~= nil or r.stdout:find("^[^#]") ~= nil or r.truncated
      text = "git:" .. head .. (dirty and "*" or "")
    end
    repo.status = text
    for b in pairs(repo.bufs) do
      if ed.valid(b) then ed.set_status(b, text, "git") end
    end
  end

  -- refresh_repo reloads, after a change in the git directory (a commit,
  -- git add, a checkout), each buffer's index text and the status; a burst
  -- of changes makes one refresh.
  local function refresh_repo(repo, delay)
    if repo.refresh then repo.refresh:cancel("superseded") end
    repo.refresh = run{name = "git-refresh", function()
      if delay > 0 then async.sleep(delay) end
      for b in pairs(repo.bufs) do
        local st = bufs[b]
        if st then run(function() load_index(b, st) end) end
      end
      refresh_status(repo)
    end}
  end

  -- A file another program changes in a work tree may change its dirty
  -- mark: the project watch's changes (ctx.watch, pmacs.disk) refresh the
  -- status of the repositories they fall in, a burst making one refresh.
  local function status_soon(repo)
    if repo.status_task then repo.status_task:cancel("superseded") end
    repo.status_task = run{name = "git-status-refresh", function()
      async.sleep(debounce_ms * 3)
      refresh_status(repo)
    end}
  end
  if ctx.watch then
    ctx.watch.subscribe(function(batch)
      for _, repo in pairs(repos) do
        for _, c in ipairs(batch) do
          if c.op == "notice" or (under(c.path, repo.top) and not under(c.path, repo.gitdir)) then
            status_soon(repo)
            break
          end
        end
      end
    end)
  end

  -- watch_repo follows the git directory: a new index or HEAD (or a
  -- branch moved by a commit) refreshes the repository's buffers.
  local function watch_repo(repo)
    repo.watch = run{name = "git-watch", function()
      local h = w.watch{root = repo.gitdir, ignore = {"objects", "logs", "hooks", "lfs", "modules", "worktrees"},
        hidden = true, no_ignore = true, key = "git-watch:" .. repo.gitdir}
      for batch in h:batches() do
        for _, c in ipairs(batch) do
          local name = c.path:match("[^/]+$")
          if name == "index" or name == "HEAD" or c.path:find("/refs/", 1, true) or c.op == "notice" then
            refresh_repo(repo, debounce_ms)
            break
          end
        end
      end
      local _, err = h:await()
      if err ~= "cancelled" then print("git: watch " .. repo.gitdir .. ": " .. tostring(err)) end
    end}
  end

  local function forget(buf)
    local st = bufs[buf]
    if not st then return end
    bufs[buf] = nil
    if st.task then st.task:cancel("closed") end
    local repo = st.repo
    repo.bufs[buf] = nil
    if next(repo.bufs) == nil then
      repos[repo.gitdir] = nil
      if repo.watch then repo.watch:cancel("no buffer") end
      if repo.refresh then repo.refresh:cancel("no buffer") end
    end
  end

  -- attach finds buf's repository and starts its gutter and status.
  local function attach(buf)
    local path = ed.path(buf)
    if not path or bufs[buf] then return end
    if not trusted(path) then
      if not said_untrusted then
        said_untrusted = true
        print("git: the workspace is not trusted: no git gutter or status (M-x trust)")
      end
      return
    end
    run(function()
      local dir = dirname(path)
      local r = git(dir, {"rev-parse", "--show-toplevel", "--absolute-git-dir", "--show-prefix"})
      if not r or r.code ~= 0 or not ed.valid(buf) or ed.path(buf) ~= path or bufs[buf] then return end
      local top, gitdir, prefix = r.stdout:match("^([^\n]*)\n([^\n]*)\n([^\n]*)")
      if not top or top == "" then return end
      local repo = repos[gitdir]
      if not repo then
        repo = {top = top, gitdir = gitdir, bufs = {}, status = ""}
        repos[gitdir] = repo
        watch_repo(repo)
        run(function() refresh_status(repo) end)
      elseif repo.status ~= "" then
        ed.set_status(buf, repo.status, "git")
      end
      repo.bufs[buf] = true
      local st = {repo = repo, path = path, rel = prefix .. path:match("[^/]+$"), hunks = {}}
      bufs[buf] = st
      ed.set_sign_ranges(buf, "git", {})
      load_index(buf, st)
    end)
  end

  ed.on("open", attach)
  local function detach(buf)
    forget(buf)
    if ed.valid(buf) then
      ed.set_sign_ranges(buf, "git", nil)
      ed.set_status(buf, "", "git")
    end
  end

  ed.on("change", function(buf)
    local st = bufs[buf]
    if not st then return end
    if ed.path(buf) ~= st.path then
      detach(buf) -- saved as another file
      attach(buf)
      return
    end
    schedule(buf, debounce_ms)
  end)
  ed.on("save", function(buf)
    local st = bufs[buf]
    if st and ed.path(buf) ~= st.path then
      detach(buf)
      st = nil
    end
    if st then refresh_repo(st.repo, 0) else attach(buf) end
  end)
  ed.on("close", forget)
  ed.on("trust", function()
    for _, b in ipairs(ed.buffers()) do
      if b.path and not bufs[b.id] then
        attach(b.id)
      elseif bufs[b.id] and not trusted(b.path) then
        detach(b.id) -- untrusted again: git runs no more for it
      end
    end
  end)

  ------------------------------------------------------------ hunks

  -- hunk_rows is the rows a hunk marks: [first, last] (0-based).
  local function hunk_rows(h, nrows)
    if h.new_count == 0 then
      local r = math.min(h.new_start, math.max(nrows - 1, 0))
      return r, r
    end
    return h.new_start - 1, h.new_start + h.new_count - 2
  end

  local function current()
    local buf = ed.current()
    local st = bufs[buf]
    if not st then
      ed.message(ed.name(buf) .. ": not a file of a git work tree (or the workspace is not trusted)")
      return nil
    end
    return buf, st
  end

  local function goto_hunk(dir)
    local buf, st = current()
    if not buf then return end
    local row = ed.cursor(buf)
    local n = ed.line_count(buf)
    local target
    for i = (dir > 0 and 1 or #st.hunks), (dir > 0 and #st.hunks or 1), dir do
      local first = hunk_rows(st.hunks[i], n)
      if (dir > 0 and first > row) or (dir < 0 and first < row) then target = first break end
    end
    if not target then
      ed.message(#st.hunks == 0 and "no hunks" or (dir > 0 and "no hunk below" or "no hunk above"))
      return
    end
    ed.set_cursor(buf, target, 0)
  end

  -- hunk_at is the hunk marking the cursor's row.
  local function hunk_at(buf, st)
    local row, n = ed.cursor(buf), ed.line_count(buf)
    for _, h in ipairs(st.hunks) do
      local first, last = hunk_rows(h, n)
      if row >= first and row <= last then return h end
    end
    ed.message("no hunk at the cursor")
    return nil
  end

  -- patch is a one-hunk patch taking the index's text to the buffer's
  -- for h, without context (git apply --unidiff-zero).
  local function patch(buf, st, h)
    local old = split_lines(st.index)
    local out = {("diff --git a/%s b/%s"):format(st.rel, st.rel), "--- a/" .. st.rel, "+++ b/" .. st.rel}
    -- In the index after the patch, the hunk's new lines start where its
    -- old ones did.
    local ns
    if h.new_count > 0 then
      ns = h.old_count > 0 and h.old_start or h.old_start + 1
    else
      ns = h.old_count > 0 and h.old_start - 1 or h.old_start
    end
    out[#out + 1] = ("@@ -%d,%d +%d,%d @@"):format(h.old_start, h.old_count, ns, h.new_count)
    for i = h.old_start, h.old_start + h.old_count - 1 do out[#out + 1] = "-" .. old[i] end
    if h.old_count > 0 and h.old_start + h.old_count - 1 == #old and st.index:sub(-1) ~= "\n" then
      out[#out + 1] = "\\ No newline at end of file"
    end
    -- The buffer's rows lost their line breaks: a file whose index text
    -- ends its lines with CRLF gets them back so.
    local cr = st.index:find("\r\n", 1, true) and "\r" or ""
    if h.new_count > 0 then
      for _, l in ipairs(ed.get_lines(buf, h.new_start - 1, h.new_start - 1 + h.new_count)) do
        out[#out + 1] = "+" .. l .. cr
      end
    end
    return table.concat(out, "\n") .. "\n"
  end

  local function stage_hunk()
    local buf, st = current()
    if not buf or not st.index then return end
    local h = hunk_at(buf, st)
    if not h then return end
    local text = patch(buf, st, h)
    run(function()
      local r, err = git(st.repo.top, {"apply", "--cached", "--unidiff-zero", "-"}, {stdin = text})
      if not r then ed.error("stage-hunk: " .. tostring(err)) return end
      if r.code ~= 0 then ed.error("stage-hunk: git apply: " .. (r.stderr:match("[^\n]+") or ("exit " .. r.code))) return end
      ed.message(("staged the hunk at line %d of %s"):format(h.new_start, st.rel))
      if bufs[buf] == st then load_index(buf, st) end
    end)
  end

  local function revert_hunk()
    local buf, st = current()
    if not buf or not st.index then return end
    local h = hunk_at(buf, st)
    if not h then return end
    if not ctx.can_edit(buf, "revert-hunk") then return end
    local old = split_lines(st.index)
    local lines = {}
    for i = h.old_start, h.old_start + h.old_count - 1 do lines[#lines + 1] = (old[i]:gsub("\r$", "")) end
    local first = h.new_count > 0 and h.new_start - 1 or h.new_start
    ed.set_lines(buf, first, first + h.new_count, lines)
    ed.set_cursor(buf, math.min(first, ed.line_count(buf) - 1), 0)
    ed.message(("reverted the hunk at line %d to the index's text"):format(first + 1))
  end

  -- blame says who last changed the cursor's line, of the buffer's text
  -- as it is now (git blame --contents -).
  local function blame()
    local buf, st = current()
    if not buf then return end
    local row = ed.cursor(buf)
    local text = ed.get_text(buf)
    run(function()
      local r, err = git(st.repo.top, {"blame", "--porcelain", "-L", ("%d,%d"):format(row + 1, row + 1),
        "--contents", "-", "--", st.rel}, {stdin = text, key = "git-blame"})
      if not r then ed.error("git-blame: " .. tostring(err)) return end
      if r.code ~= 0 then ed.error("git-blame: " .. (r.stderr:match("[^\n]+") or ("exit " .. r.code))) return end
      local sha = r.stdout:match("^(%x+)")
      local author = r.stdout:match("\nauthor ([^\n]*)") or "?"
      local summary = r.stdout:match("\nsummary ([^\n]*)") or ""
      local when = tonumber(r.stdout:match("\nauthor%-time (%d+)") or "")
      if not sha then ed.error("git-blame: no answer for line " .. (row + 1)) return end
      if sha:match("^0+$") then
        ed.message(("line %d: not committed yet"):format(row + 1))
        return
      end
      ed.message(("line %d: %s %s %s: %s"):format(row + 1, sha:sub(1, 8), author,
        when and os.date("!%Y-%m-%d", when) or "", summary))
    end)
  end

  -- changed lists what git status names in dir's work tree: its top and
  -- the paths relative to it ({status =, path =} each: status is git's XY,
  -- and a rename names its new path), or nil and why. In a task.
  local function changed(dir)
    local r, err = git(dir, {"status", "--porcelain=v1"}, {key = "git-status-list:" .. dir})
    if not r then return nil, tostring(err) end
    if r.code ~= 0 then return nil, r.stderr:match("[^\n]+") or ("exit " .. r.code) end
    local t = git(dir, {"rev-parse", "--show-toplevel"})
    local top = t and t.code == 0 and t.stdout:match("[^\n]+") or dir
    local list = {}
    for e in r.stdout:gmatch("[^\n]+") do
      -- "XY path", or "XY old -> new" for a rename; a name git had to
      -- quote is left as it printed it.
      list[#list + 1] = {status = e:sub(1, 2), path = e:sub(4):match(" %-> (.*)$") or e:sub(4)}
    end
    return top, list
  end

  -- git_status lists the changed files of the current buffer's
  -- repository (or the workspace's) in *git-status*; Enter opens one.
  local function git_status()
    local buf = ed.current()
    local st = bufs[buf]
    local dir = st and st.repo.top or ed.root()
    if not trusted(dir .. "/") and not st then
      ed.error("git-status: the workspace is not trusted (M-x trust)")
      return
    end
    run(function()
      local top, list = changed(dir)
      if not top then ed.error("git-status: " .. list) return end
      local rows, paths = {("git status of %s (Enter opens)"):format(top)}, {}
      for _, c in ipairs(list) do
        rows[#rows + 1] = c.status .. " " .. c.path
        paths[#rows] = top .. "/" .. c.path
      end
      if #rows == 1 then rows[1] = ("git status of %s: nothing changed"):format(top) end
      local view = ed.create("*git-status*")
      ed.set_lines(view, 0, -1, rows)
      ed.map(view, "Enter", function(b)
        local p = paths[ed.cursor(b) + 1]
        if p then ctx.open_file(p) end
      end, "open the file")
      ed.show(view)
      ed.set_cursor(view, math.min(1, #rows - 1), 0)
    end)
  end

  local function add(name, fn, help, key)
    ctx.command_help[name] = help
    ctx.commands[name] = ctx.no_arg(name, fn)
    if key then ed.map("global", key, fn, help) end
  end
  add("next-hunk", function() goto_hunk(1) end, "git: the next changed hunk (M-})", "M-}")
  add("prev-hunk", function() goto_hunk(-1) end, "git: the previous changed hunk (M-{)", "M-{")
  add("stage-hunk", stage_hunk, "git: put the hunk at the cursor into the index")
  add("revert-hunk", revert_hunk, "git: put the index's text of the hunk at the cursor back")
  add("git-blame", blame, "git: who last changed the cursor's line, and why")
  add("git-status", git_status, "git: the changed files in *git-status* (Enter opens)")

  -- ctx.git.changed(dir) (in a task): the picker's "!" mode lists the
  -- changed files through it, nothing for an untrusted workspace.
  ctx.git = {bufs = bufs, repos = repos, changed = function(dir)
    if not trusted(dir .. "/") then return nil, "the workspace is not trusted (M-x trust)" end
    return changed(dir)
  end}
end

return M
