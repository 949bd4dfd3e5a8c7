-- lsp_format: the edits the buffer's language server (lsp.lua) formats it with, the whole buffer
-- (textDocument/formatting) or lines p.start_line..p.end_line (textDocument/rangeFormatting, from
-- the first line's start to the last one's end), as a deferred answer: a preview of one file's
-- edits (lsp_edit.lua L.edit_preview), kept for lsp_edit_apply.lua when p.keep. The formatting
-- options are the buffer's (LSP 3.17 "FormattingOptions"): tabSize its 'shiftwidth' (its
-- 'tabstop' when that is 0, as shiftwidth() counts), insertSpaces its 'expandtab'.
local M = ...
local L = M.lsp
local api = vim.api

return function(p)
  local method = p.start_line and 'textDocument/rangeFormatting' or 'textDocument/formatting'
  local b, client, enc = L.target(p, method)
  local tick = M.check_tick(b, p.expected_changedtick)
  local shiftwidth = vim.bo[b].shiftwidth
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(b) },
    options = { tabSize = shiftwidth > 0 and shiftwidth or vim.bo[b].tabstop, insertSpaces = vim.bo[b].expandtab },
  }
  if p.start_line then
    local last = api.nvim_buf_get_lines(b, p.end_line - 1, p.end_line, false)[1] or ''
    params.range = L.range_params(b, p.start_line, 1, p.end_line, M.char_len(last) + 1, enc)
  end
  local how = { tool = 'lsp_format', what = 'the formatting', client = client, enc = enc, buf = b, tick = tick, ticks = L.ticks() }
  return L.request(p, client, method, params, function(result)
    return L.edit_preview(p, { changes = { [params.textDocument.uri] = result or {} } }, how)
  end)
end
