-- vimrelay's helpers for the lsp_* tools (README "Code navigation"): which client of a buffer to
-- ask, positions between 1-based character columns and the server's encoding, lines of files by
-- URI, deferred requests, paging, and workspace edits as byte edits. Installed by core.lua after
-- util.lua, into the same table: `...` is that table (M); these live in M.lsp. Nothing runs on its
-- own.
-- Works on Neovim 0.7 and newer: what differs between them (finding a buffer's clients, calling
-- their methods, dynamic registrations, the negotiated encoding) is in compat.lua.
-- Positions are converted by hand: vim.str_utfindex changed its signature in Neovim 0.11.
local M = ...
local api = vim.api
local L = {}
M.lsp = L

-- Clients -------------------------------------------------------------------------------------------

local C = M.compat

--- Calls client method `name` with the arguments (compat.lua C.invoke).
L.invoke = C.invoke

--- The clients attached to buffer b, by id.
function L.clients(b)
  local list = C.buf_clients(b)
  table.sort(list, function(x, y)
    return x.id < y.id
  end)
  return list
end

-- Method -> its ServerCapabilities key (LSP 3.17 "ServerCapabilities"): true or options = supported.
local PROVIDER = {
  ['textDocument/definition'] = 'definitionProvider',
  ['textDocument/declaration'] = 'declarationProvider',
  ['textDocument/typeDefinition'] = 'typeDefinitionProvider',
  ['textDocument/implementation'] = 'implementationProvider',
  ['textDocument/references'] = 'referencesProvider',
  ['textDocument/hover'] = 'hoverProvider',
  ['textDocument/documentSymbol'] = 'documentSymbolProvider',
  ['workspace/symbol'] = 'workspaceSymbolProvider',
  ['textDocument/rename'] = 'renameProvider',
  ['textDocument/codeAction'] = 'codeActionProvider',
  ['textDocument/formatting'] = 'documentFormattingProvider',
  ['textDocument/rangeFormatting'] = 'documentRangeFormattingProvider',
  ['textDocument/prepareCallHierarchy'] = 'callHierarchyProvider',
  ['textDocument/prepareTypeHierarchy'] = 'typeHierarchyProvider',
}

-- The hint of UNSUPPORTED for a method a server lacks.
local METHOD_HINT = 'This server cannot answer that; try another kind or tool (grep_buffers finds text).'

--- Whether `client` implements `method` for buffer b: its static capability, or (clients that
--- track client/registerCapability, 0.10+) what its supports_method says.
function L.supports(client, method, b)
  local v = (client.server_capabilities or {})[PROVIDER[method]]
  if v == true or type(v) == 'table' then
    return true
  end
  return C.registered(client, method, b) or false
end

--- The language server of buffer b to ask `method`: the first attached client (by id) that
--- implements it. Fails UNSUPPORTED when none is attached (naming `hint`, the server the buffer's
--- filetype would need) or none implements it.
function L.client_for(b, method, hint)
  local clients = L.clients(b)
  local ft = vim.bo[b].filetype
  if #clients == 0 then
    M.fail('UNSUPPORTED', 'No language server is attached to buffer ' .. b .. ' (filetype ' .. (ft == '' and 'none' or ft) .. ').', {
      reason = 'no_server',
      hint = 'Configure a language server for this filetype in Neovim (vim.lsp'
        .. (hint and (', e.g. ' .. hint) or '')
        .. ') and open the file again; it may also still be starting. Until then use grep_buffers.',
    })
  end
  local names = {}
  for _, c in ipairs(clients) do
    if L.supports(c, method, b) then
      return c
    end
    names[#names + 1] = c.name
  end
  M.fail('UNSUPPORTED', 'The language server attached to buffer ' .. b .. ' (' .. table.concat(names, ', ') .. ') does not implement ' .. method .. '.', {
    reason = 'method',
    hint = METHOD_HINT,
  })
end

--- The buffer p.buffer names (loaded), the language server to ask `method` for it (p.servers names
--- the one its filetype would need), and that server's position encoding.
function L.target(p, method)
  local b = M.resolve(p.buffer)
  M.ensure_loaded(b)
  local client = L.client_for(b, method, p.servers[vim.bo[b].filetype])
  return b, client, L.encoding(client)
end

--- The client's position encoding: 'utf-8', 'utf-16' or 'utf-32' (compat.lua C.encoding).
L.encoding = C.encoding

-- Positions -----------------------------------------------------------------------------------------

-- Bytes of the UTF-8 sequence led by byte c (a stray continuation byte counts as one).
local function seq_len(c)
  return c < 0xC0 and 1 or c < 0xE0 and 2 or c < 0xF0 and 3 or 4
end

-- Units of `enc` in a character of `len` UTF-8 bytes.
local function units(len, enc)
  if enc == 'utf-8' then
    return len
  elseif enc == 'utf-16' then
    return len == 4 and 2 or 1
  end
  return 1
end

--- The 0-based byte offset in `line` of the LSP offset `u` (0-based, in `enc` units). An offset
--- inside a character (half a surrogate pair) is that character's start; past the end, #line.
function L.byte_of(line, u, enc)
  local i, used = 1, 0
  while i <= #line do
    local len = seq_len(line:byte(i))
    local w = units(len, enc)
    if used + w > u then
      break
    end
    used, i = used + w, i + len
  end
  return i - 1
end

--- The 1-based character column of the LSP offset `u` in `line`.
function L.col_of(line, u, enc)
  return M.char_col(line, L.byte_of(line, u, enc))
end

--- The LSP offset (0-based, `enc` units) of the 1-based character column `col` in `line`.
function L.units_of(line, col, enc)
  local i, used, n = 1, 0, 1
  while i <= #line and n < col do
    local len = seq_len(line:byte(i))
    used, i, n = used + units(len, enc), i + len, n + 1
  end
  return used
end

--- The request parameters for a position: buffer b's URI and (1-based line, character column),
--- in `enc`. Fails INVALID_ARGUMENT for a line past the buffer's end.
function L.position_params(b, line, col, enc)
  local text = api.nvim_buf_get_lines(b, line - 1, line, false)[1]
  if not text then
    M.fail('INVALID_ARGUMENT', 'Buffer ' .. b .. ' has ' .. api.nvim_buf_line_count(b) .. ' lines, not ' .. line .. '.', {
      hint = 'Pass a line of the buffer (read_buffer shows them).',
    })
  end
  return { textDocument = { uri = vim.uri_from_bufnr(b) }, position = { line = line - 1, character = L.units_of(text, col, enc) } }
end

--- The LSP range (in `enc`) of buffer b from (line, col) to (end_line, end_col), 1-based lines and
--- character columns, end exclusive; the position alone (an empty range) without an end. Fails
--- INVALID_ARGUMENT for a line past the buffer's end or an end before the start.
function L.range_params(b, line, col, end_line, end_col, enc)
  local start = L.position_params(b, line, col, enc).position
  if end_line == nil then
    return { start = start, ['end'] = start }
  end
  local finish = L.position_params(b, end_line, end_col, enc).position
  if finish.line < start.line or (finish.line == start.line and finish.character < start.character) then
    M.fail('INVALID_ARGUMENT', 'The range ends (line ' .. end_line .. ', column ' .. end_col .. ') before it starts (line ' .. line .. ', column ' .. col .. ').', {
      hint = 'Pass end_line and end_col at or after line and col.',
    })
  end
  return { start = start, ['end'] = finish }
end

--- The diagnostics of buffer b on the lines of LSP range `range`, as LSP Diagnostics in `enc`
--- (for a code action request's context, LSP 3.17 "CodeActionContext"): every namespace's, as
--- Neovim's own code action sends them; each the one its server sent where Neovim keeps it, else
--- rebuilt from the item (its byte columns in `enc`).
function L.context_diagnostics(b, range, enc)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(b)) do
    local lsp = C.lsp_diagnostic(d)
    if not lsp then
      local function at(row, byte)
        local text = api.nvim_buf_get_lines(b, row, row + 1, false)[1] or ''
        return { line = row, character = L.units_of(text, M.char_col(text, math.min(byte, #text)), enc) }
      end
      local extra = type(d.user_data) == 'table' and type(d.user_data.lsp) == 'table' and d.user_data.lsp or {}
      lsp = vim.tbl_extend('keep', {
        range = { start = at(d.lnum, d.col), ['end'] = at(d.end_lnum or d.lnum, d.end_col or d.col) },
        severity = d.severity,
        message = d.message,
        source = d.source,
        code = d.code,
      }, extra)
    end
    if lsp.range.start.line <= range['end'].line and lsp.range['end'].line >= range.start.line then
      out[#out + 1] = lsp
    end
  end
  return out
end

-- Files ---------------------------------------------------------------------------------------------

--- A reader of lines by URI, for one answer: a loaded buffer's text (what the server was sent),
--- else the file's on disk (what the server read), read once. r.path(uri), r.buf(uri) (a buffer
--- number or nil), r.line(uri, row) (0-based row; nil past the end), r.count(uri), r.all(uri).
function L.reader()
  local files, bufs = {}, {}
  local r = {}
  function r.path(uri)
    local ok, p = pcall(vim.uri_to_fname, uri)
    return ok and p or uri
  end
  function r.buf(uri)
    if bufs[uri] == nil then
      bufs[uri] = (uri:match('^file:') and M.find_by_path(r.path(uri))) or false
    end
    return bufs[uri] or nil
  end
  local function lines(uri)
    local b = r.buf(uri)
    if b and api.nvim_buf_is_loaded(b) then
      return nil, b
    end
    if files[uri] == nil then
      local ok, read = pcall(vim.fn.readfile, r.path(uri))
      files[uri] = ok and read or {}
    end
    return files[uri]
  end
  function r.line(uri, row)
    local file, b = lines(uri)
    if b then
      return api.nvim_buf_get_lines(b, row, row + 1, false)[1]
    end
    return file[row + 1]
  end
  function r.count(uri)
    local file, b = lines(uri)
    return b and api.nvim_buf_line_count(b) or #file
  end
  function r.all(uri)
    local file, b = lines(uri)
    return b and api.nvim_buf_get_lines(b, 0, -1, false) or file
  end
  return r
end

--- An LSP range of `uri` as 1-based lines and character columns, end exclusive.
function L.range(read, uri, range, enc)
  local s, e = range.start, range['end']
  local sl, el = read.line(uri, s.line), read.line(uri, e.line)
  return {
    line = s.line + 1,
    col = sl and L.col_of(sl, s.character, enc) or s.character + 1,
    end_line = e.line + 1,
    end_col = el and L.col_of(el, e.character, enc) or e.character + 1,
  }
end

--- `{path}` of a URI, as results name files.
function L.file(read, uri)
  return { path = read.path(uri) }
end

-- Requests ------------------------------------------------------------------------------------------

-- JSON-RPC / LSP error codes (LSP 3.17 "ErrorCodes").
local METHOD_NOT_FOUND, REQUEST_CANCELLED, CONTENT_MODIFIED = -32601, -32800, -32801
local SERVER_CANCELLED_HINT = 'The server gave up on the request (busy, or the text changed); retry.'

-- How often a pending request looks whether its server still runs (ms): Neovim does not fail the
-- requests of a server that exits, so without a look they would wait for the call's deadline.
local WATCH_MS = 200
local EXITED_HINT = 'Restart it in the editor (e.g. :LspRestart), then retry.'

--- Whether `client` has stopped (exited, or is shutting down).
local function stopped(client)
  return vim.lsp.get_client_by_id(client.id) == nil or L.invoke(client, 'is_stopped')
end

-- What a request's shape returns to send another request under the same call (L.next).
local Next = {}

--- In a shape of L.request: send `method` with `params` next, under the same call, and shape its
--- answer with `shape` (a code action's codeAction/resolve, a hierarchy's second step).
function L.next(method, params, shape)
  return setmetatable({ method = method, params = params, shape = shape }, Next)
end

--- Sends `method` to `client` and defers the call's answer (core.lua M.defer): when the server
--- answers, shape(result) is the tool's data (or the failure it raises), or L.next(...), another
--- request whose answer is shaped in turn. A server error becomes UNSUPPORTED (method not found),
--- CANCELLED or EDITOR_ERROR, or, given `on_error`, what on_error(err) makes of it; a server that
--- exits first, EDITOR_ERROR. Cancelling the call sends $/cancelRequest for the request then
--- waiting. Returns what the tool returns.
function L.request(p, client, method, params, shape, on_error)
  local token = p.answer_token
  local watch -- started once the first request is sent
  local waiting = { method = method } -- the request the call waits on: its method and id
  local function unwatch()
    if watch and not watch:is_closing() then
      watch:close()
    end
  end
  local send
  -- The server's answer to `m`, shaped; settles the call unless the shape sends another request.
  local function answered(m, shape_fn, err, result)
    if M.shared.deferred[token] == nil then
      unwatch()
      return
    end
    local ok, out = pcall(function()
      if err and on_error and m == method then
        return on_error(err)
      elseif err then
        if err.code == METHOD_NOT_FOUND then
          M.fail('UNSUPPORTED', client.name .. ' does not implement ' .. m .. '.', { reason = 'method', hint = METHOD_HINT })
        elseif err.code == REQUEST_CANCELLED then
          -- Not the call's cancellation (its answer is dropped then): the server gave up on its own.
          M.fail('EDITOR_ERROR', client.name .. ' cancelled the request itself.', { hint = SERVER_CANCELLED_HINT })
        end
        M.fail('EDITOR_ERROR', client.name .. ' answered ' .. m .. ' with an error: ' .. tostring(err.message or err.code), {
          hint = err.code == CONTENT_MODIFIED and 'The text changed while the server worked; retry.' or nil,
        })
      end
      if result == vim.NIL then
        result = nil
      end
      return shape_fn(result)
    end)
    if ok and getmetatable(out) == Next then
      ok, out = pcall(send, out.method, out.params, out.shape)
      if ok then
        return
      end
    end
    unwatch()
    M.settle(token, function()
      if not ok then
        error(out, 0)
      end
      return out
    end)
  end
  -- bufnr nil, not the buffer: flushes the debounced didChange of every buffer the client has,
  -- so that an answer about other files sees their unsaved text too.
  send = function(m, prm, shape_fn)
    local sent, id = L.invoke(client, 'request', m, prm, function(err, result)
      answered(m, shape_fn, err, result)
    end, nil)
    if not sent then
      M.fail('EDITOR_ERROR', 'The language server ' .. client.name .. ' has stopped.', { hint = EXITED_HINT })
    end
    waiting.method, waiting.id = m, id
  end
  send(method, params, shape)
  watch = C.uv.new_timer()
  watch:start(WATCH_MS, WATCH_MS, vim.schedule_wrap(function()
    if watch:is_closing() then
      return
    end
    if M.shared.deferred[token] == nil then
      unwatch()
    elseif stopped(client) then
      unwatch()
      M.settle(token, function()
        M.fail('EDITOR_ERROR', 'The language server ' .. client.name .. ' exited before it answered ' .. waiting.method .. '.', { hint = EXITED_HINT })
      end)
    end
  end))
  return M.defer(p, function()
    unwatch()
    L.invoke(client, 'cancel_request', waiting.id)
  end)
end

-- Pages ---------------------------------------------------------------------------------------------

--- Sorts `items` (each with path, line, col) by path, line, column and, when given, name.
function L.sort_by_place(items)
  table.sort(items, function(x, y)
    if x.path ~= y.path then
      return x.path < y.path
    elseif x.line ~= y.line then
      return x.line < y.line
    elseif x.col ~= y.col then
      return x.col < y.col
    end
    return (x.name or '') < (y.name or '')
  end)
end

--- The place cursor of an item: `path<TAB>line<TAB>col`.
function L.place_cursor(item)
  return item.path .. '\t' .. item.line .. '\t' .. item.col
end

--- The index of the first of `items` (sorted by place) at or after the place cursor (1 without).
function L.first_at(items, cursor)
  if cursor == nil then
    return 1
  end
  local path, line, col = cursor:match('^(.*)\t(%d+)\t(%d+)$')
  if not path then
    M.fail('INVALID_ARGUMENT', 'Not a cursor of this tool: ' .. cursor, { hint = 'Pass the `cursor` of the previous page, unchanged.' })
  end
  line, col = tonumber(line), tonumber(col)
  for i, it in ipairs(items) do
    if it.path > path or (it.path == path and (it.line > line or (it.line == line and it.col >= col))) then
      return i
    end
  end
  return #items + 1
end

--- The byte budget of an answer (M.budget), its bytes that are not UTF-8 counted as the agent
--- reads them (M.json_size `exact`): its lines come from files as read from disk (L.reader), which
--- may be Latin-1, and a deferred answer cannot be asked again with exact_sizes as a read is
--- (nvim/editor.ts). The scan costs little beside a language server's round trip.
function L.budget(p)
  return M.budget(p.max_bytes, true)
end

--- The index after an index cursor (`<n>`: n items already returned), 1 without.
function L.first_after(cursor)
  if cursor == nil then
    return 1
  end
  local n = tonumber(cursor:match('^(%d+)$') or '')
  if not n then
    M.fail('INVALID_ARGUMENT', 'Not a cursor of this tool: ' .. cursor, { hint = 'Pass the `cursor` of the previous page, unchanged.' })
  end
  return n + 1
end

--- Takes items first.. of `items` while max_results and the byte budget allow; returns the page
--- and the index of the first item left out (nil when none is).
function L.page(items, first, p)
  local budget, page = L.budget(p), {}
  local i = first
  while items[i] and #page < p.max_results and budget.take(items[i]) do
    page[#page + 1] = items[i]
    i = i + 1
  end
  return page, items[i] and i or nil
end

--- The location(s) of a definition-like answer (Location | Location[] | LocationLink[] | nil) as
--- {uri, range} pairs; a LocationLink's targetSelectionRange is the name.
function L.locations(result)
  if result == nil then
    return {}
  end
  if result.uri or result.targetUri then
    result = { result }
  end
  local out = {}
  for _, loc in ipairs(result) do
    if loc.targetUri then
      out[#out + 1] = { uri = loc.targetUri, range = loc.targetSelectionRange or loc.targetRange }
    else
      out[#out + 1] = { uri = loc.uri, range = loc.range }
    end
  end
  return out
end

--- `context` lines of `uri` each side of row (0-based), each cut to `line_bytes`.
function L.context(read, uri, row, n, line_bytes)
  local first, lines = math.max(0, row - n), {}
  for r = first, row + n do
    local text = read.line(uri, r)
    if not text then
      break
    end
    lines[#lines + 1] = (M.cut(text, line_bytes))
  end
  return { start_line = first + 1, lines = lines }
end

-- Workspace edits -----------------------------------------------------------------------------------

--- A WorkspaceEdit as {uri, edits = TextEdit[]} per file (documentChanges or changes, sorted by
--- URI). Fails UNSUPPORTED when it creates, renames or deletes files.
function L.edit_files(edit)
  local files = {}
  if edit.documentChanges then
    for _, change in ipairs(edit.documentChanges) do
      if change.kind then
        M.fail('UNSUPPORTED', 'The edit would also ' .. change.kind .. ' a file, which vimrelay does not do; nothing was changed.', {
          hint = 'Create, rename or delete the file yourself, or make the edits with other tools.',
        })
      end
      files[#files + 1] = { uri = change.textDocument.uri, edits = change.edits }
    end
  else
    for uri, edits in pairs(edit.changes or {}) do
      files[#files + 1] = { uri = uri, edits = edits }
    end
  end
  table.sort(files, function(x, y)
    return x.uri < y.uri
  end)
  return files
end

-- Whether byte `c` is part of a word: a letter, digit or `_`, or any byte of a non-ASCII character.
local function wordy(c)
  return c ~= nil and (c >= 0x80 or c == 0x5F or (c >= 0x30 and c <= 0x39) or (c >= 0x41 and c <= 0x5A) or (c >= 0x61 and c <= 0x7A))
end

-- Common prefix and suffix, in bytes, of two strings, each ending (beginning) where a word does:
-- what differs is whole words (a rename's `area` to `areas` is `area` to `areas`, not `` to `s`),
-- and so at character boundaries.
local function common(a, b)
  local n = 0
  while n < #a and n < #b and a:byte(n + 1) == b:byte(n + 1) do
    n = n + 1
  end
  while n > 0 and wordy(a:byte(n)) and (wordy(a:byte(n + 1)) or wordy(b:byte(n + 1))) do
    n = n - 1
  end
  local m = 0
  while m < #a - n and m < #b - n and a:byte(#a - m) == b:byte(#b - m) do
    m = m + 1
  end
  while m > 0 and wordy(a:byte(#a - m + 1)) and (wordy(a:byte(#a - m)) or wordy(b:byte(#b - m))) do
    m = m - 1
  end
  return n, m
end

--- The TextEdits of one file as byte edits {sr, sc, er, ec, old, new} (0-based rows, bytes, end
--- exclusive; `old` the text replaced, `new` the text put in) against the text `read` gives. A
--- range ending past the last line ends at its end (one final newline of the new text dropped); an
--- edit that replaces whole lines with as many lines (pylsp answers a rename with the whole file)
--- becomes one edit per changed line, trimmed to the words that differ: the same edits every
--- server's preview shows.
function L.byte_edits(read, uri, edits, enc)
  local count = read.count(uri)
  local out = {}
  local function add(sr, sc, er, ec, new)
    local parts = {}
    for row = sr, er do
      local line = read.line(uri, row) or ''
      parts[#parts + 1] = line:sub(row == sr and sc + 1 or 1, row == er and ec or #line)
    end
    out[#out + 1] = { sr = sr, sc = sc, er = er, ec = ec, old = table.concat(parts, '\n'), new = new, i = #out + 1 }
  end
  for _, e in ipairs(edits) do
    local s, en = e.range.start, e.range['end']
    local new = e.newText:gsub('\r\n?', '\n')
    local new_lines = M.split_lines(new)
    -- Rows sr.. up to (not including) `upto` replaced whole, by as many lines?
    local sr, upto = s.line, math.min(en.line, count)
    if sr >= count then
      -- An insertion after the last line: after the end of that line, on a line of its own.
      local row = math.max(count - 1, 0)
      local last = read.line(uri, row) or ''
      add(row, #last, row, #last, '\n' .. new:gsub('\n$', ''))
    elseif s.character == 0 and en.character == 0 and new:sub(-1) == '\n' and upto > sr and #new_lines - 1 == upto - sr then
      for i = 1, #new_lines - 1 do
        local row = sr + i - 1
        local old_line = read.line(uri, row) or ''
        if old_line ~= new_lines[i] then
          local n, m = common(old_line, new_lines[i])
          add(row, n, row, #old_line - m, new_lines[i]:sub(n + 1, #new_lines[i] - m))
        end
      end
    else
      local sc = L.byte_of(read.line(uri, sr) or '', s.character, enc)
      local er, ec = en.line, nil
      if er >= count then
        er = count - 1
        ec = #(read.line(uri, er) or '')
        new = new:gsub('\n$', '')
      else
        ec = L.byte_of(read.line(uri, er) or '', en.character, enc)
      end
      add(sr, sc, er, ec, new)
    end
  end
  -- In order of place; inserts at one place in the server's order (LSP 3.17 "TextEdit[]"), which
  -- their order of making bottom-up, last first, keeps.
  table.sort(out, function(x, y)
    if x.sr ~= y.sr then
      return x.sr < y.sr
    elseif x.sc ~= y.sc then
      return x.sc < y.sc
    end
    return x.i < y.i
  end)
  for _, e in ipairs(out) do
    e.i = nil
  end
  return out
end

--- A byte edit of `uri` as a preview shows it: its range (characters) and old and new text.
function L.edit_view(read, uri, e)
  local sl, el = read.line(uri, e.sr) or '', read.line(uri, e.er) or ''
  return {
    line = e.sr + 1,
    col = M.char_col(sl, e.sc),
    end_line = e.er + 1,
    end_col = M.char_col(el, e.ec),
    old_text = e.old,
    new_text = e.new,
  }
end

return L
