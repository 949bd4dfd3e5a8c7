-- set_cursor: moves a window's cursor, first showing a buffer in that window when it shows another.
-- params: window (id | nil = the current window), buffer (number | path | nil = the window's
-- buffer), line, col (1-based, in characters), center. A line past the end is refused
-- (INVALID_ARGUMENT with line_count) before anything moves; a column past the end of the line is
-- clamped to its last character. Inside the window: the old position goes to the jumplist (m'),
-- closed folds at the line open (zv), and center scrolls the line to the middle (zz). Which window
-- is current does not change; the buffer's text and changedtick do not either. A window whose
-- modified buffer Neovim would not hide is refused (EDITOR_ERROR) rather than prompting or saving,
-- and so is showing a buffer while the user is in the command-line window (M.refuse_in_cmdwin).
local M = ...
local api = vim.api

-- Buffer types Neovim never counts as changed (:h bt_dontwrite), so it can always leave them.
local NEVER_CHANGED = { nofile = true, nowrite = true, terminal = true, prompt = true }

-- Whether window `win` can stop showing its buffer without Neovim refusing (E37), asking the user
-- ('confirm') or writing the file ('autowrite'): Vim's can_abandon(), minus the prompt and the write.
local function can_leave(win)
  local b = api.nvim_win_get_buf(win)
  local bo = vim.bo[b]
  return not bo.modified
    or NEVER_CHANGED[bo.buftype]
    or bo.bufhidden == 'hide'
    or (bo.bufhidden == '' and vim.o.hidden)
    or #vim.fn.win_findbuf(b) > 1
end

-- Shows buffer `b` in the current window and puts the cursor at `pos` ({line, byte}). Runs inside
-- nvim_win_call, where a Lua error loses its M.fail shape: returns the error message instead.
local function move(b, pos, center)
  vim.cmd("normal! m'")
  if api.nvim_get_current_buf() ~= b then
    local ok, err = pcall(api.nvim_win_set_buf, 0, b)
    if not ok then
      return tostring(err)
    end
  end
  api.nvim_win_set_cursor(0, pos)
  vim.cmd('normal! zv')
  if center then
    vim.cmd('normal! zz')
  end
end

return function(p)
  local win = p.window or api.nvim_get_current_win()
  if not api.nvim_win_is_valid(win) then
    M.fail('INVALID_ARGUMENT', 'There is no window with id ' .. win .. '.', {
      hint = 'Call get_state_brief (or get_state) for the window ids, or leave out `window` to use the current window.',
    })
  end
  local b = p.buffer == nil and api.nvim_win_get_buf(win) or M.resolve(p.buffer)
  M.ensure_loaded(b)
  local count = api.nvim_buf_line_count(b)
  if p.line > count then
    M.fail('INVALID_ARGUMENT', 'Line ' .. p.line .. ' is past the end of the buffer, which has ' .. count .. ' lines. The cursor did not move.', {
      line_count = count,
      hint = 'Pass a line from 1 to ' .. count .. '.',
    })
  end
  local text = api.nvim_buf_get_lines(b, p.line - 1, p.line, true)[1]
  local col = math.min(p.col, math.max(1, M.char_len(text)))
  local switched = api.nvim_win_get_buf(win) ~= b
  if switched then
    M.refuse_in_cmdwin('The cursor did not move.')
  end
  if switched and not can_leave(win) then
    local shown = api.nvim_win_get_buf(win)
    M.fail('EDITOR_ERROR', 'Window ' .. win .. ' shows buffer ' .. shown .. ', which has unsaved changes, and \'hidden\' is off: Neovim would not hide it (E37). The cursor did not move.', {
      hint = 'Leave out `buffer`, pass a `window` that shows another buffer, or save buffer ' .. shown .. ' first (save_buffer).',
    })
  end

  local err -- an upvalue: nvim_win_call deep-copies what the function returns
  api.nvim_win_call(win, function()
    err = move(b, { p.line, M.col_byte(text, col) }, p.center)
  end)
  if err then
    M.fail('EDITOR_ERROR', 'Neovim could not show buffer ' .. b .. ' in window ' .. win .. ': ' .. err)
  end

  local cursor = api.nvim_win_get_cursor(win)
  local line = api.nvim_buf_get_lines(b, cursor[1] - 1, cursor[1], true)[1]
  return {
    window = win,
    buf = b,
    path = M.buf_path(b),
    cursor = { line = cursor[1], col = M.char_col(line, cursor[2]) },
    switched_buffer = switched,
  }
end
