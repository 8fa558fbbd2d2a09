-- pmacs.lsp: the language server client. Go files are synced with gopls,
-- C and C++ with clangd, Python with pyright, TypeScript and JavaScript
-- with typescript-language-server
-- (from the project's .bin/ once the workspace is trusted, else from PATH
-- outside it: pmacs.trust.find; a missing server is only noted in
-- *messages*). Edits go out as incremental didChange from ed.take_edits,
-- never a diff of the text. Other servers: add an entry to ctx.lsp.servers
-- ({name, program, args, markers, settings}, by the language ed.language
-- names), or
-- a list of them: a buffer is then synced with each server found, their
-- diagnostics, code actions, hovers, definitions and references merged and
-- labelled with the server's name.
-- It owns the clients, the documents synced with them and their
-- diagnostics (the gutter signs, *diagnostics*), and the keys M-.
-- (definition), M-k (hover), M-? (references) and M-e (diagnostics). It
-- sets ctx.lsp: the documents by buffer, the sync and request functions
-- the other language features use, and the after_change and on_start
-- hook lists they add to. A document (ctx.lsp.docs[buf]) has clients, the
-- clients it is open with ({client, name, key, utf8}, in the language's
-- order), and client and key, the first's; clients_for(buf, method) lists
-- those that offer method, request_all asks each of them, on_open hooks
-- run as each opens it, and await_doc(buf) waits, in a task, for a
-- document still opening.
local M = {}

function M.setup(ctx)
  local ed, run = ctx.ed, ctx.run
  local open_file, join = ctx.open_file, ctx.paths.join
  local location = require("pmacs.compile").location

  -- Each server's root is the nearest directory above the first file it
  -- opens holding one of its markers (gopls: the module), kept inside the
  -- project root, the trusted workspace; without one it is the project root.
  -- The defaults: each is used when its program is found (in the trusted
  -- workspace's .bin/, else on PATH outside it); a missing one is noted in
  -- *messages* once and its files open without a server.
  local clangd = {name = "clangd", program = "clangd", markers = {"compile_commands.json", "compile_flags.txt", ".clangd"}}
  local pyright = {name = "pyright", program = "pyright-langserver", args = {"--stdio"},
    markers = {"pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"}}
  local function tsls(language_id)
    return {name = "typescript-language-server", program = "typescript-language-server", args = {"--stdio"},
      markers = {"tsconfig.json", "jsconfig.json", "package.json"}, language_id = language_id}
  end
  local lsp_servers = {
    go = {name = "gopls", program = "gopls", markers = {"go.work", "go.mod"}},
    c = clangd, cpp = clangd,
    python = pyright,
    typescript = tsls("typescript"), javascript = tsls("javascript"), tsx = tsls("typescriptreact"),
  }

  -- specs_for lists the servers of a language: a registry entry is one
  -- server or a list of them.
  local function specs_for(lang)
    local e = lsp_servers[lang]
    if type(e) ~= "table" then return {} end
    if e.program or e.name then return {e} end
    return e
  end

  local function server_root(spec, path)
    local project = ed.root()
    local ok, dir = pcall(ed.find_root, path, spec.markers or {})
    if ok and dir and (dir == project or dir:sub(1, #project + 1) == project .. "/") then return dir end
    return project
  end
  -- diags: path -> the merged diagnostics of every server; diag_src:
  -- path -> client key -> {rows, name, utf8}, each server's own; info:
  -- client -> {name, key}.
  local lsp = {clients = {}, docs = {}, diags = {}, diag_src = {}, info = setmetatable({}, {__mode = "k"})}
  -- after_change: functions called with a buffer once its edits have gone
  -- to its server (completion asks again); on_start: functions called with
  -- each client as it starts, before any document opens (the workspace
  -- edits hook workspace/applyEdit there).
  local after_change, on_start = {}, {}

  -- Paths become URIs and back only through pmacs.uri, and byte columns
  -- UTF-16 columns only through pmacs.utf16: the Go code the LSP client
  -- itself uses, so a request names the document didOpen named (a#b.go,
  -- "my file.go") and the column the server counts. A URI from a server
  -- that names no local file is refused with to_path's reason.

  local function relative(path)
    local root = ed.root() .. "/"
    if path:sub(1, #root) == root then return path:sub(#root + 1) end
    return path
  end

  local severity_names = {"error", "warning", "info", "hint"}

  -- labelled says whether path's diagnostics name their server: when more
  -- than one server serves or has published for it.
  local function labelled(path)
    local n = 0
    for _ in pairs(lsp.diag_src[path] or {}) do n = n + 1 end
    if n > 1 then return true end
    local buf = ed.find(path)
    local doc = buf and lsp.docs[buf]
    return doc ~= nil and #doc.clients > 1
  end
  local function label(path, d)
    return labelled(path) and d.server and ("[" .. d.server .. "] ") or ""
  end

  -- diag_signs marks each row of buf that has diagnostics in the gutter with
  -- the most severe one's letter (E, W, I, H) in its colour, and its message
  -- as the row's note, which the status line shows while the cursor is on
  -- the row; the status line also counts them (E1 W0).
  local sign_letters = {"E", "W", "I", "H"}
  local function diag_signs(buf)
    local path = ed.path(buf)
    local ds = path and lsp.diags[path] or {}
    local counts = {0, 0, 0, 0}
    local worst = {}
    for _, d in ipairs(ds) do
      local sev = d.severity or 1
      counts[sev] = (counts[sev] or 0) + 1
      if not worst[d.line] or sev < (worst[d.line].severity or 1) then worst[d.line] = d end
    end
    local signs = {}
    for row, d in pairs(worst) do
      local sev = d.severity or 1
      local msg = label(path, d) .. (d.message or ""):match("^[^\n]*")
      if #msg > 70 then msg = msg:sub(1, 67) .. "..." end
      signs[#signs + 1] = {row, sign_letters[sev] or "E", severity_names[sev] or "error", msg}
    end
    ed.set_signs(buf, signs)
    if #ds == 0 then ed.set_status(buf, "") return end
    local s = string.format("E%d W%d", counts[1], counts[2])
    if counts[3] + counts[4] > 0 then s = s .. string.format(" I%d", counts[3] + counts[4]) end
    ed.set_status(buf, s)
  end

  -- shift_diags moves the rows of path's diagnostics with edits the buffer
  -- made (ed.take_edits' list), so the gutter follows inserted and deleted
  -- lines until the server publishes again; true when a row moved.
  local function shift_diags(ds, edits)
    if not ds then return false end
    local moved = false
    for _, e in ipairs(edits) do
      local _, nl = e.text:gsub("\n", "")
      local delta = nl - (e.end_line - e.line)
      -- An edit within one row that adds no row moves nothing: a keystroke.
      for _, d in ipairs((nl > 0 or e.end_line > e.line) and ds or {}) do
        local to = d.line
        if d.line > e.end_line then
          to = d.line + delta
        elseif d.line == e.end_line and d.col >= e.end_col then
          to = e.line + nl -- the rest of the row moved with the edit's end
        elseif d.line > e.line then
          to = e.line -- its row was joined into the edit's first
        end
        if to ~= d.line then d.line, moved = to, true end
      end
    end
    return moved
  end

  -- targets: buffer -> row -> {path, line, character, enc}: where Enter
  -- on a row of *diagnostics* or *references* goes, in the column units
  -- of the server that named the place.
  local targets = setmetatable({}, {__mode = "k"})

  local function render_diagnostics(buf)
    local rows = {string.format("diagnostics (Enter jumps)")}
    local to = {}
    local paths = {}
    for path in pairs(lsp.diags) do paths[#paths + 1] = path end
    table.sort(paths)
    for _, path in ipairs(paths) do
      for _, d in ipairs(lsp.diags[path]) do
        rows[#rows + 1] = string.format("%s:%d:%d: %s: %s%s", relative(path), d.line + 1, d.col + 1,
          severity_names[d.severity] or "error", label(path, d), (d.message:gsub("\n", " ")))
        to[#rows - 1] = {path, d.line, d.col, d.utf8 and "utf-8" or "utf-16"}
      end
    end
    ed.set_lines(buf, 0, -1, rows)
    targets[buf] = to
  end

  -- merge_diags makes path's list of every server's diagnostics, in the
  -- order of the servers' keys.
  local function merge_diags(path)
    local src = lsp.diag_src[path]
    if not src then lsp.diags[path] = nil return end
    local keys = {}
    for k in pairs(src) do keys[#keys + 1] = k end
    table.sort(keys)
    local all = {}
    for _, k in ipairs(keys) do
      for _, d in ipairs(src[k].rows) do all[#all + 1] = d end
    end
    lsp.diags[path] = #all > 0 and all or nil
  end

  local function on_diagnostics(client, path)
    local info = lsp.info[client]
    if not info then return end
    local ds = client:diagnostics(path)
    local utf8 = client:encoding() == "utf-8" or nil
    for _, d in ipairs(ds) do d.server, d.utf8 = info.name, utf8 end
    local src = lsp.diag_src[path] or {}
    src[info.key] = #ds > 0 and {rows = ds, name = info.name} or nil
    lsp.diag_src[path] = next(src) and src or nil
    merge_diags(path)
    local buf = ed.find(path)
    if buf then diag_signs(buf) end
    local list = ed.find("*diagnostics*")
    if list then render_diagnostics(list) end
  end

  -- client_keys names the clients that serve path's language, one per
  -- server of it: each {key, spec, root}, one client per server and root,
  -- so two modules each get their gopls, and C and C++ files under one
  -- root share a clangd. client_key is the first's key.
  local function client_keys(lang, path)
    local out = {}
    for _, spec in ipairs(specs_for(lang)) do
      local root = server_root(spec, path)
      out[#out + 1] = {key = spec.name .. " @ " .. root, spec = spec, root = root}
    end
    return out
  end
  local function client_key(lang, path)
    local k = client_keys(lang, path)[1]
    if k then return k.key, k.spec, k.root end
  end

  -- How long a document waits for its server to answer initialize before
  -- it opens anyway: the server's position encoding is known only then.
  local init_wait_ms = 60000

  -- lsp_client returns the client of one server and root, starting it
  -- once (inside a task) and waiting for its initialize; nil when its
  -- program is not found or does not start.
  local function lsp_client(lang, k)
    local key, spec = k.key, k.spec
    local entry = lsp.clients[key]
    if not entry then
      entry = {spec = spec, name = spec.name, root = k.root, langs = {[lang] = true}}
      entry.task = run(function()
        -- Never the project's own program while the workspace is
        -- untrusted: that would run the checkout's code on open.
        local program, why, code = pmacs.trust.find(spec.program)
        if not program then
          if code == "untrusted" then
            print("lsp: " .. why .. "; " .. lang .. " files open without a language server meanwhile")
          else
            print("lsp: " .. spec.name .. " not found in .bin/ or PATH; " .. lang .. " files open without a language server")
          end
          return nil
        end
        entry.program = program
        -- Workspace edits may create, rename and delete files
        -- (apply_workspace_edit).
        local c, err = pmacs.lsp.start{cmd = {program, unpack(spec.args or {})}, root = entry.root, filetypes = {lang},
          language_id = spec.language_id, resource_operations = {"create", "rename", "delete"},
          settings = spec.settings, init_options = spec.init_options,
          watch_files = true} -- pmacs.watched_files watches for it
        if not c then print("lsp: " .. spec.name .. ": " .. err) return nil end
        lsp.info[c] = {name = spec.name, key = key}
        c:on_diagnostics(on_diagnostics)
        for _, hook in ipairs(on_start) do hook(c) end
        print("lsp: started " .. program)
        -- Edits sent count columns in the units the server chooses in its
        -- answer: wait for it (a server that dies fails the wait).
        local waited, step = 0, 5
        while c:status().state == "starting" and waited < init_wait_ms do
          pmacs.async.sleep(step)
          waited, step = waited + step, math.min(step * 2, 100)
        end
        return c
      end)
      lsp.clients[key] = entry
    end
    entry.langs[lang] = true
    return entry.task:await()
  end

  -- Above this size a file is not synced with its language server: the
  -- server would hold (and re-parse on every change) a copy several times the
  -- file's size, and the open alone makes three copies of the text.
  local lsp_max_bytes = 16 * 1024 * 1024

  -- for_client converts the editor's edits (ed.take_edits: UTF-16 columns
  -- and byte columns) to the columns client counts.
  local function for_client(s, edits)
    if not s.utf8 then return edits end
    local out = {}
    for i, e in ipairs(edits) do
      out[i] = {line = e.line, col = e.byte_col, end_line = e.end_line, end_col = e.end_byte_col, text = e.text}
    end
    return out
  end

  -- sync sends buf's edits since the last sync to each of its clients (or
  -- its whole text again when the log overflowed) and moves each server's
  -- diagnostics with them; false when buf has no document.
  local function sync(buf)
    local doc = lsp.docs[buf]
    if not doc then return false end
    local edits = ed.take_edits(buf)
    local moved = false
    for _, s in ipairs(doc.clients) do
      if edits then
        local mine = for_client(s, edits)
        if #mine > 0 then s.client:change(doc.path, mine) end
        local src = lsp.diag_src[doc.path]
        if src and src[s.key] and shift_diags(src[s.key].rows, mine) then moved = true end
      else
        -- The log overflowed or the file was reloaded: send the text again.
        s.client:close(doc.path)
        s.client:open(doc.path, ed.get_text(buf))
      end
    end
    if moved then diag_signs(buf) end
    return true
  end

  -- on_open: functions called with (buf, client) as a client opens buf's
  -- document (pull diagnostics asks then).
  local on_open = {}

  local function lsp_open(buf)
    local lang, path = ed.language(buf), ed.path(buf)
    local keys = lang and path and client_keys(lang, path) or {}
    if #keys == 0 or lsp.docs[buf] then return end
    if ed.byte_count(buf) > lsp_max_bytes then
      ed.message(string.format("%s: %d MiB: no language server for files above %d MiB",
        ed.name(buf), math.floor(ed.byte_count(buf) / (1024 * 1024)), math.floor(lsp_max_bytes / (1024 * 1024))))
      return
    end
    -- clients: the clients the document is open with, in the order of the
    -- language's servers; client and key are the first's.
    -- ready is set once the first client has opened it, or none could.
    local doc = {path = path, lang = lang, key = keys[1].key, clients = {}, slots = {}, ready = pmacs.async.future()}
    lsp.docs[buf] = doc
    local pending = #keys
    for i, k in ipairs(keys) do
      run(function()
        local c = lsp_client(lang, k)
        pending = pending - 1
        if lsp.docs[buf] ~= doc or not ed.valid(buf) then return end
        if c then
          -- The text sent now includes every edit so far: the clients
          -- already open get those edits first, and the log starts again.
          sync(buf)
          local ok, err = c:open(path, ed.get_text(buf))
          if not ok then
            print("lsp: open " .. path .. ": " .. err)
          else
            doc.slots[i] = {client = c, name = k.spec.name, key = k.key, utf8 = c:encoding() == "utf-8"}
            doc.clients = {}
            for j = 1, #keys do
              if doc.slots[j] then doc.clients[#doc.clients + 1] = doc.slots[j] end
            end
            doc.client, doc.key = doc.clients[1].client, doc.clients[1].key
            diag_signs(buf) -- the gutter stays, so the text does not move when markers come
            if not doc.ready:done() then doc.ready:set(true) end
            for _, hook in ipairs(on_open) do hook(buf, c) end
          end
        end
        if pending == 0 and #doc.clients == 0 then lsp.docs[buf] = nil end
        if pending == 0 and not doc.ready:done() then doc.ready:set(false) end
      end)
    end
  end

  -- lsp_reopen moves buf's document to the path buf visits now (save as, a
  -- workspace edit's rename): the servers close the old document, which
  -- they then read from disk again, and open the new one with the
  -- buffer's text; a path without a server only closes.
  local function lsp_reopen(buf)
    local doc = lsp.docs[buf]
    for _, s in ipairs(doc and doc.clients or {}) do s.client:close(doc.path) end
    lsp.docs[buf] = nil
    lsp_open(buf)
  end

  local function lsp_change(buf)
    local doc = lsp.docs[buf]
    if not doc then return end
    if doc.path ~= ed.path(buf) then lsp_reopen(buf) return end
    -- A document still opening sends its whole text when it opens; the
    -- hooks' requests wait for that (await_doc).
    if doc.client then sync(buf) end
    -- After the didChange, so a completion request sees the new text.
    for _, hook in ipairs(after_change) do hook(buf) end
  end

  -- The servers' showMessage notes, errors and warnings go to *messages*
  -- (their routine logMessage chatter does not).
  ed.on("frame", function()
    for _, entry in pairs(lsp.clients) do
      local c = entry.task:done() and entry.task:await()
      if c then
        for _, m in ipairs(c:messages()) do
          if m.show or m.type <= 2 then print("lsp: " .. m.text) end
        end
      end
    end
  end)

  -- lsp_retrust follows a trust decision about the workspace: a language
  -- whose server program resolves differently now (held back while
  -- untrusted, or the project's own after an untrust) gets the new one,
  -- and its open buffers sync with it without being reopened.
  local function lsp_retrust()
    local redo = {}
    for key, entry in pairs(lsp.clients) do
      local want = pmacs.trust.find(entry.spec.program)
      -- A server still starting is left alone: it resolved before the
      -- decision, and the policy checks its program again as it starts.
      if entry.task:done() and entry.program ~= want then redo[#redo + 1] = key end
    end
    -- Apart from the walk above: reopening starts a client, a new key in
    -- lsp.clients.
    -- serves says whether one of keys is key.
    local function serves(keys, key)
      for _, k in ipairs(keys) do
        if k.key == key then return true end
      end
      return false
    end
    for _, key in ipairs(redo) do
      local c = lsp.clients[key].task:await()
      lsp.clients[key] = nil
      -- Every document the client served closes with its other servers
      -- too, and opens again below with all of them.
      for buf, doc in pairs(lsp.docs) do
        if doc.key == key or serves(doc.clients, key) then
          for _, s in ipairs(doc.clients) do
            if s.key ~= key then s.client:close(doc.path) end
          end
          lsp.docs[buf] = nil
          if c and lsp.diag_src[doc.path] then
            lsp.diag_src[doc.path][key] = nil
            merge_diags(doc.path)
          end
          if ed.valid(buf) then ed.set_signs(buf, nil) ed.set_status(buf, "") end
        end
      end
      if c then c:stop() end
      -- Every buffer this client would serve, synced before or not (a
      -- buffer opened while its server was held back has no document).
      for _, b in ipairs(ed.buffers()) do
        local lang, path = ed.language(b.id), ed.path(b.id)
        if lang and path and serves(client_keys(lang, path), key) then lsp_open(b.id) end
      end
    end
  end

  ed.on("trust", lsp_retrust)
  ed.on("open", lsp_open)
  ed.on("change", lsp_change)
  ed.on("save", function(buf)
    local doc = lsp.docs[buf]
    if doc and doc.path ~= ed.path(buf) then
      lsp_reopen(buf)
    elseif doc then
      for _, s in ipairs(doc.clients) do s.client:save(doc.path) end
    end
  end)
  ed.on("close", function(buf)
    local doc = lsp.docs[buf]
    for _, s in ipairs(doc and doc.clients or {}) do s.client:close(doc.path) end
    lsp.docs[buf] = nil
  end)

  -- lsp_request sends method at the cursor of buf; nil when buf has no
  -- server.
  -- offers says whether client may be asked method: a server that has
  -- answered initialize only for what it announced (client:supports); one
  -- still starting for anything (the request waits for its initialize).
  local function offers(client, method)
    return client:status().state ~= "running" or client:supports(method)
  end

  -- clients_for returns the clients of buf's document that offer method,
  -- in the order of its language's servers, and their names.
  local function clients_for(buf, method)
    local doc = lsp.docs[buf]
    local cs, names = {}, {}
    for _, s in ipairs(doc and doc.clients or {}) do
      if offers(s.client, method) then cs[#cs + 1], names[#names + 1] = s.client, s.name end
    end
    return cs, names
  end

  -- lsp_request_all sends method at the cursor of buf to every server of
  -- it that offers it: a list of {h, client, name}, nil (and a message)
  -- when none does.
  -- await_doc returns buf's document, waiting, in a task, while it is
  -- still opening (its servers answer initialize first), so a request
  -- made as the file opens goes out once it can.
  local function await_doc(buf)
    local doc = lsp.docs[buf]
    if doc and not doc.client and pmacs.async.current() then doc.ready:await() end
    return lsp.docs[buf]
  end

  local function lsp_request_all(buf, method, extra, key)
    local doc = await_doc(buf)
    if not doc or not doc.client then
      -- A document opens once its server has answered initialize.
      ed.message("no language server for this buffer")
      return nil
    end
    -- Only what a server announced is asked for (before it has answered
    -- initialize, the request waits for it and goes out either way).
    local cs, names = clients_for(buf, method)
    if #cs == 0 then
      local all = {}
      for _, s in ipairs(doc.clients) do all[#all + 1] = s.name end
      ed.message(string.format("%s does not offer %s", table.concat(all, " and "), method))
      return nil
    end
    local row, col = ed.cursor(buf)
    local line = ed.get_lines(buf, row, row + 1)[1] or ""
    local out = {}
    for i, c in ipairs(cs) do
      local params = {textDocument = {uri = pmacs.uri.from_path(doc.path)},
        position = {line = row, character = c:units(line, col)}}
      for k, v in pairs(extra or {}) do params[k] = v end
      out[i] = {h = c:request(method, params, {key = (key or method) .. "@" .. names[i], timeout_ms = 30000}),
        client = c, name = names[i]}
    end
    return out
  end

  -- lsp_request sends method at the cursor of buf to the first of its
  -- servers that offers it; the handle and the client, or nil when none
  -- does.
  local function lsp_request(buf, method, extra, key)
    local doc = await_doc(buf)
    if not doc or not doc.client then
      -- A document opens once its server has answered initialize.
      ed.message("no language server for this buffer")
      return nil
    end
    local c = clients_for(buf, method)[1]
    if not c then
      local entry = lsp.clients[doc.key]
      ed.message(string.format("%s does not offer %s", entry and entry.name or "the language server", method))
      return nil
    end
    local row, col = ed.cursor(buf)
    local line = ed.get_lines(buf, row, row + 1)[1] or ""
    local params = {textDocument = {uri = pmacs.uri.from_path(doc.path)},
      position = {line = row, character = c:units(line, col)}}
    for k, v in pairs(extra or {}) do params[k] = v end
    return c:request(method, params, {key = key or method, timeout_ms = 30000}), c
  end

  -- byte_col is the byte column of line a server's character names, in
  -- enc's units ("utf-8": bytes already).
  local function byte_col(line, character, enc)
    if enc == "utf-8" then return math.min(character, #line) end
    return pmacs.utf16.byte_col(line, character)
  end

  -- lsp_jump opens path at a server's position: line and a column in enc's
  -- units (UTF-16 when absent).
  -- A file not read yet gets the row now and the column once its text is
  -- there to count in, unless the cursor has moved on by then.
  local jump_wait_ms = 10000
  local function lsp_jump(path, line, character, enc)
    local buf = ed.find(path)
    if buf and not ed.loading(buf) then
      open_file(path, line, byte_col(ed.get_lines(buf, line, line + 1)[1] or "", character, enc))
      return
    end
    buf = open_file(path, line, 0)
    if not buf then return end
    run{name = "lsp jump", function()
      if not ctx.await_loaded(buf, jump_wait_ms) then return end
      local r, c = ed.cursor(buf)
      if r ~= line or c ~= 0 then return end
      ed.set_cursor(buf, line, byte_col(ed.get_lines(buf, line, line + 1)[1] or "", character, enc))
    end}
  end

  -- goto_location asks method at the cursor of every server that offers
  -- it and jumps to the first location the first of them to know one
  -- answers (Location, Location[] or LocationLink[]): what is says what was
  -- looked for, in the messages.
  local function goto_location(buf, method, what)
    run(function()
      local hs = lsp_request_all(buf, method)
      if not hs then return end
      local errs = {}
      for _, r in ipairs(hs) do
        local res, err = r.h:await()
        local loc = res
        if type(res) == "table" and res.uri == nil and res.targetUri == nil then loc = res[1] end
        local range, u = type(loc) == "table" and (loc.targetSelectionRange or loc.range), type(loc) == "table" and (loc.uri or loc.targetUri)
        if not res then
          if err ~= "cancelled" then errs[#errs + 1] = (#hs > 1 and (r.name .. ": ") or "") .. err end
        elseif type(u) == "string" and type(range) == "table" then
          local path, perr = pmacs.uri.to_path(u)
          if not path then ed.error(what .. ": " .. perr) return end
          lsp_jump(path, range.start.line, range.start.character, r.client:encoding())
          return
        end
      end
      if #errs > 0 then ed.error(what .. ": " .. table.concat(errs, "; ")) return end
      ed.message("no " .. what .. " here")
    end)
  end

  ed.map("global", "M-.", function(buf) goto_location(buf, "textDocument/definition", "definition") end,
    "language server: go to the definition (M-, comes back)")
  ctx.command_help["type-definition"] = "go to the definition of the type of the symbol at the cursor (language server)"
  ctx.commands["type-definition"] = ctx.no_arg("type-definition", function()
    goto_location(ed.current(), "textDocument/typeDefinition", "type definition")
  end)
  ctx.command_help.implementation = "go to an implementation of the interface or method at the cursor (language server)"
  ctx.commands.implementation = ctx.no_arg("implementation", function()
    goto_location(ed.current(), "textDocument/implementation", "implementation")
  end)

  -- render_markdown turns a hover's markdown into plain rows: code fences
  -- go, the code between them stays as it is; outside code, backslash
  -- escapes, emphasis, inline code marks, heading marks and link targets
  -- go, and the text stays.
  local function render_markdown(text)
    local out, in_code = {}, false
    for l in (text .. "\n"):gmatch("(.-)\r?\n") do
      if l:find("^%s*```") or l:find("^%s*~~~") then
        in_code = not in_code
      elseif in_code then
        out[#out + 1] = l
      else
        l = l:gsub("^#+%s+", "")
        l = l:gsub("%[([^%]]*)%]%([^%)]*%)", "%1")
        l = l:gsub("%*%*(.-)%*%*", "%1"):gsub("__(.-)__", "%1")
        l = l:gsub("`([^`]*)`", "%1")
        l = l:gsub("\\(%p)", "%1")
        out[#out + 1] = l
      end
    end
    while #out > 0 and not out[#out]:find("%S") do out[#out] = nil end
    return out
  end

  ed.map("global", "M-k", function(buf)
    run(function()
      local hs = lsp_request_all(buf, "textDocument/hover")
      if not hs then return end
      -- Every server's answer, each under its name when more than one
      -- has something to say.
      local parts, errs = {}, {}
      for _, r in ipairs(hs) do
        local res, err = r.h:await()
        if not res then
          if err ~= "cancelled" then errs[#errs + 1] = err end
        else
          local contents = type(res) == "table" and res.contents
          local text = type(contents) == "string" and contents or type(contents) == "table" and (contents.value or (contents[1] and (contents[1].value or contents[1]))) or nil
          if type(text) == "string" and text ~= "" then parts[#parts + 1] = {name = r.name, lines = render_markdown(text)} end
        end
      end
      if #parts == 0 then
        if #errs > 0 then ed.error("hover: " .. table.concat(errs, "; ")) else ed.message("no hover information here") end
        return
      end
      local lines = parts[1].lines
      if #parts > 1 then
        lines = {}
        for _, p in ipairs(parts) do
          lines[#lines + 1] = "-- " .. p.name .. " --"
          for _, l in ipairs(p.lines) do lines[#lines + 1] = l end
        end
      end
      local hb = ed.create("*hover*")
      ed.set_lines(hb, 0, -1, lines)
      for _, l in ipairs(parts[1].lines) do
        if l:find("%S") then ed.message(l) return end
      end
    end)
  end, "language server: hover (its first line here, all of it in *hover*)")

  local function references_open(buf)
    local row = ed.cursor(buf)
    local t = targets[buf] and targets[buf][row]
    if t then lsp_jump(t[1], t[2], t[3], t[4]) return end
    local file, line, col = location(ed.get_lines(buf, row, row + 1)[1] or "")
    if not file then ed.message("no file:line on this row") return end
    if file:sub(1, 1) ~= "/" then file = join(ed.root(), file) end
    lsp_jump(file, line - 1, (col or 1) - 1)
  end

  -- quote_lines returns, for the locations of a batch, path -> row ->
  -- text of each line they point at: from the buffer holding the file, or
  -- read from the disk off the main loop (ed.file_lines) while the task
  -- waits. A file that cannot be read gets no text, and so does one outside
  -- the project: the server chose the paths, and nothing it names outside
  -- the workspace is read.
  local function quote_lines(batch)
    local root = ed.root()
    local want, texts, pending = {}, {}, 0
    local all_read = pmacs.async.future()
    for _, loc in ipairs(batch) do
      local path = type(loc) == "table" and loc.uri and pmacs.uri.to_path(loc.uri)
      if path then
        want[path] = want[path] or {}
        table.insert(want[path], loc.range.start.line)
      end
    end
    for path, rows in pairs(want) do
      local buf = ed.find(path)
      if buf and not ed.loading(buf) then
        texts[path] = {}
        for _, r in ipairs(rows) do texts[path][r] = ed.get_lines(buf, r, r + 1)[1] end
      elseif path == root or path:sub(1, #root + 1) == root .. "/" then
        pending = pending + 1
        ed.file_lines(path, rows, function(lines)
          texts[path] = lines
          pending = pending - 1
          if pending == 0 and not all_read:done() then all_read:set(true) end
        end)
      end
    end
    if pending > 0 then all_read:await() end
    return texts
  end

  -- M-? lists the references every server that offers them finds, one
  -- row per place (a place two servers name is listed once, under the
  -- first's name when there are several).
  ed.map("global", "M-?", function(buf)
    run(function()
      local hs = lsp_request_all(buf, "textDocument/references", {context = {includeDeclaration = true}})
      if not hs then return end
      local rb = ed.create("*references*")
      ed.map(rb, "Enter", references_open)
      ed.set_lines(rb, 0, -1, {"references: searching..."})
      ed.show(rb)
      local to = {}
      targets[rb] = to
      local n, seen, errs = 0, {}, {}
      for _, r in ipairs(hs) do
        local enc, tag = r.client:encoding(), #hs > 1 and ("  [" .. r.name .. "]") or ""
        for batch in r.h:batches() do
          if not ed.valid(rb) then
            for _, o in ipairs(hs) do o.h:cancel() end
            return -- closed (q) meanwhile
          end
          local rows = {}
          local texts = quote_lines(batch)
          for _, loc in ipairs(batch) do
            if type(loc) == "table" and loc.uri then
              -- A URI that names no local file is listed as it came.
              local path = pmacs.uri.to_path(loc.uri) or loc.uri
              local line, char = loc.range.start.line, loc.range.start.character
              local text = texts[path] and texts[path][line]
              -- Columns as bytes where the line is known, so two servers'
              -- units name one place alike.
              local col = text and byte_col(text, char, enc) or char
              local place = string.format("%s:%d:%d", relative(path), line + 1, col + 1)
              if not seen[place] then
                seen[place] = true
                rows[#rows + 1] = (text and (place .. ": " .. text:match("^%s*(.-)%s*$")) or place) .. tag
                to[n + #rows] = {path, line, char, enc}
              end
            end
          end
          if not ed.valid(rb) then return end
          ed.append_lines(rb, rows)
          n = n + #rows
        end
        local ok, err = r.h:await()
        if not ok and err ~= "cancelled" then errs[#errs + 1] = (#hs > 1 and (r.name .. ": ") or "") .. tostring(err) end
      end
      if not ed.valid(rb) then return end
      if #errs > 0 and n == 0 then ed.set_lines(rb, 0, 1, {"references: " .. table.concat(errs, "; ")}) return end
      ed.set_lines(rb, 0, 1, {string.format("references: %d (Enter jumps)", n)})
    end)
  end, "language server: references into *references* (Enter jumps)")

  ed.map("global", "M-e", function()
    local buf = ed.create("*diagnostics*")
    ed.map(buf, "Enter", references_open)
    render_diagnostics(buf)
    ed.show(buf)
  end, "language server: *diagnostics* (Enter jumps)")

  -- lsp_text_edit is a TextEdit as ed.apply_text_edits takes it, its
  -- columns in enc's units (the server's, client:encoding(); UTF-16 when
  -- absent).
  local function lsp_text_edit(te, enc)
    local r = te.range
    return {line = r.start.line, col = r.start.character, end_line = r["end"].line,
            end_col = r["end"].character, text = te.newText, encoding = enc == "utf-8" and enc or nil}
  end

  -- M-x lsp-info: every client, its root, state, what the server
  -- announced (capabilities and run-time registrations) and its recent
  -- log, in *lsp-info*.
  local function lsp_info()
    local rows = {}
    local keys = {}
    for key in pairs(lsp.clients) do keys[#keys + 1] = key end
    table.sort(keys)
    if #keys == 0 then rows[1] = "no language server started (open a file of a language with one)" end
    for _, key in ipairs(keys) do
      local entry = lsp.clients[key]
      local c = entry.task:done() and entry.task:await() or nil
      local langs = {}
      for lang in pairs(entry.langs) do langs[#langs + 1] = lang end
      table.sort(langs)
      rows[#rows + 1] = string.format("%s: %s (%s)", table.concat(langs, ", "), entry.name, entry.program or "not found")
      rows[#rows + 1] = "  root: " .. entry.root
      if not c then
        rows[#rows + 1] = entry.task:done() and "  state: not running" or "  state: starting"
      else
        local st = c:status()
        rows[#rows + 1] = string.format("  state: %s, %d pending, %d received, columns in %s%s", st.state, st.pending,
          st.received, c:encoding(), st.error and (", error: " .. st.error) or "")
        local names = {}
        for name, v in pairs(c:capabilities() or {}) do
          if v ~= false and name:find("Provider$") then names[#names + 1] = name:gsub("Provider$", "") end
        end
        table.sort(names)
        -- Wrapped to fit a narrow window.
        local line = "  offers:"
        for i, n in ipairs(names) do
          local piece = " " .. n .. (i < #names and "," or "")
          if #line + #piece > 76 then rows[#rows + 1] = line line = "   " end
          line = line .. piece
        end
        rows[#rows + 1] = line
        for _, r in ipairs(c:registrations()) do rows[#rows + 1] = "  registered: " .. r.method .. " (" .. r.id .. ")" end
        for _, m in ipairs(c:messages()) do rows[#rows + 1] = "  log: " .. m.text:gsub("\n.*", "") end
        if st.stderr and st.stderr ~= "" then rows[#rows + 1] = "  stderr: " .. st.stderr:gsub("\n.*", "") end
      end
    end
    local buf = ed.find("*lsp-info*") or ed.create("*lsp-info*")
    ed.set_lines(buf, 0, -1, rows)
    ed.show(buf)
  end
  ctx.command_help["lsp-info"] = "each language server: its root, state, what it offers and its log"
  ctx.commands["lsp-info"] = ctx.no_arg("lsp-info", lsp_info)

  ctx.lsp = {
    docs = lsp.docs, after_change = after_change, on_start = on_start,
    change = lsp_change, reopen = lsp_reopen, request = lsp_request, jump = lsp_jump,
    text_edit = lsp_text_edit, relative = relative, servers = lsp_servers, offers = offers,
    clients_for = clients_for, request_all = lsp_request_all, on_open = on_open, await_doc = await_doc,
  }
end

return M
