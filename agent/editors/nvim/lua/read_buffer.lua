-- read_buffer: one page of a buffer's live text (unsaved changes included), with its changedtick.
-- params: buffer (number | path | nil), start_line, end_line (1-based, inclusive, optional),
-- max_lines, max_bytes, exact_sizes. Bounds are clamped and reversed ones swapped; the page stops
-- before max_lines lines or max_bytes bytes would be exceeded (each line counted as its JSON
-- string plus a separator, so that quotes, backslashes and control characters count as sent;
-- bytes that are not UTF-8 as the agent reads them with exact_sizes: util.lua M.json_size), and
-- then says where to continue. Only the page leaves the editor.
local M = ...
local api = vim.api

local FIRST_CHUNK = 256

return function(p)
  local b = M.resolve(p.buffer)
  M.ensure_loaded(b)
  local total = api.nvim_buf_line_count(b)
  local first, last = p.start_line or 1, p.end_line or total
  if first > last then
    first, last = last, first
  end
  first = math.max(1, math.min(first, total))
  last = math.min(last, total)

  local page_end = math.min(last, first + p.max_lines - 1)
  -- Fetched in chunks that double (FIRST_CHUNK lines first): a page that the byte cap ends early
  -- (long lines) never copies out of the buffer the many lines after its end. Each chunk is
  -- encoded once, as an array whose size counts its lines (M.text_size); the page's lines go out as
  -- those arrays joined (M.spliced), never encoded again. Only the chunk that reaches the cap is
  -- counted line by line.
  local parts, bytes, kept = {}, 0, 0
  local at, chunk, full = first, FIRST_CHUNK, false
  while at <= page_end and not full do
    local upto = math.min(page_end, at + chunk - 1)
    local got = api.nvim_buf_get_lines(b, at - 1, upto, true)
    local text = vim.json.encode(got)
    local size = M.text_size(text, p.exact_sizes) - 2
    if bytes + size <= p.max_bytes then
      bytes, kept = bytes + size, kept + #got
      parts[#parts + 1] = text:sub(2, -2)
    else
      local fit = {}
      for _, line in ipairs(got) do
        local line_size = M.json_size(line, p.exact_sizes)
        if bytes + line_size > p.max_bytes then
          break
        end
        bytes = bytes + line_size
        fit[#fit + 1] = line
      end
      if kept == 0 and #fit == 0 then
        M.fail('UNSUPPORTED', 'Line ' .. first .. ' alone is ' .. M.json_size(got[1], p.exact_sizes) .. ' bytes as JSON, more than the ' .. p.max_bytes .. '-byte result cap.', {
          line = first,
          line_bytes = #got[1],
          hint = 'Read from start_line ' .. (first + 1) .. ' to skip it, or edit it with find_and_replace using a short, unique old_text.',
        })
      end
      if #fit > 0 then
        kept = kept + #fit
        parts[#parts + 1] = vim.json.encode(fit):sub(2, -2)
      end
      full = true
    end
    at, chunk = upto + 1, chunk * 2
  end

  local returned_end = first + kept - 1
  local truncated = returned_end < last
  return M.spliced({
    buf = b,
    path = M.buf_path(b),
    changedtick = api.nvim_buf_get_changedtick(b),
    total_lines = total,
    start_line = first,
    end_line = returned_end,
    truncated = truncated,
    next_start_line = truncated and returned_end + 1 or vim.NIL,
  }, 'lines', '[' .. table.concat(parts, ',') .. ']')
end
