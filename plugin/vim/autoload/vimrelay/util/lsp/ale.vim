" The ALE client of the lsp_* tools (util/lsp.vim "Clients"), through ALE 3.3's language client
" (ale#lsp_linter#StartLSP, ale#lsp#RegisterCallback, ale#lsp#Send): which of ALE's linters serves a
" buffer, sending a request once ALE has started its server and opened the buffer, cancelling it,
" URIs, and telling the server about edits. ALE negotiates no position encoding (UTF-16), and its
" own requests send byte columns, so none of them is reused.

" Method -> ALE's name of the capability (ale#lsp#HasCapability knows only these; the others are
" sent, and a "method not found" error answers UNSUPPORTED).
let s:capability = {'textDocument/definition': 'definition', 'textDocument/typeDefinition': 'typeDefinition',
      \ 'textDocument/implementation': 'implementation', 'textDocument/references': 'references',
      \ 'textDocument/hover': 'hover', 'workspace/symbol': 'symbol_search', 'textDocument/rename': 'rename',
      \ 'textDocument/codeAction': 'code_actions'}

" conn_id . '|' . message id -> the OnAnswer of that request.
let s:by_id = get(s:, 'by_id', {})

" conn_id -> the handles of the server commands (workspace/executeCommand) sent on it and not yet
" answered: while there are any, the server's requests on that connection are answered here.
let s:commanding = get(s:, 'commanding', {})

" ALE's client for buffer b: {name, impl: 'ale', linter}, the first enabled linter (g:ale_linters and
" the rest of ALE's configuration decide) that speaks LSP and that ALE can start (a socket, or an
" installed executable); else {fail: [message, hint]}, naming an enabled server that is not
" installed, else the servers ALE knows for the filetype (else `hint`, the server the agent names
" for it). A server that is not installed is no client, so that vim-lsp is asked instead.
function! vimrelay#util#lsp#ale#find(b, hint) abort
  let ft = getbufvar(a:b, '&filetype')
  let enabled = ale#linter#RemoveIgnored(a:b, ft, ale#linter#Get(ft))
  let lsp = filter(copy(enabled), {_, l -> index(['stdio', 'socket'], get(l, 'lsp', '')) >= 0})
  let startable = filter(copy(lsp), {_, l -> l.lsp is# 'socket' || executable(ale#linter#GetExecutable(a:b, l))})
  if !empty(startable)
    return {'name': startable[0].name, 'impl': 'ale', 'linter': startable[0]}
  elseif !empty(lsp)
    return {'fail': ['ALE could not start ' . lsp[0].name . ' for buffer ' . a:b . ' (is ' . string(ale#linter#GetExecutable(a:b, lsp[0])) . ' installed?).',
          \ 'Install the language server ' . lsp[0].name . ' or fix its ALE configuration (:ALEInfo)']}
  endif
  let tsserver = filter(copy(enabled), {_, l -> get(l, 'lsp', '') is# 'tsserver'})
  let known = map(filter(ale#linter#GetAll(ale#linter#ResolveFiletype(ft)), {_, l -> index(['stdio', 'socket'], get(l, 'lsp', '')) >= 0}), 'v:val.name')
  return {'fail': ['ALE has no language server enabled for buffer ' . a:b . ' (filetype ' . (empty(ft) ? 'none' : ft) . ')'
        \ . (empty(tsserver) ? '.' : '; its ' . tsserver[0].name . ' linter speaks the tsserver protocol, which vimrelay does not use.'),
        \ empty(known)
        \   ? 'Define an ALE linter for a language server of this filetype' . (a:hint is v:null ? '' : ' (e.g. ' . a:hint . ')')
        \   : 'Enable one of ALE''s language servers for ' . ft . ' (' . join(known, ', ') . ') in g:ale_linters, with its executable installed']}
endfunction

" The URI of buffer b's file, and the path of a file URI.
function! vimrelay#util#lsp#ale#uri(client, b) abort
  return ale#util#ToURI(fnamemodify(bufname(a:b), ':p'))
endfunction

function! vimrelay#util#lsp#ale#path(client, uri) abort
  return ale#path#FromFileURI(a:uri)
endfunction

" Sends `method` with `params` to the client's server for buffer b once ALE has started it (now,
" when it runs) and opened b; OnAnswer(message) gets the server's response ({result} or {error}),
" or {lacks: 1} when the server does not announce the method. Returns the request's handle for
" cancel(); fails UNSUPPORTED when ALE cannot start the server.
function! vimrelay#util#lsp#ale#send(client, b, method, params, OnAnswer) abort
  let linter = a:client.linter
  if empty(ale#lsp_linter#FindProjectRoot(a:b, linter))
    call vimrelay#util#fail('UNSUPPORTED', 'ALE found no project root for buffer ' . a:b . ', so it does not start ' . linter.name . '.',
          \ {'reason': 'no_server', 'hint': 'Add what ALE''s ' . linter.name . ' linter looks for above the file (e.g. .git, a Makefile, compile_commands.json), or set g:ale_root; :ALEInfo tells more.'})
  endif
  let handle = {'method': a:method, 'params': a:params, 'OnAnswer': a:OnAnswer, 'cancelled': 0, 'client': a:client}
  " ALE's callback runs at once when the server already runs.
  if !ale#lsp_linter#StartLSP(a:b, linter, function('s:on_ready', [handle]))
    call vimrelay#util#fail('UNSUPPORTED', 'ALE could not start ' . linter.name . ' for buffer ' . a:b . ' (is '
          \ . string(ale#linter#GetExecutable(a:b, linter)) . ' installed?).',
          \ {'reason': 'no_server', 'hint': 'Install the language server ' . linter.name . ' or fix its ALE configuration (:ALEInfo).'})
  endif
  return handle
endfunction

" ALE's callback once the server is initialized and the buffer's document open: sends the request.
function! s:on_ready(handle, linter, details) abort
  if a:handle.cancelled
    return
  endif
  let conn = a:details.connection_id
  " The connection itself too: a server that exits comes back as another under the same id.
  let [a:handle.conn, a:handle.connection] = [conn, get(ale#lsp#GetConnections(), conn, {})]
  if has_key(s:capability, a:handle.method) && !ale#lsp#HasCapability(conn, s:capability[a:handle.method])
    call a:handle.OnAnswer({'lacks': 1})
    return
  endif
  " Every time: a server that exited comes back as a new connection under the same id, and ALE
  " keeps a callback only once per connection.
  call ale#lsp#RegisterCallback(conn, function('s:on_message'))
  " Every loaded buffer's unsaved text first (ALE sends it only for documents it opened): an
  " answer about other files sees their changes too.
  for b in map(filter(getbufinfo(), 'v:val.loaded'), 'v:val.bufnr')
    call ale#lsp#NotifyForChanges(conn, b)
  endfor
  let a:handle.id = ale#lsp#Send(conn, [0, a:handle.method, a:handle.params])
  let s:by_id[conn . '|' . a:handle.id] = a:handle.OnAnswer
  if a:handle.method ==# 'workspace/executeCommand'
    let s:commanding[conn] = add(get(s:commanding, conn, []), a:handle)
  endif
endfunction

" Every message of a connection ALE passes on: our responses, by id; and while a command of ours
" runs on it, the server's requests.
function! s:on_message(conn, message) abort
  if has_key(a:message, 'method')
    if has_key(a:message, 'id') && !empty(get(s:commanding, a:conn, []))
      call s:server_request(a:conn, a:message)
    endif
    return
  endif
  if !has_key(a:message, 'id') || !has_key(s:by_id, a:conn . '|' . a:message.id)
    return
  endif
  call s:uncommand(a:conn, a:message.id)
  call call(remove(s:by_id, a:conn . '|' . a:message.id), [a:message])
endfunction

" Command `id` of connection `conn` is answered, or cancelled: no longer running.
function! s:uncommand(conn, id) abort
  if has_key(s:commanding, a:conn)
    call filter(s:commanding[a:conn], {_, h -> get(h, 'id', -1) != a:id})
  endif
endfunction

" A request of the server while a command of ours runs (ALE answers none; a server that waits for
" an answer would never answer the command): the edits it sends (workspace/applyEdit) are made as a
" language client makes them (util/lsp_edit.vim apply_now); a message it would show with actions
" to choose from (window/showMessageRequest) is answered as one nobody chose from (null, LSP 3.17),
" as ALE shows none; anything else is answered "method not found" (JSON-RPC 2.0 section 5.1).
function! s:server_request(conn, message) abort
  let handle = s:commanding[a:conn][0]
  if a:message.method ==# 'window/showMessageRequest'
    let answer = {'result': v:null}
  elseif a:message.method ==# 'workspace/applyEdit'
    try
      call vimrelay#util#lsp_edit#apply_now(handle.client, handle, get(get(a:message, 'params', {}), 'edit', {}))
      let answer = {'result': {'applied': v:true}}
    catch /^vimrelay-fail$/
      let answer = {'result': {'applied': v:false, 'failureReason': vimrelay#util#failure().message}}
    catch
      let answer = {'result': {'applied': v:false, 'failureReason': v:exception}}
    endtry
  else
    let answer = {'error': {'code': -32601, 'message': 'Method not found: ' . a:message.method}}
  endif
  call s:respond(a:conn, extend({'jsonrpc': '2.0', 'id': a:message.id}, answer))
endfunction

" Sends response `response` on connection `conn`, framed as LSP 3.17 "Base Protocol" says: ALE
" sends only requests and notifications, so this writes to the connection's job or socket as ALE
" does (its s:SendMessageData).
function! s:respond(conn, response) abort
  let connection = get(ale#lsp#GetConnections(), a:conn, {})
  let body = json_encode(a:response)
  let data = 'Content-Length: ' . strlen(body) . "\r\n\r\n" . body
  if has_key(connection, 'job_id')
    call ale#job#SendRaw(connection.job_id, data)
  elseif has_key(connection, 'channel_id')
    call ale#socket#Send(connection.channel_id, data)
  endif
endfunction

" Drops the request, and cancels it in the server once sent ($/cancelRequest, LSP 3.17).
function! vimrelay#util#lsp#ale#cancel(client, handle) abort
  let a:handle.cancelled = 1
  if has_key(a:handle, 'id')
    silent! call remove(s:by_id, a:handle.conn . '|' . a:handle.id)
    call s:uncommand(a:handle.conn, a:handle.id)
    call ale#lsp#Send(a:handle.conn, [1, '$/cancelRequest', {'id': a:handle.id}])
  endif
endfunction

" ALE's diagnostics of buffer b from this client's linter, as LSP Diagnostics. ALE keeps an LSP
" diagnostic's positions as the server's own offsets (ale#lsp#response#ReadDiagnostics: `col` is
" the start's character + 1, `end_col` the end's character), its code as `code` (a string, and a
" number as `nr` too), and its message with line breaks made spaces.
function! vimrelay#util#lsp#ale#diagnostics(client, b) abort
  let out = []
  for item in ale#engine#GetLoclist(a:b)
    if get(item, 'bufnr', a:b) != a:b || get(item, 'linter_name', '') !=# a:client.name
      continue
    endif
    let col = max([0, get(item, 'col', 1) - 1])
    let d = {'range': {'start': {'line': item.lnum - 1, 'character': col},
          \ 'end': {'line': get(item, 'end_lnum', item.lnum) - 1, 'character': get(item, 'end_col', col)}},
          \ 'severity': get({'E': 1, 'W': 2, 'I': 3}, get(item, 'type', 'E'), 1), 'message': get(item, 'text', '')}
    if has_key(item, 'code')
      " A number ALE kept as `nr` too (its engine gives every item an `nr`, -1 by default).
      let d.code = get(item, 'nr', -1) >= 0 && item.code ==# string(item.nr) ? item.nr : item.code
    endif
    call add(out, d)
  endfor
  return out
endfunction

" Whether to resolve code action `action` (codeAction/resolve): ALE keeps no server's options, so
" when it has the `data` that resolving takes back (LSP 3.17 "CodeAction").
function! vimrelay#util#lsp#ale#resolves(client, action) abort
  return has_key(a:action, 'data')
endfunction

" Whether the server of request `handle` may still answer it: not once ALE has dropped the
" connection it went to, which it does when the server exits (the job's exit_cb, ale#lsp#Stop).
" Read through ale#lsp#GetConnections, the one view ALE gives of its connections.
function! vimrelay#util#lsp#ale#running(client, handle) abort
  return !has_key(a:handle, 'conn') || get(ale#lsp#GetConnections(), a:handle.conn, {}) is a:handle.connection
endfunction

" Tells the server buffer b changed (ALE sends changes only for the documents it opened).
function! vimrelay#util#lsp#ale#changed(client, handle, b) abort
  call ale#lsp#OpenDocument(a:handle.conn, a:b, ale#linter#GetLanguage(a:b, a:client.linter))
  call ale#lsp#NotifyForChanges(a:handle.conn, a:b)
endfunction
