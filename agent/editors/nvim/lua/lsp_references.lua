-- lsp_references: every reference to the symbol at a position, from the buffer's language server
-- (lsp.lua), as a deferred answer: sorted by path, line and column, one page at a time (a place
-- cursor: the first reference not returned), grouped by file, each with the text of its line.
local M = ...
local L = M.lsp

return function(p)
  local b, client, enc = L.target(p, 'textDocument/references')
  local params = L.position_params(b, p.line, p.col, enc)
  params.context = { includeDeclaration = p.include_declaration }
  return L.request(p, client, 'textDocument/references', params, function(result)
    local read, all = L.reader(), {}
    for _, loc in ipairs(L.locations(result)) do
      local item = L.range(read, loc.uri, loc.range, enc)
      item.path, item.uri = read.path(loc.uri), loc.uri
      item.text = (M.cut(read.line(loc.uri, loc.range.start.line) or '', p.line_bytes))
      all[#all + 1] = item
    end
    L.sort_by_place(all)
    local page, next_index = L.page(all, L.first_at(all, p.cursor), p)
    local files, current = {}, nil
    for _, item in ipairs(page) do
      if not current or current.path ~= item.path then
        current = L.file(read, item.uri)
        current.references = {}
        files[#files + 1] = current
      end
      item.path, item.uri = nil, nil
      current.references[#current.references + 1] = item
    end
    return {
      server = client.name,
      total = #all,
      files = files,
      truncated = next_index ~= nil,
      cursor = next_index and L.place_cursor(all[next_index]) or vim.NIL,
      withheld = 0,
    }
  end)
end
