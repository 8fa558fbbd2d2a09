-- pmacs.project: the project root. The editor starts with the directory
-- of the path it opens; before it opens it, this module looks upward from
-- the path for the nearest directory holding one of ctx.project.markers
-- and makes that the root (ed.set_root): the workspace whose trust is
-- asked, the folder the status line names, and where grep (C-f), compile
-- (M-c), the picker (C-p) and dired (C-d) start. Without a marker the
-- root stays the path's directory. The markers are read when the editor
-- opens its path, so a user's init file may change the list. It sets
-- ctx.project: {markers = {...}, root = function() return the root end,
-- find = function(path, markers) the nearest marked directory or nil}.
local M = {}

M.markers = {"go.mod", ".git", "compile_commands.json", "pyproject.toml", "package.json", "Cargo.toml"}

function M.setup(ctx)
  local ed = ctx.ed
  local project = {markers = {}}
  for i, m in ipairs(M.markers) do project.markers[i] = m end
  function project.root() return (ed.root()) end
  function project.find(path, markers) return ed.find_root(path, markers or project.markers) end
  ctx.project = project

  -- Set up before init.lua's own start hook: the root is set before the
  -- first path opens and the trust question is asked about it.
  ed.on("start", function(path)
    local ok, root = pcall(ed.find_root, path, project.markers)
    if not ok then ed.error("project: " .. tostring(root)) return end
    if not root then return end
    local set, err = ed.set_root(root)
    if not set then ed.error("project: " .. err) end
  end)
end

return M
