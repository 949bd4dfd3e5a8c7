" The vim-lsp client of the lsp_* tools (util/lsp.vim "Clients"), through vim-lsp's public functions
" (lsp#get_allowed_servers, lsp#request_with_context, lsp#cancel_request, lsp#ensure_flush_all,
" lsp#stream, lsp#get_server_status, lsp#capabilities#*, lsp#utils#*): which of its registered
" servers serves a buffer, sending a request (vim-lsp starts and initializes the server, opens the
" buffer and sends its unsaved changes first), cancelling it, whether its server still runs, URIs,
" and telling the server about edits. vim-lsp negotiates no position
" encoding, so positions are UTF-16 (LSP 3.17 "Position").

" Method -> vim-lsp's test of the server's capability (the others are sent, and a "method not found"
" error answers UNSUPPORTED).
let s:capability = {'textDocument/definition': 'definition', 'textDocument/declaration': 'declaration',
      \ 'textDocument/typeDefinition': 'type_definition', 'textDocument/implementation': 'implementation',
      \ 'textDocument/references': 'references', 'textDocument/hover': 'hover', 'textDocument/documentSymbol': 'document_symbol',
      \ 'workspace/symbol': 'workspace_symbol', 'textDocument/rename': 'rename', 'textDocument/codeAction': 'code_action',
      \ 'textDocument/formatting': 'document_formatting', 'textDocument/rangeFormatting': 'document_range_formatting',
      \ 'textDocument/prepareCallHierarchy': 'call_hierarchy', 'textDocument/prepareTypeHierarchy': 'type_hierarchy'}

" The requests of a server vim-lsp answers (its s:on_request, and window/showMessageRequest while
" g:lsp_show_message_request_enabled); it leaves others unanswered.
let s:answered_requests = ['workspace/applyEdit', 'workspace/configuration', 'workspace/workspaceFolders', 'window/workDoneProgress/create']

" Whether vim-lsp answers request `method` of a server.
function! s:answers(method) abort
  return index(s:answered_requests, a:method) >= 0 || (a:method ==# 'window/showMessageRequest' && get(g:, 'lsp_show_message_request_enabled', 0))
endfunction

" Whether vim-lsp is loaded.
function! vimrelay#util#lsp#vim_lsp#loaded() abort
  return exists('g:lsp_loaded') || exists('*lsp#get_allowed_servers')
endfunction

" The command that starts server `name` (its 'cmd', a list or a function of its info), [] for none.
function! s:command(name) abort
  let info = lsp#get_server_info(a:name)
  let Cmd = get(info, 'cmd', [])
  let cmd = type(Cmd) == v:t_func ? Cmd(info) : Cmd
  return type(cmd) == v:t_list ? cmd : [cmd]
endfunction

" Whether vim-lsp can start server `name`: a TCP server, or one whose command is an executable.
function! s:startable(name) abort
  let cmd = s:command(a:name)
  return has_key(lsp#get_server_info(a:name), 'tcp') || (!empty(cmd) && executable(cmd[0]))
endfunction

" vim-lsp's client for buffer b: {name, impl: 'vim_lsp'}, the first server allowed for its filetype
" that runs, else that it can start; else {fail: [message, hint]} (`hint`: the server the agent
" names for the filetype).
function! vimrelay#util#lsp#vim_lsp#find(b, hint) abort
  let ft = getbufvar(a:b, '&filetype')
  let names = sort(lsp#get_allowed_servers(a:b))
  let usable = filter(copy(names), {_, n -> lsp#is_server_running(n)}) + filter(copy(names), {_, n -> s:startable(n)})
  if !empty(usable)
    return {'name': usable[0], 'impl': 'vim_lsp'}
  elseif !empty(names)
    return {'fail': ['vim-lsp could not start ' . names[0] . ' for buffer ' . a:b . ' (is ' . string(get(s:command(names[0]), 0, '')) . ' installed?).',
          \ 'Install the language server ' . names[0] . ' or fix its lsp#register_server (:LspStatus, :LspLog)']}
  endif
  return {'fail': ['vim-lsp has no language server allowed for buffer ' . a:b . ' (filetype ' . (empty(ft) ? 'none' : ft) . ').',
        \ 'Register one with vim-lsp (lsp#register_server with this filetype in its allowlist' . (a:hint is v:null ? '' : ', e.g. ' . a:hint) . ')']}
endfunction

function! vimrelay#util#lsp#vim_lsp#uri(client, b) abort
  return lsp#utils#get_buffer_uri(a:b)
endfunction

function! vimrelay#util#lsp#vim_lsp#path(client, uri) abort
  return lsp#utils#uri_to_path(a:uri)
endfunction

" Sends `method` with `params` to the client's server for buffer b; OnAnswer(message) gets the
" server's response ({result} or {error}), {lacks: 1} when the running server does not announce the
" method (one still starting is asked, and answers), or {fail: [code, message, details]} when
" vim-lsp cannot start it. Returns the request's handle for cancel().
function! vimrelay#util#lsp#vim_lsp#send(client, b, method, params, OnAnswer) abort
  let name = a:client.name
  if lsp#is_server_running(name)
    if has_key(s:capability, a:method) && !lsp#capabilities#has_{s:capability[a:method]}_provider(name)
      call a:OnAnswer({'lacks': 1})
      return {}
    endif
    " Every other loaded file's unsaved text first (vim-lsp sends it for the request's buffer
    " itself, and for the others only after their next change in the current window).
    for info in getbufinfo({'bufloaded': 1})
      if info.bufnr != a:b && !empty(info.name) && index(lsp#get_allowed_servers(info.bufnr), name) >= 0
        call lsp#ensure_flush_all(info.bufnr, [name])
      endif
    endfor
  endif
  if !get(s:, 'watching', 0)
    call lsp#callbag#pipe(lsp#stream(), lsp#callbag#subscribe({'next': function('s:on_event')}))
    let s:watching = 1
  endif
  let request = lsp#request_with_context(name, {'method': a:method, 'params': a:params, 'bufnr': a:b})
  let handle = {'ctx': request.ctx, 'command': a:method ==# 'workspace/executeCommand'}
  let s:pending[name] = add(get(s:pending, name, []), handle)
  let Answer = {m -> s:answered(name, handle) || a:OnAnswer(m)}
  let handle.Answer = Answer
  call lsp#callbag#pipe(request.callbag, lsp#callbag#subscribe({'next': {d -> Answer(d.response)},
        \ 'error': {e -> Answer({'fail': ['UNSUPPORTED', 'vim-lsp could not start ' . name . ' for buffer ' . a:b . ': '
        \   . get(get(get(e, 'response', {}), 'error', {}), 'message', string(e)) . '.',
        \   {'reason': 'no_server', 'hint': 'Install the language server ' . name . ' or fix its lsp#register_server (:LspStatus, :LspLog).'}]})}}))
  return handle
endfunction

" Request `handle` to server `name` is answered (or given up): no longer pending. Returns 0.
function! s:answered(name, handle) abort
  call filter(get(s:pending, a:name, []), {_, h -> h isnot a:handle})
  return 0
endfunction

" Drops the request, and cancels it in the server once sent (vim-lsp sends $/cancelRequest).
function! vimrelay#util#lsp#vim_lsp#cancel(client, handle) abort
  call s:answered(a:client.name, a:handle)
  if has_key(a:handle, 'ctx')
    call lsp#cancel_request(a:handle.ctx)
  endif
endfunction

" Whether the server of request `handle` may still answer it: not once the server it went to has
" exited (vim-lsp's $/vimlsp/lsp_server_exit event, seen by s:on_event) or failed to start. (Its
" status by name says 'exited' also while a later request starts the server again.)
function! vimrelay#util#lsp#vim_lsp#running(client, handle) abort
  return !get(a:handle, 'exited', 0) && lsp#get_server_status(a:client.name) !=# 'failed'
endfunction

" Requests sent and not yet answered, by server name: name -> list of handles.
let s:pending = get(s:, 'pending', {})

" vim-lsp's events: a server's exit marks the requests sent to it; a request of a server that
" vim-lsp leaves unanswered ends the wait of the commands sent to it (util/lsp.vim "Clients": the
" server would never answer them; what it did until then, its edits, is done).
function! s:on_event(x) abort
  let response = get(a:x, 'response', {})
  let server = get(get(response, 'params', {}), 'server', '')
  if get(response, 'method', '') ==# '$/vimlsp/lsp_server_exit' && has_key(s:pending, server)
    for handle in remove(s:pending, server)
      let handle.exited = 1
    endfor
  endif
  " A server's request comes alone; a response comes with the request it answers.
  let request = has_key(a:x, 'response') ? {} : get(a:x, 'request', {})
  if has_key(request, 'id') && !s:answers(get(request, 'method', ''))
    for handle in filter(copy(get(s:pending, get(a:x, 'server', ''), [])), 'v:val.command')
      call handle.Answer({'error': {'code': -32603, 'message': get(a:x, 'server', '') . ' asked vim-lsp for ' . get(request, 'method', '')
            \ . ', which it does not answer, so the server will not answer the command'}})
    endfor
  endif
endfunction

" vim-lsp's diagnostics of buffer b from this client's server, as its server sent them.
function! vimrelay#util#lsp#vim_lsp#diagnostics(client, b) abort
  for [uri, servers] in items(lsp#internal#diagnostics#state#_get_all_diagnostics_grouped_by_uri_and_server())
    if has_key(servers, a:client.name) && uri =~? '^file:' && vimrelay#util#find_by_path(lsp#utils#uri_to_path(uri)) == a:b
      return copy(get(get(servers[a:client.name], 'params', {}), 'diagnostics', []))
    endif
  endfor
  return []
endfunction

" Whether to resolve code action `action` (codeAction/resolve): its server resolves them lazily
" (CodeActionOptions.resolveProvider).
function! vimrelay#util#lsp#vim_lsp#resolves(client, action) abort
  let provider = get(lsp#get_server_capabilities(a:client.name), 'codeActionProvider', v:null)
  return type(provider) == v:t_dict && get(provider, 'resolveProvider', v:false) is v:true
endfunction

" Tells the server buffer b changed (opening it there first).
function! vimrelay#util#lsp#vim_lsp#changed(client, handle, b) abort
  call lsp#ensure_flush_all(a:b, [a:client.name])
endfunction
