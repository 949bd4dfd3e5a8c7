-- substitute: Vim's :substitute over a line range of one buffer; returns the number of replacements.
-- params: buffer (number | path | nil), pattern, replacement, global, ignore_case, start_line,
-- end_line (default: the whole buffer), expected_changedtick (optional).
-- The pattern never goes through Ex parsing (whose delimiter rules a pattern can subvert, e.g. an
-- unclosed "[" runs past the delimiter): it is made the last search pattern and :s is given an
-- empty one, under :keeppatterns; the user's last search pattern and v:hlsearch are put back after.
-- The replacement is delimited by a character it does not contain (the schema refuses \=, raw line
-- breaks and a trailing lone backslash); a "~" in it is literal and \n is a line break. A dry run
-- with the n flag counts the matches exactly (its \= expression only counts, in the sandbox); then
-- the real :s runs, as one undo step, even when the count is 0, so that the "last substitute
-- string" Vim keeps (for the user's & and :&&) is the replacement, not the counter.
-- For the call, options that would change what :s does are neutralized ('gdefault', 'edcompatible',
-- 'magic'; 'ignorecase'/'smartcase' are overridden by always giving i or I), closed folds are
-- disabled so that they cannot widen the range, and the window's cursor and view are kept.
local M = ...
local api = vim.api

-- Candidate delimiters of the replacement: single-byte, not alphanumeric, '\', '"' or '|' (:h :s).
local DELIMITERS = '/#@!,;:.%+=-_^*~<>?'

-- Global options set for the call, when the editor has them (features detected, not versions).
local NEUTRAL = { gdefault = false, edcompatible = false, magic = true }

-- Runs fn(), then cleanup() whatever happened; rethrows fn's error intact.
local function finally(fn, cleanup)
  local ok, result = pcall(fn)
  cleanup()
  if not ok then
    error(result, 0)
  end
  return result
end

-- A delimiter that does not occur in the replacement.
local function delimiter(replacement)
  for i = 1, #DELIMITERS do
    local d = DELIMITERS:sub(i, i)
    if not replacement:find(d, 1, true) then
      return d
    end
  end
  M.fail('INVALID_ARGUMENT', 'The replacement contains every character that could delimit it (' .. DELIMITERS .. ').', {
    hint = 'Split the change into several substitute calls, or use find_and_replace.',
  })
end

-- Two escapes with surprising meanings in a replacement (:h sub-replace-special), made plain.
local PLAIN = {
  -- Vim's previous replacement string, state the caller cannot see: a literal "~" instead.
  ['~'] = '\\~',
  -- A NUL character: a line break instead, as \r gives.
  ['\\n'] = '\\r',
}

-- The replacement with PLAIN applied; escaped pairs are taken whole, so an escaped \~ stays as is.
local function plain_replacement(replacement)
  return (replacement:gsub('\\?.', PLAIN))
end

-- Vim's message without its "Vim(substitute):" or "Vim:" prefix.
local function vim_message(err)
  return (tostring(err):gsub('^Vim%(%a+%):', ''):gsub('^Vim:', ''))
end

return function(p)
  local b = M.resolve(p.buffer)
  M.ensure_loaded(b)
  M.check_modifiable(b)
  M.check_tick(b, p.expected_changedtick)

  local n = api.nvim_buf_line_count(b)
  local first, last = p.start_line or 1, p.end_line or n
  if first > last or last > n then
    M.fail('INVALID_ARGUMENT', 'The range ' .. first .. '..' .. last .. ' is not within the buffer\'s ' .. n .. ' lines (1..' .. n .. '). Nothing was changed.', {
      total_lines = n,
      hint = 'Pass start_line <= end_line <= total_lines, or leave them out for the whole buffer.',
    })
  end
  -- match() compiles as :s does (vim.regex is stricter: it refuses an unclosed "[").
  local ok, err = pcall(vim.fn.match, '', p.pattern)
  if not ok then
    M.fail('INVALID_ARGUMENT', 'The pattern is not a valid Vim regular expression: ' .. vim_message(err), {
      hint = 'Fix the pattern (Vim regex, magic: \\( \\) group, \\| alternates, \\{n,m} counts), then retry.',
    })
  end

  local replacement = plain_replacement(p.replacement)
  local d = delimiter(replacement)
  local range = first .. ',' .. last
  local flags = (p.global and 'g' or '') .. (p.ignore_case and 'i' or 'I') .. 'e'
  local saved_pattern, saved_hlsearch = vim.fn.getreg('/'), vim.v.hlsearch
  vim.g.__vimrelay_count = { 0 }

  local function run()
    vim.fn.setreg('/', p.pattern)
    vim.cmd('silent keeppatterns ' .. range .. [[s//\=map(g:__vimrelay_count, 'v:val + 1')/]] .. flags .. 'n')
    M.break_undo(b)
    local done, failure = pcall(vim.cmd, 'silent keeppatterns ' .. range .. 's' .. d .. d .. replacement .. d .. flags)
    M.end_edit(b)
    if not done then
      M.fail('EDITOR_ERROR', vim_message(failure))
    end
    return vim.g.__vimrelay_count[1]
  end

  local function with_neutral_options()
    local saved = {}
    for name, value in pairs(NEUTRAL) do
      if vim.fn.exists('+' .. name) == 1 and vim.o[name] ~= value then
        saved[name] = vim.o[name]
        vim.o[name] = value
      end
    end
    local foldenable = vim.wo.foldenable
    vim.wo.foldenable = false
    return finally(run, function()
      vim.wo.foldenable = foldenable
      for name, value in pairs(saved) do
        vim.o[name] = value
      end
    end)
  end

  local count = finally(function()
    return M.in_buffer(b, true, with_neutral_options)
  end, function()
    vim.fn.setreg('/', saved_pattern)
    vim.v.hlsearch = saved_hlsearch
    vim.g.__vimrelay_count = nil
  end)

  return {
    buf = b,
    path = M.buf_path(b),
    count = count,
    changedtick = api.nvim_buf_get_changedtick(b),
    total_lines = api.nvim_buf_line_count(b),
  }
end
