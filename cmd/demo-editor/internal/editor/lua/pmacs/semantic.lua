-- pmacs.semantic: semantic highlighting from the language server. When a
-- buffer's server offers semantic tokens, its tokens colour the buffer in a
-- layer over the tree-sitter colours (ed.set_semantic_tokens): a token's
-- colour wins where it speaks, tree-sitter's shows elsewhere. On open the
-- visible rows are asked first (semanticTokens/range, when offered), so
-- the first screen is coloured before the whole file is; then the whole
-- file, and again after every change (client:semantic_tokens: by delta
-- when the server offers it); a server that refuses the whole file gives
-- the visible rows, asked again as the view moves. Each request supersedes the one before it,
-- and an answer is painted only if the document's version is still the
-- one it was asked for. The tokens never become Lua tables: they go from
-- the client to the editor as one value, converted off the main loop. It
-- owns the per-buffer request state and M-x semantic-highlighting, and
-- turns on gopls's semantic tokens (an opt-in setting of gopls).
local M = {}

-- groups maps the protocol's token types to the editor's highlight groups
-- (ed.set_style styles them); a type not here gets "semantic.<type>",
-- which has no style unless a script gives it one. suffixes maps
-- modifiers to a suffix of the type's group: "variable.readonly" falls
-- back to "variable" unless it has a style of its own.
M.groups = {
  namespace = "namespace", type = "type", class = "type", enum = "type", interface = "type",
  struct = "type", typeParameter = "type", parameter = "variable.parameter", variable = "variable",
  property = "property", enumMember = "constant", event = "variable", ["function"] = "function",
  method = "method", macro = "constant.macro", keyword = "keyword", modifier = "keyword",
  comment = "comment", string = "string", number = "number", regexp = "string",
  operator = "operator", decorator = "attribute", label = "label",
}
M.suffixes = {readonly = "readonly", defaultLibrary = "builtin", deprecated = "deprecated"}

function M.setup(ctx)
  local ed, run, lsp = ctx.ed, ctx.run, ctx.lsp
  local enabled = true
  local state = {} -- buf -> {gen = request generation, full = a whole-file answer painted}
  local maps = setmetatable({}, {__mode = "k"}) -- client -> the legend's map for ed.set_semantic_tokens
  local said = {} -- what a failure was already told in *messages*
  -- on_paint: functions called with (buf, kind) once tokens are painted
  -- ("range" or "full"): benchmarks and tests wait on it.
  local on_paint = {}

  -- gopls sends semantic tokens only when its settings ask for them.
  local go = lsp.servers.go
  go.settings = go.settings or {}
  go.settings.gopls = go.settings.gopls or {}
  go.settings.gopls.semanticTokens = true

  -- legend_map is the map of client's legend: from its initialize
  -- capabilities, or its registration of textDocument/semanticTokens.
  local function legend_map(c)
    if maps[c] then return maps[c] end
    local caps = c:capabilities()
    local prov = caps and caps.semanticTokensProvider
    if type(prov) ~= "table" then
      for _, r in ipairs(c:registrations()) do
        if r.method == "textDocument/semanticTokens" then prov = r.options end
      end
    end
    local legend = type(prov) == "table" and prov.legend
    if type(legend) ~= "table" then return nil end
    local types, mods = {}, {}
    for i, name in ipairs(legend.tokenTypes or {}) do
      types[i] = M.groups[name] or ("semantic." .. tostring(name))
    end
    for i, name in ipairs(legend.tokenModifiers or {}) do mods[i] = M.suffixes[name] or false end
    maps[c] = {types = types, modifiers = mods}
    return maps[c]
  end

  local function painted(buf, kind)
    for _, hook in ipairs(on_paint) do hook(buf, kind) end
  end

  local function failed(name, err, code)
    if err == "cancelled" or code == "ContentModified" or code == "RequestCancelled" then return end
    local msg = "semantic tokens: " .. name .. ": " .. tostring(err)
    if not said[msg] then said[msg] = true print(msg) end
  end

  -- refresh asks for buf's tokens: the visible rows first when nothing
  -- was painted yet and the server offers ranges, and the whole file.
  local function refresh(buf)
    local doc = lsp.docs[buf]
    if not enabled or not doc or not doc.client or not ed.valid(buf) then return end
    local c, path = doc.client, doc.path
    if c:status().state ~= "running" then return end
    local s = state[buf]
    if not s or s.client ~= c then
      s = {gen = 0, client = c}
      state[buf] = s
    end
    -- A server that offers no tokens (or no legend) is not asked again
    -- until the document's next change.
    local map = c:supports("textDocument/semanticTokens/full") and legend_map(c)
    if not map then return end
    s.gen = s.gen + 1
    -- The server answers for the text as it is now (the edits so far went
    -- out before the request): an answer is painted only on that text.
    local gen, version, rev = s.gen, c:version(path), ed.revision(buf)
    local key = "semantic:" .. buf
    local function current()
      return state[buf] == s and s.gen == gen and enabled and ed.valid(buf) and c:version(path) == version
    end
    local ranges = c:supports("textDocument/semanticTokens/range")
    if (not s.full or s.range_only) and ranges then
      local top, bottom = ed.visible_rows(buf)
      local h = c:semantic_tokens(path, {key = key .. ":range", compact = true, timeout_ms = 30000,
        range = {top, math.max(math.min(bottom, ed.line_count(buf)), top + 1)}})
      run{name = "semantic tokens (visible rows)", function()
        local st, err, code = h:await()
        if not st then failed(path, err, code) return end
        if st == true or not current() or (s.full and not s.range_only) then return end
        ed.set_semantic_tokens(buf, st, map, function(ok)
          if ok then painted(buf, "range") end
        end, rev)
      end}
    end
    if s.range_only then return end
    local h = c:semantic_tokens(path, {key = key, compact = true, timeout_ms = 30000})
    run{name = "semantic tokens", function()
      local st, err, code = h:await()
      if not st then
        failed(path, err, code)
        -- A server that will not give the whole file (gopls refuses files
        -- over 100,000 bytes) gives the visible rows, asked again when
        -- the view moves.
        if code ~= nil and code ~= "ContentModified" and code ~= "RequestCancelled" and ranges and state[buf] == s then
          s.range_only = true
          s.full = true
        end
        return
      end
      if not current() then return end
      if st == true then ed.clear_semantic_tokens(buf) return end -- a null answer: no tokens
      ed.set_semantic_tokens(buf, st, map, function(ok)
        if ok then
          s.full = true
          painted(buf, "full")
        end
      end, rev)
    end}
  end

  -- A document gets its client some frames after it opens (the server
  -- starts, the file is sent): the first frame that finds it asks.
  ed.on("frame", function()
    if not enabled then return end
    for buf, doc in pairs(lsp.docs) do
      if doc.client and (not state[buf] or state[buf].client ~= doc.client) then refresh(buf) end
    end
  end)
  table.insert(lsp.after_change, refresh)
  ed.on("view", function(buf)
    if state[buf] and state[buf].range_only then refresh(buf) end
  end)
  ed.on("close", function(buf) state[buf] = nil end)

  local function toggle()
    enabled = not enabled
    for buf in pairs(lsp.docs) do
      state[buf] = nil
      if ed.valid(buf) then ed.clear_semantic_tokens(buf) end
    end
    -- Off, the pending requests' answers find enabled false and paint
    -- nothing; on, every document is asked again.
    for buf in pairs(lsp.docs) do refresh(buf) end
    ed.message("semantic highlighting " .. (enabled and "on" or "off"))
  end
  ctx.command_help["semantic-highlighting"] = "toggle colours from the language server's semantic tokens (over the syntax colours)"
  ctx.commands["semantic-highlighting"] = ctx.no_arg("semantic-highlighting", toggle)

  ctx.semantic = {on_paint = on_paint, refresh = refresh, legend_map = legend_map, enabled = function() return enabled end}
end

return M
