" vimrelay's helpers for the lsp_* tools on Vim, the twin of agent/editors/nvim/lua/lsp.lua: which
" language client and server to ask (ALE's, else vim-lsp's: util/lsp/ale.vim, util/lsp/vim_lsp.vim),
" positions between 1-based character columns and UTF-16 (neither client negotiates another
" encoding), lines of files by URI, deferred requests (util/deferred.vim), paging, and workspace
" edits as byte edits.

" Clients ------------------------------------------------------------------------------------------

" A client is {name (the server's), impl, ...}; util/lsp/<impl>.vim implements, for it:
"   find(b, hint)      -> a client for buffer b, or {fail: [message, hint]}
"   uri(client, b)     -> the URI of buffer b's file;  path(client, uri) -> the path of a file URI
"   send(client, b, method, params, OnAnswer) -> a handle; OnAnswer(message) once, with the
"                         response ({result} | {error}), {lacks: 1} (the server does not announce
"                         the method) or {fail: [code, message, details]}; may fail at once
"   cancel(client, handle)      the agent stopped waiting: drop it, $/cancelRequest once sent
"   running(client, handle)     whether the request's server may still answer it (not once it exited)
"   changed(client, handle, b)  buffer b was edited (util/lsp_edit.vim): tell the server
"   diagnostics(client, b)      the client's diagnostics of buffer b from this server, as LSP
"                               Diagnostics (for a code action request's context)
"   resolves(client, action)    whether to ask the server for code action `action`'s edit
"                               (codeAction/resolve): it resolves them lazily (resolveProvider)
" While a server command (workspace/executeCommand) waits, the server's own requests (the edits it
" sends, workspace/applyEdit) are answered as for the user's own code action; one the client leaves
" unanswered ends the wait (send answers OnAnswer({error}) then, saying so): the server would never
" answer the command.
function! s:op(client, name, ...) abort
  return call('vimrelay#util#lsp#' . a:client.impl . '#' . a:name, [a:client] + a:000)
endfunction

" The client for buffer b: ALE's when it has a language server for b, else vim-lsp's. Fails
" UNSUPPORTED (reason no_server) naming what each loaded client lacks, else both clients (`hint`:
" the server the agent names for the filetype, or v:null).
function! vimrelay#util#lsp#client(b, hint) abort
  let [ale, vim_lsp] = [exists('g:loaded_ale'), vimrelay#util#lsp#vim_lsp#loaded()]
  let fails = []
  for impl in (ale ? ['ale'] : []) + (vim_lsp ? ['vim_lsp'] : [])
    let client = vimrelay#util#lsp#{impl}#find(a:b, a:hint)
    if !has_key(client, 'fail')
      return client
    endif
    call add(fails, client.fail)
  endfor
  let e_g = a:hint is v:null ? '' : ' (e.g. ' . a:hint . ')'
  if empty(fails)
    call vimrelay#util#fail('UNSUPPORTED', 'This Vim has no language client vimrelay can use: neither ALE nor vim-lsp is loaded.', {'reason': 'no_server',
          \ 'hint': 'Install ALE (Debian: vim-ale; then :packadd ale) or vim-lsp, and enable a language server for this filetype' . e_g
          \ . ' in it, or use Neovim. Until then use grep_buffers.'})
  endif
  let other = ale && vim_lsp ? '' : ale ? ', or register one with vim-lsp (lsp#register_server)' : ', or enable one in ALE (g:ale_linters)'
  call vimrelay#util#fail('UNSUPPORTED', join(map(copy(fails), 'v:val[0]'), ' '), {'reason': 'no_server',
        \ 'hint': join(map(copy(fails), 'v:val[1]'), '; or ') . other . '. Until then use grep_buffers.'})
endfunction

" The URI of buffer b's file, as `client` names it.
function! vimrelay#util#lsp#uri(client, b) abort
  return s:op(a:client, 'uri', a:b)
endfunction

" Positions (UTF-16) ------------------------------------------------------------------------------

" UTF-16 units before the 1-based character column `col` of `line` (columns count code points,
" as str2list() lists them).
function! vimrelay#util#lsp#units_of(line, col) abort
  if a:col <= 1
    return 0
  endif
  let used = 0
  for c in str2list(a:line)[: a:col - 2]
    let used += c > 0xFFFF ? 2 : 1
  endfor
  return used
endfunction

" UTF-8 bytes of code point c.
function! s:bytes(c) abort
  return a:c < 0x80 ? 1 : a:c < 0x800 ? 2 : a:c < 0x10000 ? 3 : 4
endfunction

" The 0-based byte offset in `line` of the UTF-16 offset `units`; an offset inside a character (half
" a surrogate pair) is that character's start, past the end strlen(line).
function! vimrelay#util#lsp#byte_of(line, units) abort
  let [used, bytes] = [0, 0]
  for c in str2list(a:line)
    let w = c > 0xFFFF ? 2 : 1
    if used + w > a:units
      return bytes
    endif
    let used += w
    let bytes += s:bytes(c)
  endfor
  return strlen(a:line)
endfunction

" The 1-based character column of the UTF-16 offset `units` in `line`.
function! vimrelay#util#lsp#col_of(line, units) abort
  return vimrelay#util#char_col(a:line, vimrelay#util#lsp#byte_of(a:line, a:units) + 1)
endfunction

" The request parameters for a position of buffer b (1-based line, character column), for `client`.
function! vimrelay#util#lsp#position_params(client, b, line, col) abort
  let text = get(getbufline(a:b, a:line), 0, v:null)
  if text is v:null
    call vimrelay#util#fail('INVALID_ARGUMENT', 'Buffer ' . a:b . ' has ' . vimrelay#util#line_count(a:b) . ' lines, not ' . a:line . '.',
          \ {'hint': 'Pass a line of the buffer (read_buffer shows them).'})
  endif
  return {'textDocument': {'uri': vimrelay#util#lsp#uri(a:client, a:b)}, 'position': {'line': a:line - 1, 'character': vimrelay#util#lsp#units_of(text, a:col)}}
endfunction

" The LSP range (UTF-16) of buffer b from (line, col) to (end_line, end_col), 1-based lines and
" character columns, end exclusive; the position alone (an empty range) when end_line is v:null.
" Fails INVALID_ARGUMENT for a line past the buffer's end or an end before the start.
function! vimrelay#util#lsp#range_params(client, b, line, col, end_line, end_col) abort
  let start = vimrelay#util#lsp#position_params(a:client, a:b, a:line, a:col).position
  if a:end_line is v:null
    return {'start': start, 'end': start}
  endif
  let end = vimrelay#util#lsp#position_params(a:client, a:b, a:end_line, a:end_col).position
  if end.line < start.line || (end.line == start.line && end.character < start.character)
    call vimrelay#util#fail('INVALID_ARGUMENT', 'The range ends (line ' . a:end_line . ', column ' . a:end_col . ') before it starts (line '
          \ . a:line . ', column ' . a:col . ').', {'hint': 'Pass end_line and end_col at or after line and col.'})
  endif
  return {'start': start, 'end': end}
endfunction

" Whether to ask `client`'s server for the edit of code action `action` (codeAction/resolve).
function! vimrelay#util#lsp#resolves(client, action) abort
  return s:op(a:client, 'resolves', a:action)
endfunction

" The client's diagnostics of buffer b on the lines of LSP range `range`, as LSP Diagnostics (for a
" code action request's context, LSP 3.17 "CodeActionContext").
function! vimrelay#util#lsp#context_diagnostics(client, b, range) abort
  return filter(s:op(a:client, 'diagnostics', a:b), {_, d -> d.range.start.line <= a:range.end.line && d.range.end.line >= a:range.start.line})
endfunction

" Files --------------------------------------------------------------------------------------------

" A reader of lines by URI, for one answer of `client`: a loaded buffer's text (what the server was
" sent), else the file's on disk, read once. r.path(uri), r.buf(uri) (0 for none), r.line(uri, row) (0-based;
" v:null past the end), r.count(uri), r.all(uri).
function! vimrelay#util#lsp#reader(client) abort
  let r = {'files': {}, 'bufs': {}, 'client': a:client}
  function! r.path(uri) abort
    return a:uri =~? '^file:' ? s:op(self.client, 'path', a:uri) : a:uri
  endfunction
  function! r.buf(uri) abort
    if !has_key(self.bufs, a:uri)
      let self.bufs[a:uri] = a:uri =~? '^file:' ? vimrelay#util#find_by_path(self.path(a:uri)) : 0
    endif
    return self.bufs[a:uri]
  endfunction
  function! r.lines(uri) abort
    if !has_key(self.files, a:uri)
      let p = self.path(a:uri)
      let self.files[a:uri] = filereadable(p) ? readfile(p) : []
    endif
    return self.files[a:uri]
  endfunction
  function! r.line(uri, row) abort
    let b = self.buf(a:uri)
    if b > 0 && bufloaded(b)
      return get(getbufline(b, a:row + 1), 0, v:null)
    endif
    return get(self.lines(a:uri), a:row, v:null)
  endfunction
  function! r.count(uri) abort
    let b = self.buf(a:uri)
    return b > 0 && bufloaded(b) ? vimrelay#util#line_count(b) : len(self.lines(a:uri))
  endfunction
  function! r.all(uri) abort
    let b = self.buf(a:uri)
    return b > 0 && bufloaded(b) ? getbufline(b, 1, '$') : self.lines(a:uri)
  endfunction
  return r
endfunction

" An LSP range of `uri` as 1-based lines and character columns, end exclusive.
function! vimrelay#util#lsp#range(read, uri, range) abort
  let [s, e] = [a:range.start, a:range.end]
  let [sl, el] = [a:read.line(a:uri, s.line), a:read.line(a:uri, e.line)]
  return {'line': s.line + 1, 'col': sl is v:null ? s.character + 1 : vimrelay#util#lsp#col_of(sl, s.character),
        \ 'end_line': e.line + 1, 'end_col': el is v:null ? e.character + 1 : vimrelay#util#lsp#col_of(el, e.character)}
endfunction

" {path} of a URI, as results name files.
function! vimrelay#util#lsp#file(read, uri) abort
  return {'path': a:read.path(a:uri)}
endfunction

" Requests -----------------------------------------------------------------------------------------

" token -> the request: {method, Shape, state, handle}.
let s:requests = get(s:, 'requests', {})

" JSON-RPC / LSP error codes (LSP 3.17 "ErrorCodes").
let s:method_not_found = -32601
let s:request_cancelled = -32800
" Not the call's cancellation (its answer is dropped then): the server gave up on its own.
let s:server_cancelled_hint = 'The server gave up on the request (busy, or the text changed); retry.'
let s:content_modified = -32801

let s:method_hint = 'This server cannot answer that; try another kind or tool (grep_buffers finds text).'

function! s:fail_with(code, message, details) abort
  call vimrelay#util#fail(a:code, a:message, a:details)
endfunction

" The buffer a tool's parameters name (loaded), and its client (vimrelay#util#lsp#client):
" [buffer, client].
function! vimrelay#util#lsp#target(p) abort
  let b = vimrelay#util#resolve(a:p)
  call vimrelay#util#ensure_loaded(b)
  return [b, vimrelay#util#lsp#client(b, get(a:p.servers, getbufvar(b, '&filetype'), v:null))]
endfunction

" How often a pending request looks whether its server still runs (ms): neither client fails the
" requests of a server that exits, so without a look they would wait for the call's deadline.
let s:watch_ms = 200
let s:exited_hint = 'Retry: the editor starts the server again. If it exits again, its log says why (:ALEInfo, :LspLog).'

" Sends `method` with `params` to `client`'s language server for buffer b (the client starts it
" if it is not running), and defers the call's answer: when the server answers, Shape(result,
" state) is the tool's data (or the failure it raises), or vimrelay#util#lsp#next(...), another
" request whose answer is shaped in turn; `state` holds `client` and `handle` (the request's)
" besides what the tool put in. A server error becomes UNSUPPORTED (method not found),
" CANCELLED or EDITOR_ERROR, or with state.OnError, what OnError(error, state) makes of the first
" request's; a server that exits first, EDITOR_ERROR. Cancelling the call cancels
" the request. Returns what the tool returns.
function! vimrelay#util#lsp#request(p, b, client, method, params, Shape, state) abort
  let token = a:p.answer_token
  let request = {'method': a:method, 'first': a:method, 'Shape': a:Shape, 'state': extend(a:state, {'client': a:client}), 'b': a:b}
  let s:requests[token] = request
  " Deferred before the request is sent: a client may answer at once.
  let result = vimrelay#util#deferred#later(a:p, function('s:cancel', [token]))
  try
    let request.state.handle = s:op(a:client, 'send', a:b, a:method, a:params, function('s:on_answer', [token]))
  catch
    call vimrelay#util#deferred#cancel(token)
    throw v:exception
  endtry
  if has_key(s:requests, token)
    let request.watch = timer_start(s:watch_ms, function('s:watch', [token]), {'repeat': -1})
  endif
  return result
endfunction

" The timer of request `token`: answers EDITOR_ERROR once its server has exited.
function! s:watch(token, timer) abort
  let request = get(s:requests, a:token, v:null)
  if request is v:null
    call timer_stop(a:timer)
  elseif !s:op(request.state.client, 'running', request.state.handle)
    call s:answer(a:token, function('s:fail_with', ['EDITOR_ERROR', 'The language server ' . request.state.client.name
          \ . ' exited before it answered ' . request.method . '.', {'hint': s:exited_hint}]), [])
  endif
endfunction

" The client's answer to request `token` (see "Clients").
function! s:on_answer(token, message) abort
  let request = get(s:requests, a:token, v:null)
  if request is v:null
    return
  endif
  let name = request.state.client.name
  if has_key(a:message, 'fail')
    call s:answer(a:token, function('s:fail_with', a:message.fail), [])
  elseif has_key(a:message, 'lacks')
    call s:answer(a:token, function('s:fail_with', ['UNSUPPORTED', name . ' does not implement ' . request.method . '.', {'reason': 'method', 'hint': s:method_hint}]), [])
  elseif has_key(a:message, 'error') && has_key(request.state, 'OnError') && request.method ==# request.first
    call s:answer(a:token, request.state.OnError, [a:message.error, request.state])
  elseif has_key(a:message, 'error')
    let code = get(a:message.error, 'code', 0)
    let fail = code == s:method_not_found ? ['UNSUPPORTED', name . ' does not implement ' . request.method . '.', {'reason': 'method', 'hint': s:method_hint}]
          \ : code == s:request_cancelled ? ['EDITOR_ERROR', name . ' cancelled the request itself.', {'hint': s:server_cancelled_hint}]
          \ : ['EDITOR_ERROR', name . ' answered ' . request.method . ' with an error: ' . get(a:message.error, 'message', code),
          \    code == s:content_modified ? {'hint': 'The text changed while the server worked; retry.'} : {}]
    call s:answer(a:token, function('s:fail_with', fail), [])
  else
    call s:shaped(a:token, get(a:message, 'result', v:null))
  endif
endfunction

" In a Shape of vimrelay#util#lsp#request: send `method` with `params` next, under the same call,
" and shape its answer with Shape (a code action's codeAction/resolve, a hierarchy's second step).
function! vimrelay#util#lsp#next(method, params, Shape) abort
  return {'vimrelay_next': [a:method, a:params, a:Shape]}
endfunction

" The server's answer `result` to request `token`, shaped: the call's answer, unless the shape
" sends another request.
function! s:shaped(token, result) abort
  let request = s:requests[a:token]
  try
    let out = call(request.Shape, [a:result, request.state])
    if type(out) == v:t_dict && has_key(out, 'vimrelay_next')
      let [request.method, params, request.Shape] = out.vimrelay_next
      let request.state.handle = s:op(request.state.client, 'send', request.b, request.method, params, function('s:on_answer', [a:token]))
      return
    endif
    let Fn = {-> out}
  catch /^vimrelay-fail$/
    let Fn = function('s:fail_again', [copy(vimrelay#util#failure())])
  catch
    let Fn = function('s:throw_again', [v:exception . ' (' . v:throwpoint . ')'])
  endtry
  call s:answer(a:token, Fn, [])
endfunction

" A failure caught from a shape, raised again for the call's answer.
function! s:fail_again(failure) abort
  call vimrelay#util#fail(a:failure.code, a:failure.message, filter(copy(a:failure), {k, v -> k !=# 'code' && k !=# 'message'}))
endfunction

function! s:throw_again(message) abort
  throw a:message
endfunction

function! s:answer(token, Fn, args) abort
  call s:forget(a:token)
  call vimrelay#util#deferred#settle(a:token, a:Fn, a:args)
endfunction

" The agent stopped waiting: the request is dropped, and cancelled in the server once sent.
function! s:cancel(token) abort
  let request = s:forget(a:token)
  if has_key(request, 'state') && has_key(request.state, 'handle')
    call s:op(request.state.client, 'cancel', request.state.handle)
  endif
endfunction

" Request `token`, no longer pending (its watch stopped); {} when it was not.
function! s:forget(token) abort
  let request = has_key(s:requests, a:token) ? remove(s:requests, a:token) : {}
  if has_key(request, 'watch')
    call timer_stop(request.watch)
  endif
  return request
endfunction

" Tells `client`'s server that buffer b was edited (`handle`: the request whose answer the edit made).
function! vimrelay#util#lsp#changed(client, handle, b) abort
  call s:op(a:client, 'changed', a:handle, a:b)
endfunction

" Pages --------------------------------------------------------------------------------------------

function! s:place_cmp(x, y) abort
  if a:x.path !=# a:y.path
    return a:x.path <# a:y.path ? -1 : 1
  elseif a:x.line != a:y.line
    return a:x.line - a:y.line
  elseif a:x.col != a:y.col
    return a:x.col - a:y.col
  endif
  let [xn, yn] = [get(a:x, 'name', ''), get(a:y, 'name', '')]
  return xn ==# yn ? 0 : xn <# yn ? -1 : 1
endfunction

" `items` (each with path, line, col) sorted by path, line, column and, when they have one, name.
function! vimrelay#util#lsp#sort_by_place(items) abort
  return sort(a:items, function('s:place_cmp'))
endfunction

" The place cursor of an item: `path<TAB>line<TAB>col`.
function! vimrelay#util#lsp#place_cursor(item) abort
  return a:item.path . "\t" . a:item.line . "\t" . a:item.col
endfunction

function! s:bad_cursor(cursor) abort
  call vimrelay#util#fail('INVALID_ARGUMENT', 'Not a cursor of this tool: ' . a:cursor, {'hint': 'Pass the `cursor` of the previous page, unchanged.'})
endfunction

" The 0-based index of the first of `items` (sorted by place) at or after a place cursor (0 without).
function! vimrelay#util#lsp#first_at(items, cursor) abort
  if a:cursor is v:null
    return 0
  endif
  let m = matchlist(a:cursor, '^\(.*\)\t\(\d\+\)\t\(\d\+\)$')
  if empty(m)
    call s:bad_cursor(a:cursor)
  endif
  let at = {'path': m[1], 'line': str2nr(m[2]), 'col': str2nr(m[3])}
  let i = 0
  while i < len(a:items) && s:place_cmp(extend(copy(a:items[i]), {'name': ''}), at) < 0
    let i += 1
  endwhile
  return i
endfunction

" The 0-based index after an index cursor (`<n>`: n items already returned), 0 without.
function! vimrelay#util#lsp#first_after(cursor) abort
  if a:cursor is v:null
    return 0
  elseif a:cursor !~# '^\d\+$'
    call s:bad_cursor(a:cursor)
  endif
  return str2nr(a:cursor)
endfunction

" Items first.. of `items` while p.max_results and p.max_bytes allow: [page, index of the first
" item left out, or -1].
function! vimrelay#util#lsp#page(items, first, p) abort
  let [page, used, i] = [[], 0, a:first]
  while i < len(a:items) && len(page) < a:p.max_results
    let size = vimrelay#util#json_size(a:items[i])
    if used + size > a:p.max_bytes
      break
    endif
    let used += size
    call add(page, a:items[i])
    let i += 1
  endwhile
  return [page, i < len(a:items) ? i : -1]
endfunction

" The location(s) of a definition-like answer (Location | Location[] | LocationLink[] | null) as
" [{uri, range}]; a LocationLink's targetSelectionRange is the name.
function! vimrelay#util#lsp#locations(result) abort
  if a:result is v:null
    return []
  endif
  let list = type(a:result) == v:t_dict ? [a:result] : a:result
  return map(copy(list), {_, l -> has_key(l, 'targetUri')
        \ ? {'uri': l.targetUri, 'range': get(l, 'targetSelectionRange', l.targetRange)} : {'uri': l.uri, 'range': l.range}})
endfunction

" `n` lines of `uri` each side of row (0-based), each cut to `line_bytes`.
function! vimrelay#util#lsp#context(read, uri, row, n, line_bytes) abort
  let [first, lines] = [max([0, a:row - a:n]), []]
  for r in range(first, a:row + a:n)
    let text = a:read.line(a:uri, r)
    if text is v:null
      break
    endif
    call add(lines, vimrelay#util#cut(text, a:line_bytes))
  endfor
  return {'start_line': first + 1, 'lines': lines}
endfunction

" Workspace edits ----------------------------------------------------------------------------------

" A WorkspaceEdit as [{uri, edits}] per file, sorted by URI. Fails UNSUPPORTED when it creates,
" renames or deletes files.
function! vimrelay#util#lsp#edit_files(edit) abort
  let files = []
  if has_key(a:edit, 'documentChanges')
    for change in a:edit.documentChanges
      if has_key(change, 'kind')
        call vimrelay#util#fail('UNSUPPORTED', 'The edit would also ' . change.kind . ' a file, which vimrelay does not do; nothing was changed.',
              \ {'hint': 'Create, rename or delete the file yourself, or make the edits with other tools.'})
      endif
      call add(files, {'uri': change.textDocument.uri, 'edits': get(change, 'edits', [])})
    endfor
  else
    for [uri, edits] in items(get(a:edit, 'changes', {}))
      call add(files, {'uri': uri, 'edits': edits})
    endfor
  endif
  return sort(files, {x, y -> x.uri ==# y.uri ? 0 : x.uri <# y.uri ? -1 : 1})
endfunction

" Whether code point `c` is part of a word: a letter, digit or `_`, or any non-ASCII character.
function! s:wordy(c) abort
  return a:c >= 0x80 || a:c == 0x5F || (a:c >= 0x30 && a:c <= 0x39) || (a:c >= 0x41 && a:c <= 0x5A) || (a:c >= 0x61 && a:c <= 0x7A)
endfunction

" Common prefix and suffix, in bytes, of two strings, each ending (beginning) where a word does, as
" lsp.lua's common() finds them.
function! s:common(a, b) abort
  let [a, b] = [str2list(a:a), str2list(a:b)]
  let n = 0
  while n < len(a) && n < len(b) && a[n] == b[n]
    let n += 1
  endwhile
  while n > 0 && s:wordy(a[n - 1]) && ((n < len(a) && s:wordy(a[n])) || (n < len(b) && s:wordy(b[n])))
    let n -= 1
  endwhile
  let m = 0
  while m < len(a) - n && m < len(b) - n && a[-1 - m] == b[-1 - m]
    let m += 1
  endwhile
  while m > 0 && s:wordy(a[-m]) && ((m < len(a) && s:wordy(a[-1 - m])) || (m < len(b) && s:wordy(b[-1 - m])))
    let m -= 1
  endwhile
  return [n == 0 ? 0 : strlen(list2str(a[: n - 1])), m == 0 ? 0 : strlen(list2str(a[-m :]))]
endfunction

" The TextEdits of one file as byte edits {sr, sc, er, ec, old, new} (0-based rows, bytes, end
" exclusive), as lsp.lua's M.lsp.byte_edits makes them (the same rules: past the last line, and
" whole lines replaced by as many lines, one edit per changed line trimmed to the words that differ).
function! vimrelay#util#lsp#byte_edits(read, uri, edits) abort
  let cnt = a:read.count(a:uri)
  let out = []
  for e in a:edits
    let [s, en] = [e.range.start, e.range.end]
    let new = substitute(e.newText, '\r\n\=', '\n', 'g')
    let new_lines = split(new, "\n", 1)
    let [sr, upto] = [s.line, min([en.line, cnt])]
    if sr >= cnt
      let row = max([cnt - 1, 0])
      let last = a:read.line(a:uri, row) ?? ''
      call s:add(out, a:read, a:uri, row, strlen(last), row, strlen(last), "\n" . substitute(new, '\n$', '', ''))
    elseif s.character == 0 && en.character == 0 && new =~# '\n$' && upto > sr && len(new_lines) - 1 == upto - sr
      for i in range(len(new_lines) - 1)
        let old_line = a:read.line(a:uri, sr + i) ?? ''
        if old_line !=# new_lines[i]
          let [n, m] = s:common(old_line, new_lines[i])
          call s:add(out, a:read, a:uri, sr + i, n, sr + i, strlen(old_line) - m, strpart(new_lines[i], n, strlen(new_lines[i]) - m - n))
        endif
      endfor
    else
      let sc = vimrelay#util#lsp#byte_of(a:read.line(a:uri, sr) ?? '', s.character)
      let er = en.line
      if er >= cnt
        let er = cnt - 1
        let ec = strlen(a:read.line(a:uri, er) ?? '')
        let new = substitute(new, '\n$', '', '')
      else
        let ec = vimrelay#util#lsp#byte_of(a:read.line(a:uri, er) ?? '', en.character)
      endif
      call s:add(out, a:read, a:uri, sr, sc, er, ec, new)
    endif
  endfor
  return sort(out, {x, y -> x.sr != y.sr ? x.sr - y.sr : x.sc - y.sc})
endfunction

function! s:add(out, read, uri, sr, sc, er, ec, new) abort
  let parts = []
  for row in range(a:sr, a:er)
    let line = a:read.line(a:uri, row) ?? ''
    let from = row == a:sr ? a:sc : 0
    let to = row == a:er ? a:ec : strlen(line)
    call add(parts, strpart(line, from, to - from))
  endfor
  call add(a:out, {'sr': a:sr, 'sc': a:sc, 'er': a:er, 'ec': a:ec, 'old': join(parts, "\n"), 'new': a:new})
endfunction

" A byte edit of `uri` as a preview shows it: its range (characters) and old and new text.
function! vimrelay#util#lsp#edit_view(read, uri, e) abort
  let [sl, el] = [a:read.line(a:uri, a:e.sr) ?? '', a:read.line(a:uri, a:e.er) ?? '']
  return {'line': a:e.sr + 1, 'col': vimrelay#util#char_col(sl, a:e.sc + 1), 'end_line': a:e.er + 1,
        \ 'end_col': vimrelay#util#char_col(el, a:e.ec + 1), 'old_text': a:e.old, 'new_text': a:e.new}
endfunction
