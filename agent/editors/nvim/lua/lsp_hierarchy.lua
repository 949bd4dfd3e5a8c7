-- lsp_hierarchy (lsp_calls and lsp_types): one step of a call or type hierarchy (LSP 3.17 "Call
-- Hierarchy", "Type Hierarchy") from the buffer's language server (lsp.lua), as a deferred answer:
-- p.prepare (textDocument/prepareCallHierarchy or /prepareTypeHierarchy) names the symbol at the
-- position, then p.method (callHierarchy/incomingCalls, /outgoingCalls, typeHierarchy/supertypes,
-- /subtypes) the symbols one step away from the first one it names. Each is answered as {name,
-- kind (p.kinds names LSP's SymbolKind 1..26), path, line, col (where its name starts)};
-- calls (p.field: the `from` or `to` of each) also with `sites`, where the calls are: in the
-- caller's file for incoming calls, in the symbol's own for outgoing ones (LSP "fromRanges"). They
-- are sorted by place and paged (an index cursor) under p.list.
local M = ...
local L = M.lsp

-- `item` (a CallHierarchyItem or TypeHierarchyItem) as a result names it.
local function symbol(read, item, enc, p)
  local at = L.range(read, item.uri, item.selectionRange or item.range, enc)
  return {
    name = item.name,
    kind = p.kinds[item.kind] or 'unknown',
    path = read.path(item.uri),
    line = at.line,
    col = at.col,
  }
end

return function(p)
  local b, client, enc = L.target(p, p.prepare)
  local params = L.position_params(b, p.line, p.col, enc)
  return L.request(p, client, p.prepare, params, function(prepared)
    local of = prepared and prepared[1]
    if not of then
      M.fail('NO_MATCH', client.name .. ' names no ' .. (p.list == 'calls' and 'function' or 'type') .. ' at line ' .. p.line .. ', column ' .. p.col .. '.', {
        hint = 'Put the position on the name of a ' .. (p.list == 'calls' and 'function or method' or 'class, interface or struct') .. ' (lsp_symbols lists them).',
      })
    end
    return L.next(p.method, { item = of }, function(result)
      local read, all = L.reader(), {}
      for _, r in ipairs(result or {}) do
        local item = symbol(read, p.field and r[p.field] or r, enc, p)
        if p.field then
          -- fromRanges lie in the caller (incoming: `from`), or in the symbol asked about (outgoing).
          local uri = p.field == 'from' and r.from.uri or of.uri
          item.sites = {}
          for _, range in ipairs(r.fromRanges or {}) do
            local at = L.range(read, uri, range, enc)
            item.sites[#item.sites + 1] = { line = at.line, col = at.col }
          end
        end
        all[#all + 1] = item
      end
      L.sort_by_place(all)
      local page, next_index = L.page(all, L.first_after(p.cursor), p)
      return {
        server = client.name,
        of = symbol(read, of, enc, p),
        [p.list] = page,
        total = #all,
        truncated = next_index ~= nil,
        cursor = next_index and tostring(next_index - 1) or vim.NIL,
        withheld = 0,
      }
    end)
  end)
end
