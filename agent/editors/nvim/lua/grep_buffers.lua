-- grep_buffers: one page of the matches of a pattern in the live text of buffers.
-- params: pattern, mode ('literal' | 'regex'), case_sensitive, buffers (refs, optional; default
-- every loaded listed buffer), max_results, cursor ('<buf>:<line>:<byte>', optional), max_bytes,
-- line_bytes, trim_context_bytes, scan_lines.
-- Both modes are Vim regexes: literal text goes through very nomagic (\V), and \C / \c fixes the
-- case whatever 'ignorecase' says. Buffers are searched in number order, lines in order, every
-- non-overlapping match of a line in order. vim.regex:match_line() tests each line inside the
-- buffer without copying it; only lines that match are read, and matchstrpos() with a count
-- (so that ^ and \< still see the text before the start) finds each match. The page ends before
-- max_results hits, max_bytes of JSON or scan_lines scanned lines would be passed; the cursor is
-- where the next call resumes (the first hit not returned, or the first line not scanned).
local M = ...
local api = vim.api

-- The Vim pattern for the search, and its compiled form. Fails INVALID_ARGUMENT.
local function compile(p)
  if p.pattern:find('\n', 1, true) then
    M.fail('INVALID_ARGUMENT', 'The pattern contains a line break; grep_buffers matches within one line.', {
      hint = 'Search for one line of the text, then read_buffer around the hits.',
    })
  end
  local pattern = p.pattern
  if p.mode == 'literal' then
    pattern = '\\V' .. pattern:gsub('\\', '\\\\')
  end
  pattern = (p.case_sensitive and '\\C' or '\\c') .. pattern
  local ok, regex = pcall(vim.regex, pattern)
  if not ok then
    M.fail('INVALID_ARGUMENT', 'Not a valid Vim regular expression: ' .. tostring(regex):gsub('^.-Vim:', ''), {
      hint = 'Fix the pattern (Vim regex syntax: \\( \\) for groups, \\| for alternatives), or pass mode "literal" to search for the text as it is.',
    })
  end
  return pattern, regex
end

-- The buffers to search, in number order, and how many listed buffers were skipped as unloaded.
local function targets(refs)
  local list, unloaded = {}, 0
  if refs then
    local seen = {}
    for _, ref in ipairs(refs) do
      local b = M.resolve(ref)
      if not seen[b] then
        seen[b] = true
        M.ensure_loaded(b)
        list[#list + 1] = b
      end
    end
  else
    for _, b in ipairs(api.nvim_list_bufs()) do
      if vim.bo[b].buflisted then
        if api.nvim_buf_is_loaded(b) then
          list[#list + 1] = b
        else
          unloaded = unloaded + 1
        end
      end
    end
  end
  table.sort(list)
  return list, unloaded
end

-- Bytes of the character that starts at 0-based byte `i` of `s` (1 past the end).
local function char_bytes(s, i)
  local c = s:byte(i + 1)
  if not c or c < 0xC0 then
    return 1
  end
  return c >= 0xF0 and 4 or c >= 0xE0 and 3 or 2
end

-- The line, or a part of it starting trim_context_bytes before the match when it is too long:
-- text, the column it starts at, whether it was trimmed.
local function excerpt(line, s, p)
  if #line <= p.line_bytes then
    return line, 1, false
  end
  local from = math.max(0, s - p.trim_context_bytes)
  while from < s and line:byte(from + 1) >= 0x80 and line:byte(from + 1) < 0xC0 do
    from = from + 1
  end
  return (M.cut(line:sub(from + 1), p.line_bytes)), M.char_col(line, from), true
end

return function(p)
  local pattern, regex = compile(p)
  local list, unloaded = targets(p.buffers)
  local resume_buf, resume_line, resume_byte = 0, 1, 0
  if p.cursor then
    local b, l, c = p.cursor:match('^(%d+):(%d+):(%d+)$')
    resume_buf, resume_line, resume_byte = tonumber(b), tonumber(l), tonumber(c)
  end

  local hits, budget, scanned = {}, M.budget(p.max_bytes, p.exact_sizes), 0
  local function page(cursor)
    return {
      hits = hits,
      truncated = cursor ~= nil,
      cursor = cursor or vim.NIL,
      searched_buffers = #list,
      unloaded_buffers = unloaded,
    }
  end

  for _, b in ipairs(list) do
    if b >= resume_buf then
      local path = M.buf_path(b)
      local first = b == resume_buf and resume_line or 1
      for lnum = first, api.nvim_buf_line_count(b) do
        if scanned == p.scan_lines then
          return page(b .. ':' .. lnum .. ':0')
        end
        scanned = scanned + 1
        if regex:match_line(b, lnum - 1) then
          local line = api.nvim_buf_get_lines(b, lnum - 1, lnum, true)[1]
          -- The line as Vim holds it, each NUL a "\n" (:h NL-used-for-Nul), byte for byte: a Lua
          -- string with a NUL would reach matchstrpos() as a Blob.
          local subject = (line:gsub('%z', '\n'))
          local from = (b == resume_buf and lnum == resume_line) and resume_byte or 0
          while from <= #line do
            local m = vim.fn.matchstrpos(subject, pattern, from, 1)
            local s, e = m[2], m[3]
            if s < 0 then
              break
            end
            local text, text_col, trimmed = excerpt(line, s, p)
            local hit = {
              buf = b,
              path = path,
              line = lnum,
              col = M.char_col(line, s),
              end_col = M.char_col(line, e),
              text = text,
              text_start_col = text_col,
              trimmed = trimmed,
            }
            if #hits == p.max_results or not budget.take(hit) then
              return page(b .. ':' .. lnum .. ':' .. s)
            end
            hits[#hits + 1] = hit
            -- After an empty match, step over one character so that the search moves on.
            from = e > s and e or s + char_bytes(line, s)
          end
        end
      end
    end
  end
  return page(nil)
end
