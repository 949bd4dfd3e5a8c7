-- apply_diff: applies the hunks of a parsed unified diff to one buffer, all or none, as one undo step.
-- params: buffer (number | path | nil), expected_changedtick, hunks (as protocol/tools/unified-diff.ts
-- makes them: index, header, start, old, edits {at, remove, add}, old_no_eol, new_no_eol),
-- mismatch_lines, line_bytes, max_shifted.
-- Every hunk is located first, against the live lines and in order: at its header's line (moved by
-- the previous hunk's shift), else at the nearest line where its old lines match exactly, after the
-- previous hunk; a hunk marked "\ No newline at end of file" must end at the last line. If any hunk
-- has no place, DIFF_MISMATCH and nothing changes. Then the edits go in bottom-up (so that earlier
-- positions stay valid), inside one undo block. A diff that only inserts at the top (a new file's
-- diff, "@@ -0,0 +1,n @@") replaces the one empty line Neovim shows in a buffer that holds no text
-- (M.holds_no_text: a 0-byte file); a buffer that is one empty line ("\n") keeps it, after the
-- inserted lines, as `diff` and `patch` count it.
local M = ...
local api = vim.api

-- Whether `old` is at line `s` of `lines`.
local function matches_at(lines, old, s)
  for j = 1, #old do
    if lines[s + j - 1] ~= old[j] then
      return false
    end
  end
  return true
end

-- Where hunk `h` goes: a line >= lo, nearest to `guess`. Returns nil (and the two equally near
-- candidates, when that is why) when it has no place.
local function locate(lines, n, h, guess, lo)
  local len = #h.old
  if h.old_no_eol or h.new_no_eol then
    local s = n - len + 1
    return (s >= lo and matches_at(lines, h.old, s)) and s or nil
  end
  if len == 0 then
    return (guess >= lo and guess <= n + 1) and guess or nil
  end
  local hi = n - len + 1
  local function fits(s)
    return s >= lo and s <= hi and matches_at(lines, h.old, s)
  end
  if fits(guess) then
    return guess
  end
  for d = 1, math.max(guess - lo, hi - guess) do
    local up, down = fits(guess - d), fits(guess + d)
    if up and down then
      return nil, { guess - d, guess + d }
    elseif up then
      return guess - d
    elseif down then
      return guess + d
    end
  end
  return nil
end

-- Fails with DIFF_MISMATCH for hunk `h`, which should apply at line `at`, showing the buffer there.
local function mismatch(p, b, lines, n, h, at, ambiguous)
  local first = math.max(1, math.min(at, n))
  local last = math.min(n, first + math.max(#h.old, 1) - 1, first + p.mismatch_lines - 1)
  local shown = {}
  for l = first, last do
    shown[#shown + 1] = (M.cut(lines[l], p.line_bytes))
  end
  local details = {
    hunk = h.index,
    header = h.header,
    buffer_lines = { start_line = first, lines = shown, total_lines = n },
    current_changedtick = api.nvim_buf_get_changedtick(b),
  }
  local where = 'at line ' .. at
  for j = 1, #h.old do
    if lines[at + j - 1] ~= h.old[j] then
      details.line = at + j - 1
      details.expected = (M.cut(h.old[j], p.line_bytes))
      details.actual = lines[at + j - 1] and (M.cut(lines[at + j - 1], p.line_bytes)) or vim.NIL
      where = 'at line ' .. details.line .. ' (first differing line)'
      break
    end
  end
  local what = 'Hunk ' .. h.index .. ' (' .. h.header .. ') does not match the buffer ' .. where
  if ambiguous then
    what = what .. ', and its lines occur both at line ' .. ambiguous[1] .. ' and at line ' .. ambiguous[2]
      .. ', equally near: add context lines or fix the line numbers'
  elseif h.old_no_eol or h.new_no_eol then
    what = what .. '; it marks the end of the file ("\\ No newline at end of file"), so it must match the last lines'
  elseif #h.old == 0 then
    what = 'Hunk ' .. h.index .. ' (' .. h.header .. ') inserts before line ' .. at .. ', but the buffer has ' .. n .. ' lines'
  else
    what = what .. ', and its lines occur nowhere else' .. (h.index > 1 and ' after the previous hunk' or '')
  end
  M.fail('DIFF_MISMATCH', what .. '. Nothing was changed.', details)
end

return function(p)
  local b = M.resolve(p.buffer)
  M.ensure_loaded(b)
  M.check_modifiable(b)
  M.check_tick(b, p.expected_changedtick)

  local lines = api.nvim_buf_get_lines(b, 0, -1, true)
  local n = #lines
  local hunks = p.hunks
  local empty = n == 1 and lines[1] == '' and #hunks == 1 and #hunks[1].old == 0 and hunks[1].start == 1
    and M.holds_no_text(b)
  if empty then
    lines, n = {}, 0
  end

  local starts, shifted, shifted_count = {}, {}, 0
  local offset, lo = 0, 1
  for i, h in ipairs(hunks) do
    local s, ambiguous = locate(lines, n, h, h.start + offset, lo)
    if not s then
      mismatch(p, b, lines, n, h, h.start + offset, ambiguous)
    end
    starts[i] = s
    offset = s - h.start
    lo = s + #h.old
    if offset ~= 0 then
      shifted_count = shifted_count + 1
      if #shifted < p.max_shifted then
        shifted[#shifted + 1] = { hunk = h.index, offset = offset }
      end
    end
  end

  local added, removed = 0, 0
  M.break_undo(b)
  for i = #hunks, 1, -1 do
    local h, s = hunks[i], starts[i]
    for k = #h.edits, 1, -1 do
      local e = h.edits[k]
      local from = s - 1 + e.at
      api.nvim_buf_set_lines(b, from, empty and -1 or from + e.remove, true, e.add)
      added, removed = added + #e.add, removed + e.remove
    end
  end
  -- The end-of-line marker of the file's last line, when the diff changes it (:h 'endofline').
  local last = hunks[#hunks]
  if last.new_no_eol and not last.old_no_eol then
    vim.bo[b].endofline = false
    vim.bo[b].fixendofline = false
  elseif last.old_no_eol and not last.new_no_eol then
    vim.bo[b].endofline = true
  end
  M.end_edit(b)

  return {
    buf = b,
    path = M.buf_path(b),
    changedtick = api.nvim_buf_get_changedtick(b),
    total_lines = api.nvim_buf_line_count(b),
    hunks_applied = #hunks,
    lines_added = added,
    lines_removed = removed,
    shifted = shifted,
    shifted_count = shifted_count,
  }
end
