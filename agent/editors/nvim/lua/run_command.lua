-- run_command: runs Ex commands in order, each with its captured output, stopping at the first
-- that fails. params: commands (list of strings), max_output_bytes (kept per command),
-- total_output_bytes (kept across all), error_bytes, command_bytes (the failed command as echoed),
-- timeout_ms, start_by (the deadline, epoch ms; see M.check_start_by).
-- Output is measured as the JSON text it becomes, so that control characters cannot inflate a
-- result past its cap. The whole list runs under one CTRL-C watchdog (M.with_interrupt): a command
-- still running after timeout_ms, typically one waiting on a prompt, is interrupted and reported
-- as TIMEOUT. Output is captured with nvim_exec2 where it exists (0.9+), else nvim_exec; but
-- while a command line is open (the user typing one, or a prompt waiting: Neovim serves requests
-- then too) redirection is off and those capture nothing, so execute(), which turns it on for its
-- own call, runs the command's lines instead (one by one, outside any script context).
local M = ...
local api = vim.api

local function exec(cmd)
  if api.nvim_get_mode().mode:sub(1, 1) == 'c' then
    return (vim.fn.execute(M.split_lines(cmd)):gsub('^\n', ''))
  end
  if api.nvim_exec2 then
    return api.nvim_exec2(cmd, { output = true }).output
  end
  return api.nvim_exec(cmd, true)
end

-- Bytes a string's characters take in JSON (JSON.stringify): \b \t \n \f \r, " and \ as two,
-- other control characters as \u00XX (six), everything else as itself.
local function json_size(s)
  local _, short = s:gsub('[\b\t\n\f\r"\\]', '')
  local _, long = s:gsub('[%z\1-\7\11\14-\31]', '')
  return #s + short + 5 * long
end

-- The longest start of `s` whose JSON size is at most `max`, not splitting a character; second
-- result: whether it was cut.
local function json_cut(s, max)
  if json_size(s) <= max then
    return s, false
  end
  local size, stop = 0, 0
  for i = 1, #s do
    local c = s:byte(i)
    local n = 1
    if c == 8 or c == 9 or c == 10 or c == 12 or c == 13 or c == 34 or c == 92 then
      n = 2
    elseif c < 32 then
      n = 6
    end
    if size + n > max then
      break
    end
    size, stop = size + n, i
  end
  return M.cut(s, stop)
end

return function(p)
  M.check_start_by(p.start_by)
  local results, left, truncated = {}, p.total_output_bytes, false
  local running, interrupted_at, failure = 0, nil, nil
  M.break_undo(api.nvim_get_current_buf())
  local interrupted, ok, err = M.with_interrupt(p.timeout_ms, function()
    interrupted_at = running
  end, function()
    for i, cmd in ipairs(p.commands) do
      running = i
      local ok, out = pcall(exec, cmd)
      if interrupted_at then
        return
      end
      if not ok then
        failure = { index = i, message = tostring(out) }
        return
      end
      local kept, cut = json_cut(out, math.min(p.max_output_bytes, left))
      left = left - json_size(kept)
      truncated = truncated or cut
      results[i] = { index = i, output = kept, output_bytes = #out, truncated = cut }
    end
  end)
  M.end_edit(api.nvim_get_current_buf())
  if not ok then
    error(err, 0)
  end

  local n = #p.commands
  if interrupted then
    failure = { index = interrupted_at, message = 'Interrupted (CTRL-C) after ' .. p.timeout_ms .. ' ms.' }
  end
  if failure then
    local i = failure.index
    local details = {
      failed_index = i,
      command = M.cut(p.commands[i], p.command_bytes),
      vim_error = M.cut(failure.message, p.error_bytes),
      results = results,
    }
    local status = (i - 1) .. ' before it ran (their output is in `results`); ' .. (n - i) .. ' after it did not run.'
    if interrupted then
      details.hint = 'The command was probably waiting on a prompt (input(), getchar(), :s///c) or ran too long. '
        .. 'Use a form that does not prompt (e.g. :s without the c flag), or raise timeout_ms for a slow command. ' .. status
      M.fail('TIMEOUT', 'Command ' .. i .. ' of ' .. n .. ' still ran after ' .. p.timeout_ms .. ' ms and was interrupted with CTRL-C.', details)
    end
    details.hint = 'Fix that command (see vim_error), then run it and the ones after it. ' .. status
    M.fail('EDITOR_ERROR', 'Command ' .. i .. ' of ' .. n .. ' failed: ' .. details.vim_error, details)
  end
  return { results = results, count = n, output_truncated = truncated }
end
