-- lsp_hover: the hover text of the symbol at a position, from the buffer's language server
-- (lsp.lua), as a deferred answer: markdown or plain text as the server gives it (cut at
-- p.hover_bytes), the signature (the markdown's first code block, else the first line of plain
-- text), and the range it is about.
local M = ...
local L = M.lsp

-- MarkupContent | MarkedString | MarkedString[] (LSP 3.17 "Hover") -> text, format.
local function contents_of(c)
  if type(c) == 'string' then
    return c, 'markdown'
  elseif c.kind then
    return c.value, c.kind == 'plaintext' and 'plaintext' or 'markdown'
  elseif c.language then
    return '```' .. c.language .. '\n' .. c.value .. '\n```', 'markdown'
  end
  local parts = {}
  for _, part in ipairs(c) do
    parts[#parts + 1] = (contents_of(part))
  end
  return table.concat(parts, '\n\n'), 'markdown'
end

return function(p)
  local b, client, enc = L.target(p, 'textDocument/hover')
  local params = L.position_params(b, p.line, p.col, enc)
  local uri = params.textDocument.uri
  return L.request(p, client, 'textDocument/hover', params, function(result)
    local out = { server = client.name, format = vim.NIL, text = vim.NIL, text_truncated = false, signature = vim.NIL, range = vim.NIL }
    if result == nil or result.contents == nil then
      return out
    end
    local text, format = contents_of(result.contents)
    out.format = format
    out.text, out.text_truncated = M.cut(text, p.hover_bytes)
    local signature
    if format == 'markdown' then
      signature = text:match('```[%w_+-]*\n(.-)\n```')
    else
      signature = text:match('^%s*([^\n]*%S)')
    end
    out.signature = signature and (M.cut(signature, p.hover_bytes)) or vim.NIL
    if result.range then
      out.range = L.range(L.reader(), uri, result.range, enc)
    end
    return out
  end)
end
