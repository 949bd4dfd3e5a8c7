-- get_state: get_state_brief's result (M.tools.get_state_brief, given brief_max_bytes) with its
-- windows replaced by every window, plus tabs, lowercase marks, the visual selection, a
-- diagnostics summary and the decorations in M.decoration_ns.
-- params: the brief's (max_buffers, context_lines, context_line_bytes), brief_max_bytes,
-- max_bytes, max_windows, max_tabs, max_folds, max_marks, max_decorations,
-- max_diagnostic_buffers, decoration_text_bytes, withheld (files whose buffers the diagnostics
-- summary leaves out, as get_diagnostics does). Each list stops at its cap, or when the result
-- would pass max_bytes of JSON (the active and alternate windows are never left out), and says so
-- in its *_truncated flag. Lines are 1-based, columns 1-based characters.
local M = ...
local api = vim.api

-- The text of line `row` (0-based) of a loaded buffer; '' past the end.
local function line_at(b, row)
  return api.nvim_buf_get_lines(b, row, row + 1, false)[1] or ''
end

-- Effective indent settings of a buffer (0 shiftwidth and negative softtabstop resolved).
local function indent(b)
  local bo = vim.bo[b]
  local sw = bo.shiftwidth == 0 and bo.tabstop or bo.shiftwidth
  return {
    expandtab = bo.expandtab,
    tabstop = bo.tabstop,
    shiftwidth = sw,
    softtabstop = bo.softtabstop < 0 and sw or bo.softtabstop,
  }
end

-- A window's visible lines and closed folds (at most `max`, and whether there were more). Folds are
-- found with foldclosedend() line by line, skipping each closed fold.
local function view_and_folds(win, max)
  local view = { folds = {}, more = false }
  api.nvim_win_call(win, function()
    view.top, view.bottom = vim.fn.line('w0'), vim.fn.line('w$')
    if not vim.wo[win].foldenable then
      return
    end
    local l, n = 1, api.nvim_buf_line_count(0)
    while l <= n do
      local last = vim.fn.foldclosedend(l)
      if last == -1 then
        l = l + 1
      elseif #view.folds == max then
        view.more = true
        return
      else
        view.folds[#view.folds + 1] = { start_line = l, end_line = last }
        l = last + 1
      end
    end
  end)
  return view
end

local function window_state(win, role, tab, p)
  local w = M.window_view(win, role, p.context_lines, p.context_line_bytes)
  local view = view_and_folds(win, p.max_folds)
  local relative = api.nvim_win_get_config(win).relative
  w.tab = tab
  w.floating = relative ~= nil and relative ~= ''
  w.width = api.nvim_win_get_width(win)
  w.height = api.nvim_win_get_height(win)
  w.top_line = math.max(1, view.top)
  w.bottom_line = math.max(1, view.bottom)
  w.folds = view.folds
  w.folds_truncated = view.more
  w.indent = indent(w.buf)
  return w
end

-- Appends `item` to `list` when both the cap and the budget allow; returns whether it did.
local function add(list, cap, budget, item)
  if #list < cap and budget.take(item) then
    list[#list + 1] = item
    return true
  end
  return false
end

-- Windows (active, alternate, then by tab) and tabs.
local function windows_and_tabs(brief_windows, p, budget)
  local tab_of, order, tabs, tabs_cut = {}, {}, {}, false
  local current_tab = api.nvim_get_current_tabpage()
  for nr, tab in ipairs(api.nvim_list_tabpages()) do
    local wins = api.nvim_tabpage_list_wins(tab)
    for _, win in ipairs(wins) do
      tab_of[win] = nr
      order[#order + 1] = win
    end
    if not add(tabs, p.max_tabs, budget, { tab = nr, current = tab == current_tab, windows = wins }) then
      tabs_cut = true
    end
  end

  local windows, seen, windows_cut = {}, {}, false
  for _, w in ipairs(brief_windows) do
    local state = window_state(w.win, w.role, tab_of[w.win], p)
    budget.take(state, true)
    windows[#windows + 1] = state
    seen[w.win] = true
  end
  for _, win in ipairs(order) do
    if not seen[win] and not add(windows, p.max_windows, budget, window_state(win, 'other', tab_of[win], p)) then
      windows_cut = true
      break
    end
  end
  return windows, windows_cut, tabs, tabs_cut
end

-- mode() -> selection kind, for the visual and select modes.
local SELECTION_KINDS = { v = 'char', V = 'line', ['\22'] = 'block', s = 'char', S = 'line', ['\19'] = 'block' }

local function selection()
  local kind = SELECTION_KINDS[vim.fn.mode()]
  if not kind then
    return vim.NIL
  end
  local b = api.nvim_get_current_buf()
  local from, to = vim.fn.getpos('v'), vim.fn.getpos('.')
  local a, z = { from[2], from[3] }, { to[2], to[3] }
  if z[1] < a[1] or (z[1] == a[1] and z[2] < a[2]) then
    a, z = z, a
  end
  -- getpos() columns are 1-based bytes (huge after $ in block mode: the end of the line).
  local function position(pos)
    return { line = pos[1], col = M.char_col(line_at(b, pos[1] - 1), pos[2] - 1) }
  end
  return { kind = kind, buf = b, path = M.buf_path(b), start = position(a), ['end'] = position(z) }
end

local function marks(p, budget)
  local list = {}
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(b) then
      for c = string.byte('a'), string.byte('z') do
        local name = string.char(c)
        local pos = api.nvim_buf_get_mark(b, name)
        if pos[1] > 0 then
          local item = { mark = name, buf = b, path = M.buf_path(b), line = pos[1], col = M.char_col(line_at(b, pos[1] - 1), pos[2]) }
          if not add(list, p.max_marks, budget, item) then
            return list, true
          end
        end
      end
    end
  end
  return list, false
end

local function diagnostics_summary(p, budget)
  if not vim.diagnostic then
    return vim.NIL
  end
  local summary = { error = 0, warn = 0, info = 0, hint = 0, buffers = {}, buffers_truncated = false }
  local per_buf = {}
  local held = M.withheld_buffers(p.withheld)
  for _, d in ipairs(vim.diagnostic.get(nil)) do
    if not held(d.bufnr) then
      local severity = vim.diagnostic.severity[d.severity]:lower()
      summary[severity] = summary[severity] + 1
      per_buf[d.bufnr] = per_buf[d.bufnr] or { buf = d.bufnr, error = 0, warn = 0, info = 0, hint = 0 }
      per_buf[d.bufnr][severity] = per_buf[d.bufnr][severity] + 1
    end
  end
  local bufs = vim.tbl_keys(per_buf)
  table.sort(bufs)
  for _, b in ipairs(bufs) do
    local counts = per_buf[b]
    counts.path = api.nvim_buf_is_valid(b) and M.buf_path(b) or vim.NIL
    if not add(summary.buffers, p.max_diagnostic_buffers, budget, counts) then
      summary.buffers_truncated = true
      break
    end
  end
  return summary
end

-- One extmark of ours as a decoration, or nil when it is neither a highlight nor virtual text.
local function decoration(b, mark, p)
  local id, row, col, details = mark[1], mark[2], mark[3], mark[4]
  local item = { id = id, buf = b, path = M.buf_path(b), start = { line = row + 1, col = M.char_col(line_at(b, row), col) } }
  if details.virt_text or details.virt_lines then
    local chunks, lines = details.virt_lines or { details.virt_text }, {}
    for i, chunk_list in ipairs(chunks) do
      local parts = {}
      for j, chunk in ipairs(chunk_list) do
        parts[j] = chunk[1]
        item.color = item.color or M.decoration_color(chunk[2])
      end
      lines[i] = table.concat(parts)
    end
    item.kind = 'virtual_text'
    item['end'] = vim.NIL
    item.text = (M.cut(table.concat(lines, '\n'), p.decoration_text_bytes))
    if details.virt_lines then
      item.position = details.virt_lines_above and 'above' or 'below'
    else
      item.position = details.virt_text_pos or 'eol'
    end
  elseif details.hl_group then
    local end_row, end_col = details.end_row or row, details.end_col or col
    item.kind = 'highlight'
    item['end'] = { line = end_row + 1, col = M.char_col(line_at(b, end_row), end_col) }
    item.text = vim.NIL
    item.position = vim.NIL
    item.color = M.decoration_color(details.hl_group)
  else
    return nil
  end
  item.color = item.color or vim.NIL
  return item
end

local function decorations(p, budget)
  local list = {}
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(b) then
      local room = p.max_decorations - #list + 1
      for _, mark in ipairs(api.nvim_buf_get_extmarks(b, M.decoration_ns, 0, -1, { details = true, limit = room })) do
        local item = decoration(b, mark, p)
        if item and not add(list, p.max_decorations, budget, item) then
          return list, true
        end
      end
    end
  end
  return list, false
end

return function(p)
  local state = M.tools.get_state_brief(vim.tbl_extend('force', p, { max_bytes = p.brief_max_bytes }))
  local brief_windows = state.windows
  state.windows = nil
  local budget = M.budget(p.max_bytes, p.exact_sizes)
  budget.take(state, true)

  state.selection = selection()
  budget.take(state.selection, true)
  state.windows, state.windows_truncated, state.tabs, state.tabs_truncated = windows_and_tabs(brief_windows, p, budget)
  state.diagnostics = diagnostics_summary(p, budget)
  state.marks, state.marks_truncated = marks(p, budget)
  state.decorations, state.decorations_truncated = decorations(p, budget)
  -- The reviews this Neovim holds (lua/review.lua), oldest first: few, and never cut.
  state.reviews = {}
  local held = {}
  for _, review in pairs(M.shared.reviews or {}) do
    held[#held + 1] = review
  end
  table.sort(held, function(x, y)
    return x.order < y.order
  end)
  for _, review in ipairs(held) do
    state.reviews[#state.reviews + 1] = { id = review.id, buf = review.spec.buf, path = M.buf_path(review.spec.buf), shown = review.shown == true }
  end
  return state
end
