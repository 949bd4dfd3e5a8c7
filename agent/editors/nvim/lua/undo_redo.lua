-- undo / redo: steps through one buffer's undo tree with :undo or :redo (one chunk serves both).
-- params: direction ('undo' | 'redo'), buffer (number | path | nil), steps, expected_changedtick
-- (optional). Takes up to `steps` steps and stops early when one moves nothing (the oldest or
-- newest state). In a buffer other than the current one, the window it runs in keeps its cursor and
-- view; in the current buffer the cursor moves to the change, as the user's own u would.
local M = ...
local api = vim.api

return function(p)
  local b = M.resolve(p.buffer)
  M.ensure_loaded(b)
  M.check_modifiable(b)
  local tick = M.check_tick(b, p.expected_changedtick)
  local command = 'silent ' .. p.direction

  local result = M.in_buffer(b, b ~= api.nvim_get_current_buf(), function()
    local taken = 0
    for _ = 1, p.steps do
      local before = vim.fn.undotree().seq_cur
      vim.cmd(command)
      if vim.fn.undotree().seq_cur == before then
        break
      end
      taken = taken + 1
    end
    local tree = vim.fn.undotree()
    return { taken = taken, seq_cur = tree.seq_cur, seq_last = tree.seq_last }
  end)

  local now = api.nvim_buf_get_changedtick(b)
  return {
    buf = b,
    path = M.buf_path(b),
    steps_taken = result.taken,
    changed = now ~= tick,
    changedtick = now,
    seq_cur = result.seq_cur,
    seq_last = result.seq_last,
  }
end
