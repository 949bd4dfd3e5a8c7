-- get_diagnostics: one page of vim.diagnostic's diagnostics, for one buffer or all.
-- params: buffer (ref, optional; default all), severity ('error' | 'warn' | 'info' | 'hint',
-- optional), severity_match ('at_least' | 'exact'), max_results, cursor
-- ('<buf>:<line>:<col>:<skip>', optional), max_bytes, message_bytes, withheld (files whose buffers
-- count as having no diagnostics at all: a buffer is left out when its name or its real path is
-- one of them; the agent's never_read, agent/editors/call.ts `withheldPaths`).
-- Diagnostics are sorted by buffer, line, column (0-based bytes as Neovim keeps them), then
-- severity, end and message. The cursor names the first diagnostic not returned: its buffer, line
-- and byte column, and how many diagnostics at that same place precede it; the next call resumes
-- there, so diagnostics that appear or go away elsewhere in between shift nothing. The page ends
-- before max_results diagnostics or max_bytes of JSON would be passed. Columns are converted to
-- characters with the buffer's text, or with its file's when the buffer is not loaded.
local M = ...
local api = vim.api

local SEVERITY_NUMBER = { error = 1, warn = 2, info = 3, hint = 4 }
local SEVERITY_NAME = { 'error', 'warn', 'info', 'hint' }

-- Whether `a` comes before `b` by the place a cursor names: buffer, line, byte column.
local function place_less(a, b)
  if a.bufnr ~= b.bufnr then
    return a.bufnr < b.bufnr
  elseif a.lnum ~= b.lnum then
    return a.lnum < b.lnum
  end
  return a.col < b.col
end

-- The sort order: place, then severity (worst first), end, message.
local function less(a, b)
  if place_less(a, b) then
    return true
  elseif place_less(b, a) then
    return false
  end
  if a.severity ~= b.severity then
    return a.severity < b.severity
  end
  local ae, be = a.end_lnum or a.lnum, b.end_lnum or b.lnum
  if ae ~= be then
    return ae < be
  end
  local ac, bc = a.end_col or a.col, b.end_col or b.col
  if ac ~= bc then
    return ac < bc
  end
  return tostring(a.message) < tostring(b.message)
end

-- Index (1-based) in sorted `list` of the first diagnostic the cursor names.
local function resume_index(list, cursor)
  if not cursor then
    return 1
  end
  local b, l, c, skip = cursor:match('^(%d+):(%d+):(%d+):(%d+)$')
  local at = { bufnr = tonumber(b), lnum = tonumber(l), col = tonumber(c) }
  skip = tonumber(skip)
  local i = 1
  while list[i] and place_less(list[i], at) do
    i = i + 1
  end
  while skip > 0 and list[i] and not place_less(at, list[i]) do
    i, skip = i + 1, skip - 1
  end
  return i
end

-- The cursor that names list[i].
local function cursor_at(list, i)
  local d, skip = list[i], 0
  while list[i - skip - 1] and not place_less(list[i - skip - 1], d) do
    skip = skip + 1
  end
  return d.bufnr .. ':' .. d.lnum .. ':' .. d.col .. ':' .. skip
end

-- Reads line `row` (0-based) of buffer `b`: from the buffer when loaded, else from its file (read
-- once, up to the last row this page needs); nil when neither has it.
local function line_reader(last_row)
  local files = {}
  return function(b, row)
    if api.nvim_buf_is_loaded(b) then
      return api.nvim_buf_get_lines(b, row, row + 1, false)[1]
    end
    if files[b] == nil then
      local path = api.nvim_buf_is_valid(b) and M.buf_path(b) or vim.NIL
      local ok, lines = false, nil
      if path ~= vim.NIL then
        ok, lines = pcall(vim.fn.readfile, path, '', last_row[b] + 1)
      end
      files[b] = ok and lines or false
    end
    return files[b] and files[b][row + 1] or nil
  end
end

-- 1-based character column of byte `col` on line `row`; byte + 1 when the text is unavailable.
local function column(read, b, row, col)
  local line = read(b, row)
  return line and M.char_col(line, col) or col + 1
end

return function(p)
  if not vim.diagnostic then
    M.fail('UNSUPPORTED', 'This Neovim has no vim.diagnostic.')
  end
  local scope = nil
  if p.buffer ~= nil then
    scope = M.resolve(p.buffer)
  end
  local wanted = p.severity and SEVERITY_NUMBER[p.severity]
  local counts = { error = 0, warn = 0, info = 0, hint = 0 }
  local list = {}
  local held = M.withheld_buffers(p.withheld)
  for _, d in ipairs(vim.diagnostic.get(scope)) do
    if not held(d.bufnr) then
      counts[SEVERITY_NAME[d.severity]] = counts[SEVERITY_NAME[d.severity]] + 1
      if not wanted or d.severity == wanted or (p.severity_match == 'at_least' and d.severity < wanted) then
        list[#list + 1] = d
      end
    end
  end
  table.sort(list, less)

  local first = resume_index(list, p.cursor)
  local last = math.min(#list, first + p.max_results - 1)
  local last_row = {}
  for i = first, last do
    local d = list[i]
    last_row[d.bufnr] = math.max(last_row[d.bufnr] or 0, d.lnum, d.end_lnum or d.lnum)
  end
  local read = line_reader(last_row)

  local out, budget, next_index = {}, M.budget(p.max_bytes, p.exact_sizes), nil
  for i = first, last do
    local d = list[i]
    local end_row, end_col = d.end_lnum or d.lnum, d.end_col or d.col
    local message, cut = M.cut(tostring(d.message), p.message_bytes)
    local item = {
      buf = d.bufnr,
      path = api.nvim_buf_is_valid(d.bufnr) and M.buf_path(d.bufnr) or vim.NIL,
      line = d.lnum + 1,
      col = column(read, d.bufnr, d.lnum, d.col),
      end_line = end_row + 1,
      end_col = column(read, d.bufnr, end_row, end_col),
      severity = SEVERITY_NAME[d.severity],
      message = message,
      message_truncated = cut,
      source = d.source ~= nil and tostring(d.source) or vim.NIL,
      code = d.code ~= nil and tostring(d.code) or vim.NIL,
    }
    if not budget.take(item) then
      next_index = i
      break
    end
    out[#out + 1] = item
  end
  if not next_index and last < #list then
    next_index = last + 1
  end

  return {
    diagnostics = out,
    total = #list,
    counts = counts,
    truncated = next_index ~= nil,
    cursor = next_index and cursor_at(list, next_index) or vim.NIL,
  }
end
