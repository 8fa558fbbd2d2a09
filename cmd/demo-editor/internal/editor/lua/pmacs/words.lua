-- pmacs.words: what an identifier is, for the commands that act on the
-- word at the cursor (completion, rename). It owns no state.
local M = {}

-- is_word says whether byte b belongs to an identifier (any byte of a
-- UTF-8 sequence does: letters beyond ASCII are a word's too).
function M.is_word(b)
  return b ~= nil and (b >= 0x80 or b == 95 or (b >= 48 and b <= 57) or (b >= 65 and b <= 90) or (b >= 97 and b <= 122))
end

-- word_at returns the byte range [s, e) of the identifier around col.
function M.word_at(line, col)
  local s, e = col, col
  while s > 0 and M.is_word(line:byte(s)) do s = s - 1 end
  while e < #line and M.is_word(line:byte(e + 1)) do e = e + 1 end
  return s, e
end

return M
