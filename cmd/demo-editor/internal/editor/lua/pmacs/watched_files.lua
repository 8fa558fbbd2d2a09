-- pmacs.watched_files: the files other programs change, told to the
-- language servers that ask (workspace/didChangeWatchedFiles). A server
-- registers watchers (gopls: **/*.go, go.mod, ...); while one of a root's
-- servers has any, one w.watch follows that root, shared by every server
-- of the root, and each batch goes to each of them (client:file_changes
-- keeps what its globs and kinds want). The watch ends when the root's
-- last server withdraws its watchers or stops. It owns the watches.
-- Set up after pmacs.lsp: it adds a ctx.lsp.on_start hook.
local M = {}

function M.setup(ctx)
  local ed, w, run = ctx.ed, ctx.w, ctx.run
  local watches = {} -- root -> {task =, clients = {[client] = true}}

  local function start_watch(root)
    local wt = {clients = {}}
    watches[root] = wt
    -- A task of its own, detached from the hook that starts it: the watch
    -- lives as long as the servers want it.
    wt.task = run{name = "lsp watch " .. root, function()
      local h = w.watch{root = root, key = "lsp-watch:" .. root}
      for batch in h:batches() do
        for c in pairs(wt.clients) do
          local _, err = c:file_changes(batch)
          if err then print("lsp: watched files: " .. err) end
        end
      end
      local _, err = h:await()
      if watches[root] == wt then watches[root] = nil end
      if err ~= "cancelled" then ed.error("lsp: watching " .. root .. ": " .. tostring(err)) end
    end}
    wt.task:detach()
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
        wt.task:cancel("no server watches " .. root)
      end
    end
  end

  table.insert(ctx.lsp.on_start, function(c) c:on_watchers(update) end)
end

return M
