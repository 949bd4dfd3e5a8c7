-- Proposals for reviews (README "Reviews"): an edit tool run on a copy of its buffer, so that the
-- user can see, change and accept or reject what it would do before the buffer itself changes.
-- Installed by core.lua after util.lua, into the same table: `...` is that table (M).
--
-- Contract: M.propose(tool, params, opts) resolves the buffer the tool's params name (a path with no
-- buffer, for a tool that creates one (opts.creates, write_buffer): made as the tool makes it, the
-- file's text in it, since the review shows that buffer), checks it as the tool would (modifiable,
-- expected_changedtick), copies its lines (at most opts.max_lines, else INVALID_ARGUMENT) and the
-- options the tools read into a scratch buffer, runs the tool on the copy with every autocommand
-- ignored, and wipes the copy. It returns {result = the tool's data, its buf, path and changedtick
-- those of the real buffer as it is (unchanged); base_tick; base = the buffer's lines; proposed =
-- the copy's lines after the tool; made = true when the buffer was made for the review}. A
-- failure of the tool is the call's failure, and a buffer made for it is wiped again.
local M = ...
local api = vim.api

-- The buffer options a tool may read or set besides the lines.
local COPIED = { 'endofline', 'fixendofline', 'fileformat', 'expandtab', 'shiftwidth', 'tabstop', 'softtabstop', 'textwidth' }

-- Runs fn(...) with every autocommand ignored, 'eventignore' put back however it ends.
local function quietly(fn, ...)
  local saved = vim.o.eventignore
  vim.o.eventignore = 'all'
  local ok, a, b = pcall(fn, ...)
  vim.o.eventignore = saved
  if not ok then
    error(a, 0)
  end
  return a, b
end

-- The real buffer, whether it was made now (see the header), and whether for a path with no file.
local function real_buffer(params, opts)
  if not opts.creates then
    local b = M.resolve(params.buffer)
    M.ensure_loaded(b)
    return b, false, false
  end
  local b, created, added = M.write_target(params.buffer, params.expected_changedtick)
  M.ensure_loaded(b)
  return b, created or added, created
end

-- The copy's lines after `tool` ran on it with `params`, and the tool's data.
local function run_on_copy(tool, params, b, base)
  local copy = api.nvim_create_buf(false, true)
  for _, name in ipairs(COPIED) do
    vim.bo[copy][name] = vim.bo[b][name]
  end
  api.nvim_buf_set_lines(copy, 0, -1, true, base)
  local p = vim.deepcopy(params)
  p.buffer = copy
  -- The real buffer's tick was checked already; the copy's always matches (and write_buffer,
  -- which asks for one for any buffer that exists, gets it).
  p.expected_changedtick = api.nvim_buf_get_changedtick(copy)
  local ok, result = pcall(tool, p)
  local proposed = api.nvim_buf_get_lines(copy, 0, -1, true)
  api.nvim_buf_delete(copy, { force = true })
  if not ok then
    error(result, 0)
  end
  return result, proposed
end

--- See the header.
function M.propose(tool, params, opts)
  local b, made, created = real_buffer(params, opts)
  local ok, out = pcall(function()
    M.check_modifiable(b)
    if not made or params.expected_changedtick ~= nil then
      M.check_tick(b, params.expected_changedtick)
    end
    local count = api.nvim_buf_line_count(b)
    if count > opts.max_lines then
      M.fail('INVALID_ARGUMENT', 'The buffer has ' .. count .. ' lines, more than the ' .. opts.max_lines .. ' a review shows. Nothing was changed.', {
        hint = 'Ask the user to let this edit through without a review, or to review a smaller file.',
      })
    end
    local base_tick = api.nvim_buf_get_changedtick(b)
    local base = api.nvim_buf_get_lines(b, 0, -1, true)
    local result, proposed = quietly(run_on_copy, tool, params, b, base)
    result.buf = b
    result.path = M.buf_path(b)
    result.changedtick = base_tick
    if result.created ~= nil then
      result.created = created
    end
    return { result = result, base_tick = base_tick, base = base, proposed = proposed, made = made }
  end)
  if not ok then
    if made then
      pcall(api.nvim_buf_delete, b, { force = true })
    end
    error(out, 0)
  end
  return out
end
