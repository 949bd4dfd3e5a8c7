-- clear_decorations: removes vimrelay decorations (extmarks in M.decoration_ns, and nothing else).
-- params: all_buffers (every loaded buffer), or buffer (number | path | nil = current) with an
-- optional id (that one decoration only). Returns how many were removed; a buffer that is not
-- loaded has none (unloading drops extmarks) and is not loaded for this.
local M = ...
local api = vim.api

-- Removes every decoration of buffer `b`; returns how many there were.
local function clear(b)
  if not api.nvim_buf_is_loaded(b) then
    return 0
  end
  local n = #api.nvim_buf_get_extmarks(b, M.decoration_ns, 0, -1, {})
  api.nvim_buf_clear_namespace(b, M.decoration_ns, 0, -1)
  return n
end

return function(p)
  if p.all_buffers then
    local removed = 0
    for _, b in ipairs(api.nvim_list_bufs()) do
      removed = removed + clear(b)
    end
    return { removed = removed, buf = vim.NIL, path = vim.NIL }
  end
  local b = M.resolve(p.buffer)
  local removed
  if p.id == nil then
    removed = clear(b)
  else
    removed = api.nvim_buf_is_loaded(b) and api.nvim_buf_del_extmark(b, M.decoration_ns, p.id) and 1 or 0
  end
  return { removed = removed, buf = b, path = M.buf_path(b) }
end
