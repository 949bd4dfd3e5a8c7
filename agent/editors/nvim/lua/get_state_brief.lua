-- get_state_brief: mode, cwd, the active window and the alternate one with cursor and context,
-- buffers (listed first), modified buffers, and terminals (the key only when there are any).
-- params: max_buffers, context_lines, context_line_bytes, max_bytes. Buffers, modified buffers and
-- terminals each hold at most max_buffers entries, and stop early when the result would pass
-- max_bytes of JSON (windows are never left out); `buffers_truncated` says either happened.
-- Columns are 1-based characters. get_state builds on this function (M.tools.get_state_brief).
local M = ...
local api = vim.api

return function(p)
  local budget = M.budget(p.max_bytes, p.exact_sizes)
  local active = api.nvim_get_current_win()
  local windows = { M.window_view(active, 'active', p.context_lines, p.context_line_bytes) }
  local alternate_nr = vim.fn.winnr('#')
  if alternate_nr > 0 then
    local alternate = vim.fn.win_getid(alternate_nr)
    if alternate ~= 0 and alternate ~= active then
      windows[2] = M.window_view(alternate, 'alternate', p.context_lines, p.context_line_bytes)
    end
  end
  for _, w in ipairs(windows) do
    budget.take(w, true)
  end

  local all, listed, unlisted = api.nvim_list_bufs(), {}, {}
  for _, b in ipairs(all) do
    table.insert(vim.bo[b].buflisted and listed or unlisted, b)
  end
  local truncated = false
  -- Appends `item` to `list` within the cap and the budget; notes a truncation otherwise.
  local function add(list, item)
    if #list < p.max_buffers and budget.take(item) then
      list[#list + 1] = item
    else
      truncated = true
    end
  end

  local buffers, modified, terminals = {}, {}, {}
  for _, group in ipairs({ listed, unlisted }) do
    for _, b in ipairs(group) do
      add(buffers, M.buffer_summary(b))
    end
  end
  for _, b in ipairs(all) do
    if vim.bo[b].modified then
      add(modified, b)
    end
    if vim.bo[b].buftype == 'terminal' then
      add(terminals, { buf = b, name = vim.fn.bufname(b), visible = #vim.fn.win_findbuf(b) > 0 })
    end
  end

  return {
    mode = vim.fn.mode(),
    cwd = vim.fn.getcwd(),
    buffers = buffers,
    buffers_truncated = truncated,
    modified_buffers = modified,
    windows = windows,
    terminals = #terminals > 0 and terminals or nil,
  }
end
