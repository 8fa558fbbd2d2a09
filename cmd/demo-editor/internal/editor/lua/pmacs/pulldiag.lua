-- pmacs.pulldiag: pull diagnostics. A server that offers them
-- (textDocument/diagnostic: pyright registers it, gopls with its
-- pullDiagnostics option, recent clangd) may publish nothing and wait to be
-- asked: each such server of a buffer is asked when the document opens and
-- after its edits, once typing pauses for debounce_ms, a newer pull
-- superseding one still out. The client sends the last report's resultId,
-- so a server with nothing new answers "unchanged" and what is shown stays.
-- A server that also offers workspace diagnostics is asked for them once
-- it serves a document and whenever it says they changed
-- (workspace/diagnostic/refresh), which also pulls each open document
-- again. The reports reach the gutter, the status line and *diagnostics*
-- as published ones do (pmacs.lsp's on_diagnostics). Set up after
-- pmacs.lsp; it owns nothing the other modules read.
local M = {}

function M.setup(ctx)
  local ed, run, lsp = ctx.ed, ctx.run, ctx.lsp
  local debounce_ms = 150
  local pull_wait_ms = 30000

  local function offers_pull(c) return c:supports("textDocument/diagnostic") end

  -- pull asks one server for buf's diagnostics, in a task; a server that
  -- cancels the pull (ServerCancelled: it was busy) is asked once more.
  local function pull(buf, s, again)
    local doc = lsp.docs[buf]
    if not doc or not offers_pull(s.client) then return end
    run{name = "pull diagnostics", function()
      local _, err, code = s.client:pull_diagnostics(doc.path,
        {key = "pull:" .. doc.path .. "@" .. s.name, timeout_ms = pull_wait_ms}):await()
      if not err or err == "cancelled" then return end
      if code == "ServerCancelled" and not again then
        pmacs.async.sleep(debounce_ms)
        if lsp.docs[buf] == doc then pull(buf, s, true) end
        return
      end
      print("lsp: " .. s.name .. ": diagnostics of " .. lsp.relative(doc.path) .. ": " .. err)
    end}
  end

  local function pull_workspace(s)
    if not s.client:supports("workspace/diagnostic") then return end
    run{name = "pull workspace diagnostics", function()
      local _, err = s.client:pull_workspace_diagnostics({key = "pull-workspace@" .. s.name, timeout_ms = pull_wait_ms}):await()
      if err and err ~= "cancelled" then print("lsp: " .. s.name .. ": workspace diagnostics: " .. err) end
    end}
  end

  -- slot finds client's entry in buf's document.
  local function slot(buf, client)
    local doc = lsp.docs[buf]
    for _, s in ipairs(doc and doc.clients or {}) do
      if s.client == client then return s end
    end
  end

  local asked_workspace = setmetatable({}, {__mode = "k"})
  lsp.on_open[#lsp.on_open + 1] = function(buf, client)
    local s = slot(buf, client)
    if not s then return end
    pull(buf, s)
    if not asked_workspace[client] then
      asked_workspace[client] = true
      pull_workspace(s)
    end
  end

  -- waiting: buf -> the task that pulls once typing pauses.
  local waiting = {}
  lsp.after_change[#lsp.after_change + 1] = function(buf)
    local doc = lsp.docs[buf]
    local want = false
    for _, s in ipairs(doc and doc.clients or {}) do
      if offers_pull(s.client) then want = true end
    end
    if not want then return end
    if waiting[buf] and not waiting[buf]:done() then waiting[buf]:cancel("superseded") end
    waiting[buf] = run{name = "pull diagnostics after edits", function()
      pmacs.async.sleep(debounce_ms)
      waiting[buf] = nil
      local now = lsp.docs[buf]
      for _, s in ipairs(now and now.clients or {}) do pull(buf, s) end
    end}
  end
  ed.on("close", function(buf) waiting[buf] = nil end)

  -- A refresh, taken once per client, pulls every document it serves and
  -- its workspace diagnostics again.
  ed.on("frame", function()
    local refreshed = {}
    for buf, doc in pairs(lsp.docs) do
      for _, s in ipairs(doc.clients) do
        local r = refreshed[s.client]
        if r == nil then
          r = s.client:diagnostic_refresh()
          refreshed[s.client] = r
          if r then pull_workspace(s) end
        end
        if r then pull(buf, s) end
      end
    end
  end)
end

return M
