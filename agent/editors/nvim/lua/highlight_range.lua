-- highlight_range: highlights start..end (end exclusive) of a buffer with a decoration color.
-- params: buffer (number | path | nil), start, end ({line, col}: 1-based, columns in characters),
-- color. Lines past the end are refused (INVALID_ARGUMENT with line_count); columns past the end
-- of a line are clamped to just after its last character; an empty range is refused. The
-- highlight is one extmark in M.decoration_ns with hl_group VimRelay<Color>: it changes neither
-- the text nor the changedtick, and is not part of undo.
local M = ...
local api = vim.api

-- Row and byte (0-based) of `pos` in buffer `b` of `count` lines, and the position after clamping.
local function locate(b, count, pos, name)
  if pos.line > count then
    M.fail('INVALID_ARGUMENT', name .. '.line ' .. pos.line .. ' is past the end of the buffer, which has ' .. count .. ' lines. Nothing was highlighted.', {
      line_count = count,
      hint = 'Pass lines from 1 to ' .. count .. '; to reach the end of the last line, use {line = ' .. count .. ', col = 9999}.',
    })
  end
  local text = api.nvim_buf_get_lines(b, pos.line - 1, pos.line, true)[1]
  local col = math.min(pos.col, M.char_len(text) + 1)
  return pos.line - 1, M.col_byte(text, col), { line = pos.line, col = col }
end

return function(p)
  local b = M.resolve(p.buffer)
  M.ensure_loaded(b)
  local count = api.nvim_buf_line_count(b)
  local start_row, start_byte, start = locate(b, count, p.start, 'start')
  local end_row, end_byte, stop = locate(b, count, p['end'], 'end')
  if end_row < start_row or (end_row == start_row and end_byte <= start_byte) then
    M.fail('INVALID_ARGUMENT', 'The range is empty: end (' .. stop.line .. ':' .. stop.col .. ', after clamping) does not come after start (' .. start.line .. ':' .. start.col .. '). Nothing was highlighted.', {
      hint = 'end is exclusive: to highlight one character at {line, col}, pass end = {line, col + 1}.',
    })
  end
  local id = api.nvim_buf_set_extmark(b, M.decoration_ns, start_row, start_byte, {
    end_row = end_row,
    end_col = end_byte,
    hl_group = M.decoration_group(p.color),
  })
  return { id = id, buf = b, path = M.buf_path(b), start = start, ['end'] = stop, color = p.color }
end
