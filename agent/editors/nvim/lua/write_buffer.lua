-- write_buffer: replaces a buffer's whole content, or creates a buffer for a path that has none.
-- params: buffer (number | path), lines, expected_changedtick (optional). An existing buffer needs
-- expected_changedtick, and so does a path whose file exists on disk: without one it is refused
-- before any buffer is made, with one it is loaded into a new listed buffer, wiped again when the
-- tick is stale, so that a refused call leaves no buffer behind. A path with neither buffer nor
-- file gets a new listed buffer with that name. One nvim_buf_set_lines in an undo block of its
-- own; the file is never written.
local M = ...
local api = vim.api

return function(p)
  local b, created, added = M.write_target(p.buffer, p.expected_changedtick)
  if not created then
    M.ensure_loaded(b)
    if p.expected_changedtick == nil then
      local tick = api.nvim_buf_get_changedtick(b)
      M.fail('INVALID_ARGUMENT', 'The buffer exists, so expected_changedtick is required. Nothing was changed.', {
        current_changedtick = tick,
        hint = 'Call read_buffer to see the text you would replace, then pass its changedtick as expected_changedtick.',
      })
    end
    local fresh, err = pcall(function()
      M.check_modifiable(b)
      M.check_tick(b, p.expected_changedtick)
    end)
    if not fresh then
      if added then
        api.nvim_buf_delete(b, { force = true })
      end
      error(err, 0)
    end
  end

  M.break_undo(b)
  api.nvim_buf_set_lines(b, 0, -1, true, p.lines)
  M.end_edit(b)
  return {
    buf = b,
    path = M.buf_path(b),
    created = created,
    changedtick = api.nvim_buf_get_changedtick(b),
    total_lines = api.nvim_buf_line_count(b),
  }
end
