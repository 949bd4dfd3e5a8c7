-- add_virtual_text: shows text that is not part of the buffer at one of its lines.
-- params: buffer (number | path | nil), line (1-based; past the end: INVALID_ARGUMENT with
-- line_count), text (one line for eol; lines split on \n for above/below, CRLF taken as \n;
-- length and line caps are checked by the catalog schema), position (eol | above | below), color.
-- One extmark in M.decoration_ns: virt_text at eol, or virt_lines (virt_lines_above for above), in
-- the VimRelay<Color> group. It changes neither the text nor the changedtick, and is not undone.
local M = ...
local api = vim.api

-- Virtual lines above line 1 are filler lines, which a window at the top of the buffer shows only
-- when scrolled to them (its topfill). Scrolls such windows showing `b` so that all of them show.
local function reveal_above_first_line(b)
  local fill = 0
  for _, ns in pairs(api.nvim_get_namespaces()) do
    for _, mark in ipairs(api.nvim_buf_get_extmarks(b, ns, { 0, 0 }, { 0, -1 }, { details = true })) do
      local details = mark[4]
      if details.virt_lines_above and details.virt_lines then
        fill = fill + #details.virt_lines
      end
    end
  end
  for _, win in ipairs(vim.fn.win_findbuf(b)) do
    api.nvim_win_call(win, function()
      local view = vim.fn.winsaveview()
      if view.topline == 1 and view.topfill < fill then
        vim.fn.winrestview({ topfill = fill })
      end
    end)
  end
end

return function(p)
  local b = M.resolve(p.buffer)
  M.ensure_loaded(b)
  local count = api.nvim_buf_line_count(b)
  if p.line > count then
    M.fail('INVALID_ARGUMENT', 'Line ' .. p.line .. ' is past the end of the buffer, which has ' .. count .. ' lines. Nothing was added.', {
      line_count = count,
      hint = 'Pass a line from 1 to ' .. count .. '.',
    })
  end
  local group = M.decoration_group(p.color)
  local opts
  if p.position == 'eol' then
    opts = { virt_text = { { p.text, group } }, virt_text_pos = 'eol' }
  else
    local virt_lines = {}
    for i, l in ipairs(M.split_lines((p.text:gsub('\r\n', '\n')))) do
      virt_lines[i] = { { l, group } }
    end
    opts = { virt_lines = virt_lines, virt_lines_above = p.position == 'above' }
  end
  local id = api.nvim_buf_set_extmark(b, M.decoration_ns, p.line - 1, 0, opts)
  if p.position == 'above' and p.line == 1 then
    reveal_above_first_line(b)
  end
  return { id = id, buf = b, path = M.buf_path(b), line = p.line, position = p.position, color = p.color }
end
