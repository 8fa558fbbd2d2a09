-- pmacs.mcp: M-x mcp-connect CMD ARGS... (or a URL) connects to an MCP
-- server and shows *mcp*: its tools, name and description. Enter on a tool
-- prompts for its arguments as a JSON object, calls it (an mcp_request job,
-- which *workers* shows with its progress and c cancels) and shows the
-- result in *mcp result*. It owns the one connection (a new one closes the
-- last) and those two views.
local M = {}

function M.setup(ctx)
  local ed, run, commands, current_dir = ctx.ed, ctx.run, ctx.commands, ctx.current_dir

  local mcpv = {conn = nil, target = nil, buf = nil, rows = {}}

  local function mcp_first_line(s)
    return (s or ""):match("^[^\n]*")
  end

  local function mcp_render(status)
    local b = mcpv.buf
    local head = "MCP " .. mcpv.target .. ": " .. status .. "        (Enter: call the tool on the cursor row, g: refresh)"
    ed.set_lines(b, 0, -1, {head, string.format("  %-24s %s", "tool", "description")})
    ed.set_highlights(b, {{0, 0, 0, #head, "header"}, {1, 0, 1, 40, "dim"}})
  end

  local function mcp_list()
    local s, target = mcpv.conn, mcpv.target
    mcp_render("listing tools")
    run(function()
      local tools, err = s:tools():await()
      if mcpv.conn ~= s then return end -- a newer connection replaced this one
      if not tools then
        mcp_render("failed")
        ed.error("mcp " .. target .. ": " .. err)
        return
      end
      table.sort(tools, function(a, b) return a.name < b.name end)
      mcp_render(#tools .. " tools")
      local lines, rows = {}, {}
      for i, t in ipairs(tools) do
        lines[i] = string.format("  %-24s %s", t.name, mcp_first_line(t.description))
        rows[i + 1] = t
      end
      ed.append_lines(mcpv.buf, lines)
      mcpv.rows = rows
      ed.set_cursor(mcpv.buf, 2, 0)
    end)
  end

  local function mcp_show_result(name, v)
    local b = ed.create("*mcp result*")
    local head = "tool " .. name .. " returned"
    local lines = {head}
    for line in ((v.text or "") .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = line end
    local hl = {{0, 0, 0, #head, "header"}}
    if v.structured ~= nil then
      local pretty, err = pmacs.mcp.json_encode(v.structured)
      lines[#lines + 1] = "structured content:"
      hl[#hl + 1] = {#lines - 1, 0, #lines - 1, #lines[#lines], "header"}
      for line in ((pretty or err) .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = line end
    end
    ed.set_lines(b, 0, -1, lines)
    ed.set_highlights(b, hl)
    ed.set_cursor(b, 0, 0)
    ed.show(b)
  end

  local function mcp_call(tool)
    local s = mcpv.conn
    ed.prompt(tool.name .. " arguments (a JSON object): ", {text = "{}", on_submit = function(text)
      local args, err = pmacs.mcp.json_decode(text)
      if err then ed.error("mcp " .. tool.name .. ": " .. err) return end
      if type(args) ~= "table" or (#args > 0) or text:match("^%s*%[") then
        ed.error("mcp " .. tool.name .. ": the arguments must be a JSON object, like {\"key\": \"value\"}")
        return
      end
      local h = s:call(tool.name, args)
      ed.message("mcp " .. tool.name .. ": job " .. h:id() .. " running (C-w shows it, c there cancels)")
      run(function()
        local v, msg = h:await()
        if v == nil then ed.error("mcp " .. tool.name .. ": " .. msg) return end
        mcp_show_result(tool.name, v)
        ed.message("mcp " .. tool.name .. ": done")
      end)
    end})
  end

  ctx.command_help["mcp-connect"] = "CMD ARGS... or URL: connect to an MCP server and list its tools in *mcp* (Enter calls one)"
  commands["mcp-connect"] = function(arg)
    if arg == "" then ed.error("mcp-connect: needs a server command (CMD ARGS...) or an http(s) URL") return end
    local spec
    if arg:match("^https?://%S+$") then
      spec = {url = arg}
    else
      local cmd = {}
      for word in arg:gmatch("%S+") do cmd[#cmd + 1] = word end
      spec = {cmd = cmd, cwd = current_dir()}
    end
    -- The server is told the workspace as its only root.
    spec.roots = {ed.root()}
    -- connect raises for a refused spec (cmd in --safe mode): a message, not a traceback.
    local ok, s, err = pcall(pmacs.mcp.connect, spec)
    if not ok then err, s = s, nil end
    if not s then ed.error("mcp-connect: " .. tostring(err)) return end
    if mcpv.conn then mcpv.conn:close() end
    mcpv.conn, mcpv.target, mcpv.rows = s, arg, {}
    if not mcpv.buf or not ed.find("*mcp*") then
      mcpv.buf = ed.create("*mcp*")
      ed.map(mcpv.buf, "Enter", function(b)
        local tool = mcpv.rows[ed.cursor(b)]
        if not tool then ed.message("no tool on this row") return end
        mcp_call(tool)
      end)
      ed.map(mcpv.buf, "g", function() mcp_list() end)
    end
    ed.show(mcpv.buf)
    mcp_list()
  end
end

return M
