-- find_and_replace: replaces the one occurrence of old_text (may span lines) with new_text.
-- params: buffer (number | path | nil), old_lines, new_lines (the texts' lines),
-- expected_changedtick (optional), max_matches. Occurrences are counted in the buffer's lines joined with "\n", overlapping ones
-- included; anything but exactly one changes nothing. The replacement is one nvim_buf_set_text,
-- in an undo block of its own: one undo step. Positions are 1-based, columns in characters.
local M = ...
local api = vim.api

-- Byte offsets (1-based, ascending) in `text` -> {line, col (chars), byte (0-based in its line)}.
local function positions(text, offsets)
  local out, line, line_start = {}, 1, 1
  for _, offset in ipairs(offsets) do
    while true do
      local nl = text:find('\n', line_start, true)
      if not nl or nl >= offset then
        break
      end
      line = line + 1
      line_start = nl + 1
    end
    out[#out + 1] = { line = line, col = M.char_len(text:sub(line_start, offset - 1)) + 1, byte = offset - line_start }
  end
  return out
end

return function(p)
  local b = M.resolve(p.buffer)
  M.ensure_loaded(b)
  M.check_modifiable(b)
  M.check_tick(b, p.expected_changedtick)

  local text = table.concat(api.nvim_buf_get_lines(b, 0, -1, true), '\n')
  local old = table.concat(p.old_lines, '\n')
  local count, shown, init = 0, {}, 1
  while true do
    local at = text:find(old, init, true)
    if not at then
      break
    end
    count = count + 1
    if #shown < p.max_matches then
      shown[#shown + 1] = at
    end
    init = at + 1
  end
  if count == 0 then
    M.fail('NO_MATCH', 'old_text does not occur in the buffer. Nothing was changed.')
  end
  if count > 1 then
    local matches = {}
    for i, pos in ipairs(positions(text, shown)) do
      matches[i] = { line = pos.line, col = pos.col }
    end
    M.fail('MULTIPLE_MATCHES', 'old_text occurs ' .. count .. ' times in the buffer. Nothing was changed.', {
      match_count = count,
      matches = matches,
    })
  end

  local at = shown[1]
  local span = positions(text, { at, at + #old })
  local start, stop = span[1], span[2]
  local new_lines = p.new_lines
  M.break_undo(b)
  M.set_text(b, start.line - 1, start.byte, stop.line - 1, stop.byte, new_lines)
  M.end_edit(b)

  local last = new_lines[#new_lines]
  local end_pos
  if #new_lines == 1 then
    end_pos = { line = start.line, col = start.col + M.char_len(last) }
  else
    end_pos = { line = start.line + #new_lines - 1, col = M.char_len(last) + 1 }
  end
  return {
    buf = b,
    path = M.buf_path(b),
    changedtick = api.nvim_buf_get_changedtick(b),
    start = { line = start.line, col = start.col },
    ['end'] = end_pos,
  }
end
