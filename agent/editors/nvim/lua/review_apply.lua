-- review_apply: makes what the user accepted in a review (README "Reviews") in the real buffer.
-- params: buffer (number), expected_changedtick (the tick the agent merged against), hunks (each
-- {start, count, lines}: `count` lines from 0-based `start` replaced by `lines`, in order, none
-- overlapping; agent/reviews/diff.ts). Refused, changing nothing, when the buffer changed since
-- (STALE_CHANGEDTICK with current_changedtick and current_lines: the agent merges again). The hunks are made last first, so that each one's
-- lines are where the agent found them, in one undo block of their own; lines outside them (and
-- their marks and extmarks) are not touched. The file is not written.
local M = ...
local api = vim.api

return function(p)
  local b = M.resolve(p.buffer)
  M.ensure_loaded(b)
  M.check_modifiable(b)
  local tick = api.nvim_buf_get_changedtick(b)
  if tick ~= p.expected_changedtick then
    M.fail('STALE_CHANGEDTICK', 'The buffer changed during the review. Nothing was changed.', {
      current_changedtick = tick,
      current_lines = api.nvim_buf_get_lines(b, 0, -1, true),
    })
  end
  M.break_undo(b)
  for i = #p.hunks, 1, -1 do
    local h = p.hunks[i]
    api.nvim_buf_set_lines(b, h.start, h.start + h.count, true, h.lines)
  end
  M.break_undo(b)
  return {
    buf = b,
    path = M.buf_path(b),
    changedtick = api.nvim_buf_get_changedtick(b),
    total_lines = api.nvim_buf_line_count(b),
  }
end
