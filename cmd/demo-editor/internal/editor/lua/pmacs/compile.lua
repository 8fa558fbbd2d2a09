-- pmacs.compile: M-x compile (or M-c) runs a shell command in the project
-- root (pmacs.project) into *compile*:
-- its output streams in a batch per frame while it runs, the header shows
-- the exit status, Enter on a "file:line[:col]" row opens the file there.
-- A second compile supersedes the first (key "compile"), and the job is a
-- "spawn" in *workers*, where c cancels it. M-! (M-x shell) runs a command
-- to completion and shows its output. It owns *compile*, the last command
-- and *shell output*.
local M = {}

-- location reads "file:line:col" or "file:line" at the start of a row, as
-- compilers, linters and grep -n print them; the *diagnostics* view reads
-- its rows with it too.
function M.location(row)
  local file, line, col = row:match("^%s*([^:%s][^:]*):(%d+):(%d+)")
  if not file then file, line = row:match("^%s*([^:%s][^:]*):(%d+)") end
  if not file then return nil end
  return file, tonumber(line), tonumber(col)
end

function M.setup(ctx)
  local ed, w, run, commands = ctx.ed, ctx.w, ctx.run, ctx.commands
  local current_dir, open_file, join = ctx.current_dir, ctx.open_file, ctx.paths.join

  local compile = {buf = nil, handle = nil, cmd = "make -k", dir = nil}

  local function compile_header(text, group)
    ed.set_lines(compile.buf, 0, 1, {text})
    ed.add_highlights(compile.buf, {{0, 0, 0, #text, group or "header"}})
  end

  local function compile_open(buf)
    local row = ed.cursor(buf)
    local text = ed.get_lines(buf, row, row + 1)[1] or ""
    local file, line, col = M.location(text)
    if not file then ed.message("no file:line on this row") return end
    open_file(join(compile.dir, file), math.max(line - 1, 0), col and math.max(col - 1, 0) or 0)
  end

  local function run_compile(cmd)
    if cmd == nil or cmd == "" then cmd = compile.cmd end
    compile.cmd, compile.dir = cmd, ed.root()
    if not compile.buf or not ed.find("*compile*") then
      compile.buf = ed.create("*compile*")
      ed.map(compile.buf, "Enter", compile_open)
      ed.map(compile.buf, "g", function() run_compile(compile.cmd) end)
    end
    local buf = compile.buf
    ed.set_lines(buf, 0, -1, {""})
    local h = w.spawn{cmd = {"sh", "-c", cmd}, cwd = compile.dir, key = "compile"}
    compile.handle = h
    compile_header("compile in " .. compile.dir .. ": " .. cmd .. "  (running; Enter opens file:line, g reruns)")
    ed.set_cursor(buf, 0, 0)
    ed.show(buf)
    run(function()
      for batch in h:batches() do
        if compile.handle ~= h then return end
        -- *compile* closed: the output has nowhere to go, so the command
        -- stops, as it would for a new compile.
        if not ed.valid(buf) then h:cancel() return end
        local rows = {}
        for i, l in ipairs(batch) do rows[i] = l.text end
        ed.append_lines(buf, rows)
      end
      if compile.handle ~= h or not ed.valid(buf) then return end
      local r, err = h:await()
      local status, group
      if r and r.signal then
        status, group = "killed by " .. r.signal, "warning"
      elseif r then
        status, group = "exited with code " .. r.code, r.code == 0 and "ok" or "error"
      else
        status, group = err, err == "cancelled" and "warning" or "error"
      end
      compile_header("compile: " .. cmd .. "  (" .. status .. ")", group)
      ed.message("compile: " .. status)
    end)
  end

  local function prompt_compile()
    ed.prompt("compile: ", {text = compile.cmd, on_submit = run_compile})
  end
  ctx.command_help.compile = "[cmd]: run cmd (default make -k) into *compile*, as M-c"
  commands.compile = function(arg) if arg ~= "" then run_compile(arg) else prompt_compile() end end
  ed.map("global", "M-c", prompt_compile, "compile: run a command into *compile* (Enter on file:line jumps, g reruns)")

  -- shell_command shows a one-line result on the message line and anything
  -- longer in *shell output*, with the exit status when it is not 0.
  local function shell_command(cmd)
    if cmd == "" then return end
    local h = w.system{cmd = {"sh", "-c", cmd}, cwd = current_dir()}
    run(function()
      local r, err = h:await()
      if not r then ed.error(cmd .. ": " .. err) return end
      local out = r.stdout .. r.stderr
      if r.truncated then out = out .. "\n[output truncated]" end
      out = out:gsub("\n$", "")
      local status = r.signal and (" [" .. r.signal .. "]") or (r.code ~= 0 and (" [exit " .. r.code .. "]") or "")
      if not out:find("\n") then
        if r.code == 0 then ed.message(out .. status) else ed.error(out .. status) end
        return
      end
      local buf = ed.find("*shell output*") or ed.create("*shell output*")
      ed.set_lines(buf, 0, -1, {"$ " .. cmd .. status})
      ed.add_highlights(buf, {{0, 0, 0, #cmd + 2 + #status, "header"}})
      ed.append_lines(buf, {out})
      ed.set_cursor(buf, 0, 0)
      ed.show(buf)
    end)
  end
  ed.map("global", "M-!", function() ed.prompt("shell command: ", {on_submit = shell_command}) end, "run a shell command (output on the message line or in *shell output*)")
  ctx.command_help.shell = "CMD: run a shell command, as M-!"
  commands.shell = function(arg)
    if arg == "" then ed.error("shell: needs a command") return end
    shell_command(arg)
  end
end

return M
