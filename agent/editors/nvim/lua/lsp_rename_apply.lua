-- lsp_rename_apply: the second phase of lsp_rename with apply (tools/tool.ts CommitPhase): makes
-- the edit lsp_rename.lua kept under p.token, all or nothing. Everything is checked before anything
-- changes: p.start_by, the position's buffer at p.expected_changedtick and unchanged since, every
-- buffer that was loaded unchanged (its changedtick), and every other file (a buffer loaded since,
-- or the file on disk) still the text the edit was computed on. Then each file's buffer (added and
-- loaded when none holds it, and listed) gets its edits, bottom-up, as one undo step; nothing is
-- saved.
local M = ...
local api = vim.api

-- STALE_CHANGEDTICK for `path`: it changed since the server computed the rename. `tick` is the
-- position's buffer's, whichever file changed: the one the hint's next apply needs.
local function stale(path, tick)
  M.fail('STALE_CHANGEDTICK', path .. ' changed since the language server computed the rename; nothing was changed.', {
    current_changedtick = tick,
    hint = 'Call lsp_rename again (read_buffer for the changedtick of the position\'s buffer), then apply that.',
  })
end

-- Whether two lists of lines are the same.
local function same(a, b)
  if #a ~= #b then
    return false
  end
  for i = 1, #a do
    if a[i] ~= b[i] then
      return false
    end
  end
  return true
end

return function(p)
  M.check_start_by(p.start_by)
  local kept = M.take(p.token)
  if not kept then
    M.fail('EDITOR_ERROR', 'The editor no longer holds this rename (another call replaced it, or the editor restarted); nothing was changed.', {
      hint = 'Call lsp_rename with apply again.',
    })
  end
  local tick = M.check_tick(kept.buf, p.expected_changedtick)
  if tick ~= kept.tick then
    stale(M.buf_path(kept.buf), tick)
  end
  -- Each file's buffer now, found once for the check and the edit (a buffer wiped since is none).
  local bufs = {}
  for i, f in ipairs(kept.files) do
    local b = (f.buf and api.nvim_buf_is_valid(f.buf)) and f.buf or M.find_by_path(f.path)
    bufs[i] = b
    if b and api.nvim_buf_is_loaded(b) then
      M.check_modifiable(b)
      local now = api.nvim_buf_get_changedtick(b)
      if (kept.ticks[b] or now) ~= now or not same(api.nvim_buf_get_lines(b, 0, -1, false), f.lines) then
        stale(f.path, tick)
      end
    else
      local ok, lines = pcall(vim.fn.readfile, f.path)
      if not ok or not same(lines, f.lines) then
        stale(f.path, tick)
      end
    end
  end
  for i, f in ipairs(kept.files) do
    local b = bufs[i] or vim.fn.bufadd(f.path)
    M.ensure_loaded(b)
    vim.bo[b].buflisted = true
    M.break_undo(b)
    for j = #f.edits, 1, -1 do
      local e = f.edits[j]
      M.set_text(b, e.sr, e.sc, e.er, e.ec, M.split_lines(e.new))
    end
    M.end_edit(b)
    kept.out.files[i].buf = b
    kept.out.files[i].changedtick = api.nvim_buf_get_changedtick(b)
  end
  kept.out.applied = true
  return kept.out
end
