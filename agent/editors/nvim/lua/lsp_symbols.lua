-- lsp_symbols: a buffer's symbols as a tree flattened in document order (pre-order, each with its
-- depth and container), or the project's symbols matching p.query (workspace/symbol, sorted by
-- place), from the buffer's language server (lsp.lua), as a deferred answer, one page at a time
-- (document: an index cursor; workspace: a place cursor).
local M = ...
local L = M.lsp

-- LSP SymbolKind 1..26 (protocol/tools/lsp-symbols.ts SYMBOL_KINDS).
local KINDS = {
  'file', 'module', 'namespace', 'package', 'class', 'method', 'property', 'field', 'constructor', 'enum', 'interface', 'function', 'variable',
  'constant', 'string', 'number', 'boolean', 'array', 'object', 'key', 'null', 'enum_member', 'struct', 'event', 'operator', 'type_parameter',
}

local function symbol(read, s, uri, range, enc, depth, container)
  local item = L.file(read, uri)
  for k, v in pairs(L.range(read, uri, range, enc)) do
    item[k] = v
  end
  item.name, item.kind = s.name, KINDS[s.kind] or 'unknown'
  item.detail = type(s.detail) == 'string' and s.detail ~= '' and s.detail or vim.NIL
  item.container = type(container) == 'string' and container ~= '' and container or vim.NIL
  item.depth = depth
  return item
end

-- Whether symbol x comes before y: its range starts first, or at the same place and ends later
-- (it contains y), or the same range and its name sorts first.
local function before(x, y)
  local a, b = x.location.range, y.location.range
  local as, bs, ae, be = a.start, b.start, a['end'], b['end']
  if as.line ~= bs.line then
    return as.line < bs.line
  elseif as.character ~= bs.character then
    return as.character < bs.character
  elseif ae.line ~= be.line then
    return ae.line > be.line
  elseif ae.character ~= be.character then
    return ae.character > be.character
  end
  return x.name < y.name
end

-- Whether range `outer` contains range `inner` and is larger (equal ranges are siblings).
local function contains(outer, inner)
  local os, oe, is, ie = outer.start, outer['end'], inner.start, inner['end']
  local starts = os.line < is.line or (os.line == is.line and os.character <= is.character)
  local ends = oe.line > ie.line or (oe.line == ie.line and oe.character >= ie.character)
  local equal = os.line == is.line and os.character == is.character and oe.line == ie.line and oe.character == ie.character
  return starts and ends and not equal
end

-- A document's symbols in pre-order: DocumentSymbol[] walked as the tree it is; SymbolInformation[]
-- (flat) nested by range containment, the container being the symbol it nests in (else its
-- containerName).
local function document(read, uri, result, enc)
  local out = {}
  if result[1] and result[1].location then
    local list = vim.deepcopy(result)
    table.sort(list, before)
    local open = {}
    for _, s in ipairs(list) do
      while #open > 0 and not contains(open[#open].location.range, s.location.range) do
        open[#open] = nil
      end
      local parent = open[#open]
      out[#out + 1] = symbol(read, s, uri, s.location.range, enc, #open, parent and parent.name or s.containerName)
      open[#open + 1] = s
    end
    return out
  end
  local function walk(list, depth, container)
    -- Siblings in document order, whatever order the server sent them in.
    list = vim.deepcopy(list)
    table.sort(list, function(x, y)
      return before({ name = x.name, location = { range = x.range } }, { name = y.name, location = { range = y.range } })
    end)
    for _, s in ipairs(list) do
      out[#out + 1] = symbol(read, s, uri, s.range, enc, depth, container)
      walk(s.children or {}, depth + 1, s.name)
    end
  end
  walk(result, 0, nil)
  return out
end

return function(p)
  local workspace = p.query ~= nil
  local method = workspace and 'workspace/symbol' or 'textDocument/documentSymbol'
  local b, client, enc = L.target(p, method)
  local uri = vim.uri_from_bufnr(b)
  local params = workspace and { query = p.query } or { textDocument = { uri = uri } }
  return L.request(p, client, method, params, function(result)
    local read, items = L.reader(), {}
    result = result or {}
    local first
    if workspace then
      for _, s in ipairs(result) do
        local range = s.location.range or { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 0 } }
        items[#items + 1] = symbol(read, s, s.location.uri, range, enc, 0, s.containerName)
      end
      L.sort_by_place(items)
      first = L.first_at(items, p.cursor)
    else
      items = document(read, uri, result, enc)
      first = L.first_after(p.cursor)
    end
    local page, next_index = L.page(items, first, p)
    local cursor = vim.NIL
    if next_index then
      cursor = workspace and L.place_cursor(items[next_index]) or tostring(next_index - 1)
    end
    return {
      server = client.name,
      scope = workspace and 'workspace' or 'document',
      total = #items,
      symbols = page,
      truncated = next_index ~= nil,
      cursor = cursor,
      withheld = 0,
    }
  end)
end
