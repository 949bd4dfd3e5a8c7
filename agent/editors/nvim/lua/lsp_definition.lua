-- lsp_definition: the definition, declaration, type definition or implementations of the symbol at
-- a position, from the buffer's language server (lsp.lua), as a deferred answer: locations in the
-- server's order, each with context lines, one page at a time (an index cursor).
local M = ...
local L = M.lsp

local METHOD = {
  definition = 'textDocument/definition',
  declaration = 'textDocument/declaration',
  type_definition = 'textDocument/typeDefinition',
  implementation = 'textDocument/implementation',
}

return function(p)
  local method = METHOD[p.kind]
  local b, client, enc = L.target(p, method)
  return L.request(p, client, method, L.position_params(b, p.line, p.col, enc), function(result)
    local read, items = L.reader(), {}
    for _, loc in ipairs(L.locations(result)) do
      local item = L.file(read, loc.uri)
      for k, v in pairs(L.range(read, loc.uri, loc.range, enc)) do
        item[k] = v
      end
      item.context = L.context(read, loc.uri, loc.range.start.line, p.context_lines, p.line_bytes)
      items[#items + 1] = item
    end
    local first = L.first_after(p.cursor)
    local page, next_index = L.page(items, first, p)
    return {
      server = client.name,
      total = #items,
      locations = page,
      truncated = next_index ~= nil,
      cursor = next_index and tostring(next_index - 1) or vim.NIL,
      withheld = 0,
    }
  end)
end
