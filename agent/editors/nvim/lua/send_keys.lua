-- send_keys: <Esc> then `keys` (Vim key notation), executed as typed keys with mappings, to
-- completion inside this call. params: keys, timeout_ms, error_bytes, start_by (the deadline, epoch ms).
-- nvim_feedkeys with "x" runs the keys the way :normal does: when they run out, an unfinished
-- command or insert is ended, so the call cannot leave the editor waiting for more keys. A prompt
-- that still waits (input() does) is interrupted with CTRL-C after timeout_ms: TIMEOUT.
-- v:errmsg is cleared before the keys run to tell their errors, and given back its old value
-- when they raised none.
local M = ...
local api = vim.api

-- Where the current window's cursor is: buffer, path, and the position in characters.
local function where()
  local b = api.nvim_get_current_buf()
  local pos = api.nvim_win_get_cursor(0)
  local line = api.nvim_buf_get_lines(b, pos[1] - 1, pos[1], false)[1] or ''
  return b, { line = pos[1], col = M.char_col(line, pos[2]) }
end

return function(p)
  M.check_start_by(p.start_by)
  local sent = '<Esc>' .. p.keys
  -- do_lt: <lt> is "<", as the tool's description says and Vim's "\<lt>" reads (:h <lt>).
  local raw = api.nvim_replace_termcodes(sent, true, true, true)
  local previous = vim.v.errmsg
  vim.v.errmsg = ''
  -- m: mappings apply; t: as if typed (history, undo, abbreviations); x: execute now.
  local interrupted, ok, err = M.with_interrupt(p.timeout_ms, function() end, api.nvim_feedkeys, raw, 'mtx', false)
  local errmsg = vim.v.errmsg
  if errmsg == '' then
    vim.v.errmsg = previous
  end
  if not ok then
    error(err, 0)
  end

  local mode = api.nvim_get_mode().mode
  if interrupted then
    M.fail('TIMEOUT', 'The keys still ran after ' .. p.timeout_ms .. ' ms and were interrupted with CTRL-C.', {
      sent = sent,
      mode = mode,
      hint = 'They probably reached a prompt that waits for input (such as input()). The keys before it took effect: check with get_state_brief. '
        .. 'Send the answer with the keys, use run_command for Ex commands, or raise timeout_ms.',
    })
  end
  local b, cursor = where()
  return {
    sent = sent,
    mode = mode,
    buf = b,
    path = M.buf_path(b),
    cursor = cursor,
    errmsg = errmsg ~= '' and M.cut(errmsg, p.error_bytes) or vim.NIL,
  }
end
