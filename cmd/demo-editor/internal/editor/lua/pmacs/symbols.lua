-- pmacs.symbols: the symbols the language server knows. M-i (M-x outline)
-- lists the shown file's symbols (textDocument/documentSymbol, the
-- DocumentSymbol tree or the flat SymbolInformation list) in *outline*,
-- indented by nesting, each with its kind; Enter jumps there, recorded in
-- the jump list. M-x symbols ranks the same symbols in a picker as you
-- type (w.fuzzy on a source sent once). M-t (M-x workspace-symbols) asks
-- the server for the workspace's symbols (workspace/symbol) on every
-- keystroke, each request superseding the last, and lists the answer as
-- its batches arrive; Enter opens the symbol. It owns *outline* and
-- *symbols*. Set up after pmacs.lsp.
local M = {}

local kind_names = {"file", "module", "namespace", "package", "class", "method", "property", "field",
  "constructor", "enum", "interface", "function", "variable", "constant", "string", "number", "boolean",
  "array", "object", "key", "null", "enum member", "struct", "event", "operator", "type parameter"}

-- kind_name names a SymbolKind (1..26).
function M.kind_name(kind)
  return kind_names[kind] or "symbol"
end

-- The most symbols one list shows: a generated file can hold tens of
-- thousands, and the rows are built on the main loop.
local max_symbols = 20000

-- start is where a symbol's range starts, nil when it has none.
local function start_of(s)
  local r = type(s) == "table" and (s.range or (type(s.location) == "table" and s.location.range))
  return type(r) == "table" and type(r.start) == "table" and r.start or nil
end

-- in_order returns the symbols of list that have a place, by where they
-- start: servers list them in their own order (typescript-language-server
-- by name).
local function in_order(list)
  local out = {}
  for _, s in ipairs(type(list) == "table" and list or {}) do
    if start_of(s) then out[#out + 1] = s end
  end
  table.sort(out, function(a, b)
    local p, q = start_of(a), start_of(b)
    if p.line ~= q.line then return p.line < q.line end
    return p.character < q.character
  end)
  return out
end

-- flatten turns a documentSymbol answer into rows {name, kind, detail,
-- depth, line, character}, by position, a parent before its children. A
-- DocumentSymbol's place is its selectionRange (the name); a
-- SymbolInformation's is its location, and its depth the number of the
-- symbols before it whose range holds its range.
function M.flatten(result)
  local out = {}
  local function add(s, depth)
    if #out >= max_symbols or type(s) ~= "table" or type(s.name) ~= "string" then return end
    local r = s.selectionRange or s.range or (type(s.location) == "table" and s.location.range)
    if type(r) ~= "table" or type(r.start) ~= "table" then return end
    out[#out + 1] = {name = s.name, kind = s.kind, detail = s.detail, depth = depth,
      line = r.start.line, character = r.start.character,
      uri = type(s.location) == "table" and s.location.uri or nil, range = s.range or (s.location and s.location.range)}
    for _, c in ipairs(in_order(s.children)) do add(c, depth + 1) end
  end
  local flat = false
  for _, s in ipairs(in_order(result)) do
    if type(s) == "table" and s.location then flat = true end
    add(s, 0)
  end
  if flat then
    local function holds(a, b)
      local as, ae, bs, be = a.range.start, a.range["end"], b.range.start, b.range["end"]
      local function le(p, q) return p.line < q.line or (p.line == q.line and p.character <= q.character) end
      return a ~= b and le(as, bs) and le(be, ae) and not (le(bs, as) and le(ae, be))
    end
    local open = {}
    for _, row in ipairs(out) do
      while #open > 0 and not (row.range and holds(open[#open], row)) do open[#open] = nil end
      row.depth = #open
      if row.range then open[#open + 1] = row end
    end
  end
  return out
end

function M.setup(ctx)
  local ed, w, run, lsp = ctx.ed, ctx.w, ctx.run, ctx.lsp

  -- document_symbols asks buf's server for its symbols, in a task: the
  -- rows of M.flatten, or nil and why.
  local function document_symbols(buf)
    local doc = lsp.docs[buf]
    if not doc or not doc.client then return nil, "no language server for this buffer" end
    if not lsp.offers(doc.client, "textDocument/documentSymbol") then
      return nil, "the language server does not list a file's symbols"
    end
    lsp.change(buf)
    local h = doc.client:request("textDocument/documentSymbol", {textDocument = {uri = pmacs.uri.from_path(doc.path)}},
      {key = "symbols:" .. buf, timeout_ms = 30000})
    -- Whole: the rows are sorted by position, across the answer.
    local res, err = h:await()
    if not res then return nil, err end
    return M.flatten(res), doc.path
  end

  local function jump_to(path, row)
    if row then lsp.jump(path, row.line, row.character) end
  end

  ------------------------------------------------------------ the outline

  local outline = {rows = {}, path = nil}
  local function show_outline(buf)
    local name = ed.name(buf)
    run{name = "outline", function()
      local rows, path = document_symbols(buf)
      if not rows then if path ~= "cancelled" then ed.message("outline: " .. path) end return end
      local ob = ed.find("*outline*") or ed.create("*outline*")
      ed.map(ob, "Enter", function(b) jump_to(outline.path, outline.rows[select(1, ed.cursor(b))]) end)
      local lines = {string.format("outline of %s: %d symbols (Enter jumps)", name, #rows)}
      for i, r in ipairs(rows) do
        local detail = type(r.detail) == "string" and r.detail ~= "" and ("  " .. r.detail:gsub("\n.*", "")) or ""
        lines[i + 1] = string.format("%s%s  %s%s  :%d", string.rep("  ", r.depth), r.name, M.kind_name(r.kind), detail, r.line + 1)
      end
      outline.rows, outline.path = rows, path
      ed.set_lines(ob, 0, -1, lines)
      ed.set_highlights(ob, {{0, 0, 0, #lines[1], "header"}})
      ed.show(ob)
      ed.set_cursor(ob, #rows > 0 and 1 or 0, 0)
    end}
  end
  ed.map("global", "M-i", function(buf) show_outline(buf) end, "language server: the file's symbols in *outline* (Enter jumps)")
  ctx.command_help.outline = "the shown file's symbols in *outline*, by nesting (language server)"
  ctx.commands.outline = ctx.no_arg("outline", function() show_outline(ed.current()) end)

  ------------------------------------------------------------ pickers

  -- open_list opens *symbols* under a prompt: update(text, show) runs in a
  -- task for every edit of the query (the previous one cancelled), show
  -- replacing the list with rows {text, spans, go}; Enter runs the
  -- selected row's go.
  local list = {rows = {}, task = nil}
  local function open_list(label, update, on_close)
    local lb = ed.find("*symbols*") or ed.create("*symbols*", {list = false})
    local function pick()
      local r = list.rows[select(1, ed.cursor(lb))] or list.rows[1]
      if list.task then list.task:cancel("closed") end
      if on_close then on_close() end
      if not r then ed.message("nothing to open") return end
      r.go()
    end
    ed.map(lb, "Enter", pick)
    local function show(head, rows)
      if not ed.valid(lb) then return end
      local lines, spans = {head}, {{0, 0, 0, #head, "header"}}
      for i, r in ipairs(rows) do
        lines[i + 1] = r.text
        for _, p in ipairs(r.positions or {}) do spans[#spans + 1] = {i, p - 1, i, p, "match"} end
      end
      list.rows = rows
      ed.set_lines(lb, 0, -1, lines)
      ed.set_highlights(lb, spans)
      ed.set_cursor(lb, #rows > 0 and 1 or 0, 0)
    end
    local function changed(text)
      if list.task then list.task:cancel("superseded") end
      list.task = run{name = "symbols", function() update(text, show) end}
    end
    ed.show(lb)
    ed.prompt(label, {
      on_change = changed,
      on_submit = pick,
      on_cancel = function(why)
        if list.task then list.task:cancel("closed") end
        if on_close then on_close() end
        if why ~= "key" then return end
        local prev = ed.previous()
        if prev then ed.show(prev) end
      end,
    })
    changed("")
  end

  -- M-x symbols: the shown file's symbols, ranked as you type.
  local function pick_document_symbol(buf)
    local name = ed.name(buf)
    run{name = "symbols", function()
      local rows, path = document_symbols(buf)
      if not rows then if path ~= "cancelled" then ed.message("symbols: " .. path) end return end
      local texts = {}
      for i, r in ipairs(rows) do texts[i] = r.name .. "  " .. M.kind_name(r.kind) end
      local source = w.fuzzy_source(texts)
      local freed = {done = false}
      local function free()
        if not freed.done then freed.done = true w.fuzzy_free(source) end
      end
      open_list(string.format("symbols of %s: ", name), function(query, show)
        local ranking, err = w.fuzzy{source = source, query = query, limit = 200, key = "symbols"}:await()
        if not ranking then if err ~= "cancelled" then ed.error("symbols: " .. err) end return end
        local out = {}
        for i, m in ipairs(ranking) do
          local r = rows[m.index]
          out[i] = {text = m.text .. "  :" .. (r.line + 1), positions = m.positions, go = function() jump_to(path, r) end}
        end
        show(string.format("symbols %q: %d of %d (Enter jumps)", query, ranking.total or #out, #rows), out)
      end, free)
    end}
  end
  ctx.command_help.symbols = "pick one of the shown file's symbols, ranked as you type (language server)"
  ctx.commands.symbols = ctx.no_arg("symbols", function() pick_document_symbol(ed.current()) end)

  -- M-t: the workspace's symbols, asked again on every keystroke.
  local max_workspace_rows = 500
  local function pick_workspace_symbol(buf)
    local doc = lsp.docs[buf]
    local client = doc and doc.client
    if not client then ed.message("no language server for this buffer") return end
    if not lsp.offers(client, "workspace/symbol") then
      ed.message("the language server does not search the workspace's symbols") return
    end
    open_list("workspace symbols: ", function(query, show)
      -- The key supersedes the previous keystroke's request: the server
      -- hears $/cancelRequest, and its late answer is dropped.
      local h = client:request("workspace/symbol", {query = query}, {key = "workspace-symbol", timeout_ms = 30000})
      local rows = {}
      show(string.format("workspace symbols %q: searching...", query), rows)
      for batch in h:batches() do
        for _, s in ipairs(batch) do
          local loc = type(s) == "table" and s.location
          local path = type(loc) == "table" and loc.uri and pmacs.uri.to_path(loc.uri)
          if path and #rows < max_workspace_rows then
            local r = type(loc.range) == "table" and loc.range.start or {line = 0, character = 0}
            local where = string.format("%s:%d", lsp.relative(path), r.line + 1)
            local container = type(s.containerName) == "string" and s.containerName ~= "" and (" in " .. s.containerName) or ""
            rows[#rows + 1] = {text = string.format("%s  %s%s  %s", s.name, M.kind_name(s.kind), container, where),
              go = function() lsp.jump(path, r.line, r.character) end}
          end
        end
        show(string.format("workspace symbols %q: %d...", query, #rows), rows)
      end
      local ok, err = h:await()
      if not ok then
        if err ~= "cancelled" then show(string.format("workspace symbols %q: %s", query, tostring(err)), rows) end
        return
      end
      show(string.format("workspace symbols %q: %d (Enter opens)", query, #rows), rows)
    end)
  end
  ed.map("global", "M-t", function(buf) pick_workspace_symbol(buf) end, "language server: the workspace's symbols, asked as you type")
  ctx.command_help["workspace-symbols"] = "pick a symbol of the workspace, the server asked on every keystroke (language server)"
  ctx.commands["workspace-symbols"] = ctx.no_arg("workspace-symbols", function() pick_workspace_symbol(ed.current()) end)
end

return M
