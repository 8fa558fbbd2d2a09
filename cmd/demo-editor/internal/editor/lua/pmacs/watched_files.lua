-- pmacs.watched_files: the files other programs change, told to the
-- language servers that ask (workspace/didChangeWatchedFiles). A server
-- registers watchers (gopls: **/*.go, go.mod, ...); while one of a root's
-- servers has any, one w.watch follows that root, shared by every server
-- of the root, and each batch goes to each of them (client:file_changes
-- keeps what its globs and kinds want). A root inside the project is not
-- watched twice: its servers take the project watch's batches
-- (ctx.watch.subscribe, pmacs.disk). The watch, or the subscription, ends
-- when the root's last server withdraws its watchers or stops. It owns the
-- watches it starts.
-- Set up after pmacs.lsp: it adds a ctx.lsp.on_start hook.
local M = {}

function M.setup(ctx)
  local ed, w, run = ctx.ed, ctx.w, ctx.run
  local watches = {} -- root -> {stop =, task = (its own watch), clients = {[client] = true}}

  local function send(wt, batch)
    for c in pairs(wt.clients) do
      local _, err = c:file_changes(batch)
      if err then print("lsp: watched files: " .. err) end
    end
  end

  local function start_watch(root)
    local wt = {clients = {}}
    watches[root] = wt
    if ctx.watch and ctx.watch.covers(root) then
      wt.stop = ctx.watch.subscribe(function(batch) send(wt, batch) end)
      return wt
    end
    -- A task of its own, detached from the hook that starts it: the watch
    -- lives as long as the servers want it.
    wt.task = run{name = "lsp watch " .. root, function()
      local h = w.watch{root = root, key = "lsp-watch:" .. root}
      for batch in h:batches() do send(wt, batch) end
      local _, err = h:await()
      if watches[root] == wt then watches[root] = nil end
      if err ~= "cancelled" then ed.error("lsp: watching " .. root .. ": " .. tostring(err)) end
    end}
    wt.task:detach()
    wt.stop = function() wt.task:cancel("no server watches " .. root) end
    return wt
  end

  local function update(c)
    local root = c:root()
    local wt = watches[root]
    if #c:watchers() > 0 then
      wt = wt or start_watch(root)
      wt.clients[c] = true
    elseif wt then
      wt.clients[c] = nil
      if next(wt.clients) == nil then
        watches[root] = nil
        wt.stop()
      end
    end
  end

  table.insert(ctx.lsp.on_start, function(c) c:on_watchers(update) end)
end

return M
