-- pmacs.path: slash-separated path helpers for the editor's modules. It
-- owns no state.
local M = {}

-- dirname is the directory part of path: "/" for a path in the root or
-- with no slash.
function M.dirname(path)
  local d = path:match("^(.*)/[^/]*$")
  if d == nil or d == "" then return "/" end
  return d
end

-- join is name under dir; an absolute name stands alone.
function M.join(dir, name)
  if name:sub(1, 1) == "/" then return name end
  if dir:sub(-1) == "/" then return dir .. name end
  return dir .. "/" .. name
end

return M
