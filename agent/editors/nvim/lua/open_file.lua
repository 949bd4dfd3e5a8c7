-- open_file: adds a file to the buffer list and loads it; shows it in the current window on request.
-- params: path (absolute, or relative to the cwd), show. The path reaches the editor only as data
-- (bufadd, bufload, nvim_win_set_buf), never an Ex command line, so no character in it is special.
-- A file already in a buffer gets that buffer (made listed and loaded); a missing file becomes an
-- empty buffer with that name; anything on disk but a regular file (directory, fifo...) is refused.
-- show is refused, before anything is added, when leaving the current window's buffer would abandon
-- its unsaved changes ('nohidden'; Vim would then refuse, ask, or with 'autowrite' even save it),
-- and while the user is in the command-line window (M.refuse_in_cmdwin).
local M = ...
local api = vim.api
local uv = M.compat.uv

-- Whether the current window can switch away from its buffer without abandoning or saving changes
-- (can_abandon() in Vim's source, minus the autowrite and force branches).
local function can_leave_current(target)
  local cur = api.nvim_get_current_buf()
  if cur == target or not vim.bo[cur].modified or #vim.fn.win_findbuf(cur) > 1 then
    return true
  end
  local bufhidden = vim.bo[cur].bufhidden
  return bufhidden == 'hide' or (bufhidden == '' and vim.o.hidden)
end

return function(p)
  local b, path = M.find_by_path(p.path)
  path = path or M.absolute(p.path)
  local stat = uv.fs_stat(b and api.nvim_buf_get_name(b) or path)
  if stat and stat.type ~= 'file' then
    M.fail('INVALID_ARGUMENT', path .. ' is a ' .. stat.type .. ', not a file.', {
      hint = 'Pass the path of a regular file (or of a file to create).',
    })
  end
  if p.show and api.nvim_get_current_buf() ~= b then
    M.refuse_in_cmdwin('Nothing was opened.')
  end
  if p.show and not can_leave_current(b) then
    M.fail('EDITOR_ERROR', 'The current window\'s buffer has unsaved changes and cannot be hidden (\'hidden\' is off), so it cannot show another buffer. Nothing was opened.', {
      hint = 'Call open_file without show, or save the current buffer first (save_buffer) and retry.',
    })
  end

  local created = false
  if not b then
    b = vim.fn.bufadd(path)
    created = true
  end
  vim.bo[b].buflisted = true
  M.ensure_loaded(b)
  if p.show then
    api.nvim_win_set_buf(0, b)
  end
  return {
    buf = b,
    path = M.buf_path(b),
    created = created,
    exists_on_disk = stat ~= nil,
    shown = api.nvim_get_current_buf() == b,
    total_lines = api.nvim_buf_line_count(b),
    changedtick = api.nvim_buf_get_changedtick(b),
    modified = vim.bo[b].modified,
  }
end
