-- pmacs.wsedit: applying a WorkspaceEdit to the buffers and the disk.
-- One path for a rename's result and a server's workspace/applyEdit. It
-- runs in a task and may wait: a file not open is opened and its text read
-- first (a file the edit creates gets a new buffer, written by the first
-- save). Then every step is checked in order against the files as the
-- steps before it leave them (a rename's target, a deleted file, an edit
-- of a file by the name a rename gave it), and every file's edits are
-- checked; only if all of it can be done is any of it done, so the
-- server's answer says what happened. The text edits go first (one undo
-- step per file, sent to the server as didChange like any edit), then the
-- renames (making missing directories) and deletes, in the edit's order.
-- A refused edit changes nothing and closes the buffers it opened. The
-- buffers are left modified for the user to check and save. The steps
-- are planned in Go (ed.plan_workspace_edit): every path, as the steps
-- before it leave the tree, must lead into the workspace, checked before
-- anything opens, and the file operations run confined to it (w.fs's
-- roots option).
-- It sets ctx.apply_workspace_edit(edit[, client]) (client: the server
-- that made the edit, whose column units it counts; in a task: the number
-- of edits, of files and of file operations, or nil and why) and answers the
-- servers' workspace/applyEdit through it. Set up after pmacs.lsp.
local M = {}

function M.setup(ctx)
  local ed, w, lsp = ctx.ed, ctx.w, ctx.lsp
  local dirname = ctx.paths.dirname
  local relative, lsp_change, lsp_reopen, lsp_text_edit = lsp.relative, lsp.change, lsp.reopen, lsp.text_edit

  local load_wait_s = 10 -- how long a file the edit opens may take to read

  -- await_loaded waits, in a task, until buf's text is read; nil and why when
  -- it was closed first, could not be read, or took longer than load_wait_s.
  local function await_loaded(buf, path)
    local ok, err = ctx.await_loaded(buf, load_wait_s * 1000)
    if err == "closed" then return nil, relative(path) .. " was closed before it was read" end
    if err == "timeout" then
      return nil, string.format("%s took longer than %d s to read", relative(path), load_wait_s)
    end
    if not ok then return nil, err end
    if ed.readonly(buf) then return nil, relative(path) .. " is read-only (unreadable, binary or not writable)" end
    return true
  end

  -- within says whether path is base or lies under it.
  local function within(path, base)
    return path == base or path:sub(1, #base + 1) == base .. "/"
  end

  local function apply_workspace_edit(edit, client)
    if type(edit) ~= "table" then return nil, "the edit is not a WorkspaceEdit" end
    -- The columns count what the server that made the edit counts.
    local enc = client and client:encoding() or "utf-16"
    -- steps: the edit's changes in order: {kind = "edit", path, edits,
    -- version}, {kind = "create", path, options}, {kind = "rename", from,
    -- to, options}, {kind = "delete", path, options}.
    local steps = {}
    local function add(uri, tes, version)
      if type(uri) ~= "string" or type(tes) ~= "table" then return "a malformed text document edit" end
      local path, perr = pmacs.uri.to_path(uri)
      if not path then return "an edit of a document that is no local file: " .. perr end
      local list = {}
      for _, te in ipairs(tes) do
        if type(te) ~= "table" or type(te.range) ~= "table" or type(te.newText) ~= "string" then
          return "an edit of " .. relative(path) .. " that is not a plain text edit"
        end
        list[#list + 1] = lsp_text_edit(te, enc)
      end
      -- A version of 0 (null on the wire) names the file as the server read
      -- it from disk, not a version of the editor's.
      if type(version) ~= "number" or version <= 0 then version = nil end
      steps[#steps + 1] = {kind = "edit", path = path, edits = list, version = version}
    end
    local function opts(dc) return type(dc.options) == "table" and dc.options or {} end
    if type(edit.documentChanges) == "table" then
      for _, dc in ipairs(edit.documentChanges) do
        if type(dc) ~= "table" then return nil, "a malformed document change" end
        if dc.kind == "create" or dc.kind == "delete" then
          if type(dc.uri) ~= "string" then return nil, "a " .. dc.kind .. " operation without a uri" end
          local path, perr = pmacs.uri.to_path(dc.uri)
          if not path then return nil, "a " .. dc.kind .. " operation on no local file: " .. perr end
          steps[#steps + 1] = {kind = dc.kind, path = path, options = opts(dc)}
        elseif dc.kind == "rename" then
          if type(dc.oldUri) ~= "string" or type(dc.newUri) ~= "string" then
            return nil, "a rename operation without oldUri and newUri"
          end
          local from, ferr = pmacs.uri.to_path(dc.oldUri)
          local to, terr = pmacs.uri.to_path(dc.newUri)
          if not from or not to then return nil, "a rename operation on no local file: " .. (ferr or terr) end
          steps[#steps + 1] = {kind = "rename", from = from, to = to, options = opts(dc)}
        elseif dc.kind then
          return nil, "a file operation LSP does not define (" .. tostring(dc.kind) .. ")"
        else
          local td = dc.textDocument
          local err = add(td and td.uri, dc.edits, td and td.version)
          if err then return nil, err end
        end
      end
    elseif type(edit.changes) == "table" then
      local uris = {}
      for uri in pairs(edit.changes) do uris[#uris + 1] = uri end
      table.sort(uris)
      for _, uri in ipairs(uris) do
        local err = add(uri, edit.changes[uri])
        if err then return nil, err end
      end
    end

    -- The plan (ed.plan_workspace_edit, package wsedit) judges every step
    -- against the tree the steps before it leave and refuses the whole edit
    -- when any path leads outside the workspace, names a file that is not
    -- there or cannot be done as written; it asks the disk only about paths
    -- inside the root, on a helper goroutine. It names each file the edit
    -- changes by the path its buffer is to visit, with the step indexes of
    -- its groups of text edits, and the file operations to run, in order.
    local named = ed.root()
    local roots = {named}
    local bufs, opened = {}, {}
    local function refuse(why)
      for _, buf in ipairs(opened) do
        if ed.valid(buf) and not ed.modified(buf) then ed.close(buf) end
      end
      return nil, why .. ": nothing was applied"
    end
    local planned = pmacs.async.future()
    local token = ed.plan_workspace_edit(steps, function() planned:set() end)
    planned:await()
    local plan, perr = ed.workspace_edit_plan(token)
    if not plan then return refuse(perr) end

    -- per_path: the edits of each file as it is now (or of a created file
    -- by its path): a group for each text document edit, in order, each
    -- group's ranges in the text the groups before it leave; fresh: the
    -- files that start empty.
    local per_path, order, versions, fresh = {}, {}, {}, {}
    for _, f in ipairs(plan.files) do
      local groups = {}
      for _, g in ipairs(f.groups) do groups[#groups + 1] = steps[g].edits end
      order[#order + 1], per_path[f.path], versions[f.path] = f.path, groups, f.version
      if f.fresh then fresh[f.path] = true end
    end
    local moved = #plan.ops

    -- Every file edited is open and read before its edits are checked; the
    -- buffers opened here are closed again if the edit is refused.
    for _, path in ipairs(order) do
      local buf = ed.find(path)
      if not buf then
        local err
        buf, err = ed.open(path)
        if not buf then return refuse(err) end
        opened[#opened + 1] = buf
      end
      bufs[path] = buf
    end
    for _, path in ipairs(order) do
      local ok, err = await_loaded(bufs[path], path)
      if not ok then return refuse(err) end
    end
    -- An edit made for another version of a document than its buffer holds
    -- now (the user typed while the server worked) would land on the wrong
    -- text: refuse the whole edit.
    for _, path in ipairs(order) do
      local buf, want = bufs[path], versions[path]
      local doc = lsp.docs[buf]
      if want and doc and doc.client then
        lsp_change(buf) -- edits not yet sent count too
        local now = doc.client:version(path)
        if now ~= 0 and now ~= want then
          return refuse(string.format("the edit was made for version %d of %s, which has changed since (version %d)",
            want, relative(path), now))
        end
      end
    end
    -- Every file's first group of edits is checked before any is applied,
    -- so a bad range in one file leaves the others as they were. A later
    -- group's ranges are in the text the group before it leaves, so it is
    -- checked once that one is applied, and a bad one undoes them all.
    for _, path in ipairs(order) do
      if fresh[path] then
        -- Every edit of an empty file inserts at its start.
        for _, group in ipairs(per_path[path]) do
          for i, te in ipairs(group) do
            if te.line ~= 0 or te.col ~= 0 or te.end_line ~= 0 or te.end_col ~= 0 then
              return refuse(string.format("edit %d of %s does not insert at the start of the file it creates", i, relative(path)))
            end
          end
        end
      elseif per_path[path][1] then
        local k, err = ed.check_text_edits(bufs[path], per_path[path][1])
        if not k then return refuse(err) end
      end
    end
    local n, steps_done = 0, {}
    for _, path in ipairs(order) do
      local groups, buf = per_path[path], bufs[path]
      steps_done[buf] = 0
      if fresh[path] then
        -- The inserts are the file's text: a group's in their order, and
        -- each group's before the text of the groups before it. A new
        -- buffer ends its last row with a line break, so that one is not
        -- a row.
        local parts = {}
        for g = #groups, 1, -1 do
          for _, te in ipairs(groups[g]) do parts[#parts + 1] = te.text end
        end
        ed.set_lines(buf, 0, -1, {(table.concat(parts):gsub("\n$", ""))})
        n, steps_done[buf] = n + #parts, 1
      elseif groups[1] then
        n, steps_done[buf] = n + assert(ed.apply_text_edits(buf, groups[1])), 1
      end
    end
    for _, path in ipairs(order) do
      local buf = bufs[path]
      for g = 2, fresh[path] and 0 or #per_path[path] do
        local k, err = ed.check_text_edits(buf, per_path[path][g])
        if not k then
          for b, count in pairs(steps_done) do
            for _ = 1, count do ed.undo(b) end
          end
          return refuse(err)
        end
        n, steps_done[buf] = n + assert(ed.apply_text_edits(buf, per_path[path][g])), steps_done[buf] + 1
      end
    end
    if moved == 0 then return n, #order end

    -- The file operations, in order. Each was checked, but the disk can
    -- still refuse one (permissions, a file made meanwhile): the ones before
    -- it stay done, and the answer says which failed. The edits already in
    -- the buffers stay too (undo takes them back).
    for _, buf in ipairs(ed.buffers()) do
      if lsp.docs[buf.id] then lsp_change(buf.id) end -- the servers hear the edits under the old names
    end
    -- A renamed file's buffer visits its new path (the editor follows a
    -- completed rename): its server document moves with it, whether or not
    -- a later operation fails.
    local function follow_docs()
      for _, buf in ipairs(ed.buffers()) do
        local doc = lsp.docs[buf.id]
        if doc and doc.path ~= buf.path then lsp_reopen(buf.id) end
      end
    end
    local done = 0
    local function failed(op, err)
      follow_docs()
      return nil, string.format("%d of %d file operations done; %s %s failed: %s", done, moved, op.kind,
        relative(op.name), err)
    end
    for _, op in ipairs(plan.ops) do
      if op.kind == "rename" then
        -- The target's missing directories, outermost first, as the
        -- operations before this one left the disk (never above the root).
        local missing, d = {}, dirname(op.to)
        while d ~= named and within(d, named) do
          local e, err, code = w.fs.stat(d, {roots = roots}):await()
          if e then break end
          if code ~= "ENOENT" then return failed(op, err) end
          table.insert(missing, 1, d)
          d = dirname(d)
        end
        for _, dir in ipairs(missing) do
          local ok, err = w.fs.mkdir(dir, {roots = roots}):await()
          if not ok then return failed(op, err) end
        end
        local ok, err = w.fs.rename(op.from, op.to, {overwrite = op.overwrite, roots = roots}):await()
        if not ok then return failed(op, err) end
      else
        local ok, err = w.fs.remove(op.path, {roots = roots}):await()
        if not ok then return failed(op, err) end
        for _, b in ipairs(ed.buffers()) do
          if b.path and within(b.path, op.path) then ed.close(b.id) end
        end
      end
      done = done + 1
    end
    follow_docs()
    return n, #order, done
  end

  -- A server's workspace/applyEdit goes through the same path as a
  -- rename's edit; the hook waits while the files it opens are read,
  -- and the server hears the outcome.
  lsp.on_start[#lsp.on_start + 1] = function(c)
    c:on_apply_edit(function(client, edit)
      local n, files = apply_workspace_edit(edit, client)
      if not n then ed.error("lsp: the server's edit was not applied: " .. files) return false, files end
      ed.message(string.format("lsp: the server applied %d edits in %d files", n, files))
      return true
    end)
  end
  ctx.apply_workspace_edit = apply_workspace_edit
end

return M
