-- get_state_brief: mode, cwd, buffers (listed first, at most max_buffers), modified buffers, the
-- active window and the alternate one with cursor and context_lines lines of context each side
-- (each context line cut to context_line_bytes bytes at a character boundary), and terminals.
-- params: max_buffers, context_lines, context_line_bytes. Columns are 1-based characters.
local M = ...
local api = vim.api

-- `s` cut to at most `max` bytes without splitting a character.
local function cut(s, max)
  if #s <= max then
    return s
  end
  local stop = max
  -- Back off from continuation bytes (0x80-0xBF) to the start of the character at max + 1.
  while stop > 0 and s:byte(stop + 1) >= 0x80 and s:byte(stop + 1) < 0xC0 do
    stop = stop - 1
  end
  return s:sub(1, stop)
end

local function buffer_summary(b)
  local loaded = api.nvim_buf_is_loaded(b)
  return {
    buf = b,
    path = M.buf_path(b),
    name = vim.fn.bufname(b),
    listed = vim.bo[b].buflisted,
    loaded = loaded,
    modified = vim.bo[b].modified,
    buftype = vim.bo[b].buftype,
    filetype = vim.bo[b].filetype,
    line_count = loaded and api.nvim_buf_line_count(b) or vim.NIL,
    changedtick = loaded and api.nvim_buf_get_changedtick(b) or vim.NIL,
  }
end

local function window_summary(win, role, p)
  local b = api.nvim_win_get_buf(win)
  local cursor = api.nvim_win_get_cursor(win)
  local line, byte = cursor[1], cursor[2]
  local first = math.max(1, line - p.context_lines)
  local lines = api.nvim_buf_get_lines(b, first - 1, line + p.context_lines, false)
  local current = lines[line - first + 1] or ''
  for i, l in ipairs(lines) do
    lines[i] = cut(l, p.context_line_bytes)
  end
  return {
    win = win,
    role = role,
    buf = b,
    path = M.buf_path(b),
    cursor = { line = line, col = M.char_len(current:sub(1, byte)) + 1 },
    context = { start_line = first, lines = lines },
  }
end

return function(p)
  local listed, unlisted, modified, terminals = {}, {}, {}, {}
  for _, b in ipairs(api.nvim_list_bufs()) do
    table.insert(vim.bo[b].buflisted and listed or unlisted, b)
    if vim.bo[b].modified then
      modified[#modified + 1] = b
    end
    if vim.bo[b].buftype == 'terminal' and #terminals < p.max_buffers then
      terminals[#terminals + 1] = { buf = b, name = vim.fn.bufname(b), visible = #vim.fn.win_findbuf(b) > 0 }
    end
  end

  local buffers = {}
  for _, group in ipairs({ listed, unlisted }) do
    for _, b in ipairs(group) do
      if #buffers < p.max_buffers then
        buffers[#buffers + 1] = buffer_summary(b)
      end
    end
  end

  local active = api.nvim_get_current_win()
  local windows = { window_summary(active, 'active', p) }
  local alternate_nr = vim.fn.winnr('#')
  if alternate_nr > 0 then
    local alternate = vim.fn.win_getid(alternate_nr)
    if alternate ~= 0 and alternate ~= active then
      windows[2] = window_summary(alternate, 'alternate', p)
    end
  end

  return {
    mode = vim.fn.mode(),
    cwd = vim.fn.getcwd(),
    buffers = buffers,
    buffers_truncated = #listed + #unlisted > #buffers,
    modified_buffers = modified,
    windows = windows,
    terminals = terminals,
  }
end
