" vimrelay's channel to the local agent: connect, hello, reconnect, status, and the dispatcher.
"
" Contract: the agent listens on 127.0.0.1 at the port in $XDG_STATE_HOME/vimrelay/vim-port (or
" g:vimrelay_port, when the agent runs with a fixed --vim-port) and
" keeps a token in $XDG_CONFIG_HOME/vimrelay/vim-token. Vim opens a JSON channel there and first
" sends a hello {type, token, name, instance, pid, version, cwd, current_file}; the agent answers
" {ok, name} or closes. The agent then calls vimrelay#call(tool, params) with the channel's "call"
" command; each call is one Vim function call, so a tool's changedtick guard and its edit are
" atomic. Vim tells the agent about cwd and current-file changes with {type: 'info', ...}. When the
" channel closes without :VimRelayDisconnect, a timer retries every g:vimrelay_reconnect_ms.

" Identifies this Vim process across reconnects (the agent keeps its name for it).
let s:instance = getpid() . '-' . localtime()
let s:channel = v:null
let s:wanted = v:false
let s:requested = ''
let s:name = ''
let s:timer = -1
let s:last_error = ''

function! s:config_file(name) abort
  let home = empty($XDG_CONFIG_HOME) ? expand('~/.config') : $XDG_CONFIG_HOME
  return home . '/vimrelay/' . a:name
endfunction

function! s:state_file(name) abort
  let home = empty($XDG_STATE_HOME) ? expand('~/.local/state') : $XDG_STATE_HOME
  return home . '/vimrelay/' . a:name
endfunction

function! s:read_first_line(path) abort
  if !filereadable(a:path)
    throw 'vimrelay: cannot read ' . a:path . ' (is the vimrelay agent running?)'
  endif
  return trim(get(readfile(a:path, '', 1), 0, ''))
endfunction

" What the agent shows about this editor.
function! vimrelay#info() abort
  let info = {'type': 'info', 'cwd': getcwd(), 'pid': getpid()}
  let info.current_file = empty(&buftype) && !empty(bufname('%')) ? fnamemodify(bufname('%'), ':p') : v:null
  return info
endfunction

function! s:is_open() abort
  return s:channel isnot v:null && ch_status(s:channel) ==# 'open'
endfunction

" One attempt: open the channel and say hello. Throws on failure.
function! s:open() abort
  let token = s:read_first_line(s:config_file('vim-token'))
  " g:vimrelay_port: the agent's fixed --vim-port; else the port the agent wrote.
  let port = string(get(g:, 'vimrelay_port', 0))
  if port ==# '0'
    let port = s:read_first_line(s:state_file('vim-port'))
  endif
  if port !~# '^\d\+$'
    throw 'vimrelay: no port in ' . s:state_file('vim-port') . ' (is the agent running?)'
  endif
  let ch = ch_open('127.0.0.1:' . port, {'mode': 'json', 'waittime': 1000, 'timeout': 5000,
        \ 'callback': function('s:on_message'), 'close_cb': function('s:on_close')})
  if ch_status(ch) !=# 'open'
    throw 'vimrelay: cannot reach the agent on port ' . port
  endif
  let vim_version = exists('v:versionlong') ? v:versionlong : v:version * 10000
  let hello = extend(vimrelay#info(), {'type': 'hello', 'token': token, 'name': s:requested,
        \ 'instance': s:instance, 'version': string(vim_version)})
  let answer = ch_evalexpr(ch, hello)
  if type(answer) != v:t_dict || !get(answer, 'ok', v:false)
    silent! call ch_close(ch)
    throw 'vimrelay: the agent refused this Vim (wrong token?)'
  endif
  let s:channel = ch
  let s:name = answer.name
  let s:last_error = ''
endfunction

function! s:try_connect(...) abort
  if !s:wanted || s:is_open()
    call s:stop_timer()
    return
  endif
  try
    call s:open()
    call s:stop_timer()
  catch /^vimrelay:/
    let s:last_error = v:exception
    call s:start_timer()
  endtry
endfunction

function! s:start_timer() abort
  if s:timer == -1 && s:wanted
    let s:timer = timer_start(get(g:, 'vimrelay_reconnect_ms', 2000), function('s:try_connect'), {'repeat': -1})
  endif
endfunction

function! s:stop_timer() abort
  if s:timer != -1
    call timer_stop(s:timer)
    let s:timer = -1
  endif
endfunction

" Messages the agent sends without a request from Vim; none are expected.
function! s:on_message(channel, msg) abort
endfunction

function! s:on_close(channel) abort
  let s:staged = {}
  " Prompts shown for the agent that went away can no longer be answered (autoload/vimrelay/ask.vim).
  call vimrelay#ask#close_all()
  let s:channel = v:null
  let s:name = ''
  call s:start_timer()
endfunction

" :VimRelayConnect [name]: connect (and keep reconnecting) under `name` (default: the cwd's tail).
function! vimrelay#connect(name) abort
  let s:requested = empty(a:name) ? get(g:, 'vimrelay_name', fnamemodify(getcwd(), ':t')) : a:name
  let s:wanted = v:true
  if s:is_open()
    silent! call ch_close(s:channel)
    let s:channel = v:null
  endif
  call s:try_connect()
  if !s:is_open() && !empty(s:last_error)
    echomsg s:last_error . '; retrying'
  endif
  augroup vimrelay_events
    autocmd!
    autocmd DirChanged,BufEnter,BufFilePost * call s:notify_info()
    autocmd VimLeavePre * call vimrelay#disconnect()
  augroup END
endfunction

" :VimRelayDisconnect: close the channel and stop reconnecting.
function! vimrelay#disconnect() abort
  let s:wanted = v:false
  call s:stop_timer()
  if s:channel isnot v:null
    silent! call ch_close(s:channel)
  endif
  let s:channel = v:null
  let s:name = ''
  silent! autocmd! vimrelay_events
endfunction

" :VimRelayStatus: one line saying whether and as what this Vim is connected.
function! vimrelay#status() abort
  if s:is_open()
    return 'vimrelay: connected as ' . s:name
  elseif s:wanted
    return 'vimrelay: not connected, retrying' . (empty(s:last_error) ? '' : ' (' . s:last_error . ')')
  endif
  return 'vimrelay: disconnected'
endfunction

" Sends `message` to the agent without waiting for an answer, when connected (e.g. a prompt's
" answer from autoload/vimrelay/ask.vim).
function! vimrelay#send(message) abort
  if s:is_open()
    call ch_sendexpr(s:channel, a:message)
  endif
endfunction

function! s:notify_info() abort
  if s:is_open()
    call ch_sendexpr(s:channel, vimrelay#info())
  endif
endfunction

" Pieces of long parameters the agent sends ahead of a call (agent/editors/vim/staging.ts): id ->
" list of strings. A call takes its own; what an abandoned call left goes when the channel closes.
let s:staged = {}

function! vimrelay#stage(id, piece) abort
  if !has_key(s:staged, a:id)
    let s:staged[a:id] = []
  endif
  call add(s:staged[a:id], a:piece)
  return 1
endfunction

" The params with every {'vimrelay_staged': id} replaced by the joined pieces of that id.
function! s:unstage(params) abort
  for [key, value] in items(a:params)
    if type(value) == v:t_dict && has_key(value, 'vimrelay_staged')
      let a:params[key] = join(remove(s:staged, value.vimrelay_staged), '')
    endif
  endfor
  return a:params
endfunction

" Runs one tool implementation, vimrelay#<impl>#run(params) in autoload/vimrelay/<impl>.vim (the
" twin of the Neovim tool's lua/<impl>.lua; `paths` is not a catalog tool: the agent asks it which
" files a call addresses): {'ok': v:true, 'data': ...} or {'ok': v:false, 'error': {code, message, ...}},
" or {'ok': v:true, 'pending': v:true} when the tool deferred its answer (util/deferred.vim).
function! vimrelay#call(impl, params) abort
  let fn = 'vimrelay#' . a:impl . '#run'
  if a:impl !~# '^\l[a-z_]*$'
    return s:unsupported(a:impl)
  endif
  try
    let data = call(fn, [s:unstage(a:params)])
    return vimrelay#util#deferred#is_later(data) ? {'ok': v:true, 'pending': v:true} : {'ok': v:true, 'data': data}
  catch /^vimrelay-fail$/
    return {'ok': v:false, 'error': vimrelay#util#failure()}
  catch /^Vim\%((\a\+)\)\=:E117:/
    " An unknown function: this plugin predates the tool, unless the call failed further in.
    if stridx(v:exception, fn) >= 0
      return s:unsupported(a:impl)
    endif
    return {'ok': v:false, 'error': {'code': 'EDITOR_ERROR', 'message': v:exception . ' (' . v:throwpoint . ')'}}
  catch
    return {'ok': v:false, 'error': {'code': 'EDITOR_ERROR', 'message': v:exception . ' (' . v:throwpoint . ')'}}
  endtry
endfunction

function! s:unsupported(impl) abort
  return {'ok': v:false, 'error': {'code': 'UNSUPPORTED', 'message': 'This vimrelay Vim plugin does not have ' . a:impl . '.',
        \ 'hint': 'Update the vimrelay Vim plugin to the version of the agent, then restart Vim.'}}
endfunction
