-- send_to_terminal: writes text to the job of a terminal buffer (nvim_chan_send to its channel).
-- params: terminal (buffer number, name or nil), text, submit, max_listed, start_by (the deadline, epoch ms).
-- A name matches a terminal's buffer name or title (b:term_title) exactly, else as a plain
-- substring; it must pick out exactly one. Trailing CR/LF are stripped from the text; submit adds
-- one carriage return (the Enter key). Failures list the terminals, at most max_listed of them.
local M = ...
local api = vim.api

-- The job channel of a terminal buffer ('channel' option, else b:terminal_job_id), or nil.
local function channel_of(b)
  local ok, chan = pcall(function()
    return vim.bo[b].channel
  end)
  if not ok or type(chan) ~= 'number' or chan <= 0 then
    chan = vim.b[b].terminal_job_id
  end
  return type(chan) == 'number' and chan > 0 and chan or nil
end

local function is_running(b)
  local chan = channel_of(b)
  return chan ~= nil and vim.fn.jobwait({ chan }, 0)[1] == -1
end

local function describe(b)
  local title = vim.b[b].term_title
  return { buf = b, name = api.nvim_buf_get_name(b), title = type(title) == 'string' and title or '', running = is_running(b) }
end

return function(p)
  M.check_start_by(p.start_by)
  local all = {}
  for _, b in ipairs(api.nvim_list_bufs()) do
    if vim.bo[b].buftype == 'terminal' then
      all[#all + 1] = describe(b)
    end
  end

  -- Fails with `code`, listing the terminals.
  local function refuse(code, message, hint)
    local listed = {}
    for i = 1, math.min(#all, p.max_listed) do
      listed[i] = all[i]
    end
    M.fail(code, message, { terminals = listed, terminals_total = #all, hint = hint })
  end
  local choose = 'Pass `terminal` as one of the listed buffer numbers.'

  if #all == 0 then
    M.fail('BUFFER_NOT_FOUND', 'This editor has no terminal buffer.', {
      terminals_total = 0,
      hint = 'Open one with run_command (e.g. "split | terminal"), or ask the user to, then retry.',
    })
  end

  local term
  local ref = p.terminal
  if ref == nil then
    local current = api.nvim_get_current_buf()
    for _, t in ipairs(all) do
      if t.buf == current then
        term = t
      end
    end
    if not term then
      if #all > 1 then
        refuse('MULTIPLE_MATCHES', #all .. ' terminals are open and the current buffer is none of them.', choose)
      end
      term = all[1]
    end
  elseif type(ref) == 'number' then
    for _, t in ipairs(all) do
      if t.buf == ref then
        term = t
      end
    end
    if not term then
      local what = api.nvim_buf_is_valid(ref) and ('Buffer ' .. ref .. ' is not a terminal.') or ('There is no buffer ' .. ref .. '.')
      refuse('BUFFER_NOT_FOUND', what, choose)
    end
  else
    local exact, partial = {}, {}
    for _, t in ipairs(all) do
      if t.name == ref or t.title == ref then
        exact[#exact + 1] = t
      elseif t.name:find(ref, 1, true) or t.title:find(ref, 1, true) then
        partial[#partial + 1] = t
      end
    end
    local found = #exact > 0 and exact or partial
    if #found == 0 then
      refuse('BUFFER_NOT_FOUND', 'No terminal\'s name or title contains "' .. ref .. '".', choose)
    elseif #found > 1 then
      refuse('MULTIPLE_MATCHES', #found .. ' terminals match "' .. ref .. '".', choose)
    end
    term = found[1]
  end

  if not term.running then
    refuse('INVALID_ARGUMENT', 'The job of terminal ' .. term.buf .. ' has exited; it cannot take input.',
      'Pick a running terminal from the list, or open a new one with run_command (e.g. "split | terminal").')
  end
  local text = p.text:gsub('[\r\n]+$', '')
  if p.submit then
    text = text .. '\r'
  end
  local chan = channel_of(term.buf)
  if #text > 0 then
    api.nvim_chan_send(chan, text)
  end
  return { buf = term.buf, name = term.name, channel = chan, bytes = #text, submitted = p.submit == true }
end
