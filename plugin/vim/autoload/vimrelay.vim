" vimrelay's channel to the local agent: connect, handshake, reconnect, status, and the dispatcher.
"
" Contract (PROTOCOL.md "Vim channel"): the agent listens on a unix socket in a directory only the
" user can enter, whose address (unix:<path>) it writes to $XDG_STATE_HOME/vimrelay/vim-address;
" or, when g:vimrelay_port is set, on 127.0.0.1:g:vimrelay_port (the agent's --vim-port). The
" token in $XDG_CONFIG_HOME/vimrelay/vim-token never crosses the channel: Vim opens it in nl mode
" (in JSON mode Vim would run any ["ex", ...], ["normal", ...], ["expr", ...] or ["call", ...] a
" peer sends), sends a challenge with a fresh nonce, and checks the agent's answer, an HMAC of the
" token over both nonces and the address (autoload/vimrelay/util/hmac.vim). Only a listener that
" proves it holds the token gets the channel switched to JSON mode and a hello {type, proof,
" name, chosen, instance, previous, pid, version, cwd, current_file} with Vim's own proof; the agent answers
" {ok, name} or closes. The handshake runs in the channel's callbacks, never waiting: an agent
" that is stopped (SIGSTOP) still accepts connections and would otherwise hold Vim up to the
" handshake's limit on every retry. The agent then calls vimrelay#call(tool, params) with the channel's "call"
" command; each call is one Vim function call, so a tool's changedtick guard and its edit are
" atomic. Vim tells the agent about cwd and current-file changes with {type: 'info', ...}. When the
" channel closes without :VimRelayDisconnect, a timer retries every g:vimrelay_reconnect_ms.

" Identifies this Vim process across reconnects (the agent keeps its name for it).
let s:instance = getpid() . '-' . localtime()
let s:channel = v:null
let s:wanted = v:false
let s:requested = ''
" Whether the user chose s:requested (:VimRelayConnect {name}, g:vimrelay_name).
let s:chosen = v:false
let s:name = ''
" The name the agent gave s:requested last, kept across reconnects: asked for back in the hello, so
" that a restarted agent, which remembers no names, gives each Vim the one it had.
let s:given = ''
let s:timer = -1
" Why the last connection attempt failed: 'vimrelay: {what} ({detail})', what first and short
" (the command line shows it, s:say), the paths and addresses in the detail (:VimRelayStatus
" shows it whole).
let s:last_error = ''
" Whether a connection error is on the command line (said by :VimRelayConnect), to be replaced
" once a retry connects.
let s:error_shown = v:false
" The connection attempt whose handshake is under way: {ch, token, address, mine (our nonce),
" proven (the agent's proof checked, the hello sent), timer (its limit), say (started by
" :VimRelayConnect, whose failure is said on the command line)}, or {}.
let s:attempt = {}
" How long an attempt waits for the agent's proof and then its welcome (ms).
let s:handshake_ms = 5000

function! s:config_file(name) abort
  let home = empty($XDG_CONFIG_HOME) ? expand('~/.config') : $XDG_CONFIG_HOME
  return home . '/vimrelay/' . a:name
endfunction

function! s:state_file(name) abort
  let home = empty($XDG_STATE_HOME) ? expand('~/.local/state') : $XDG_STATE_HOME
  return home . '/vimrelay/' . a:name
endfunction

" The first line of `path`, which the agent writes; throws 'vimrelay: {missing} (...)' without it.
function! s:read_first_line(path, missing) abort
  if !filereadable(a:path)
    throw 'vimrelay: ' . a:missing . ' (cannot read ' . a:path . ')'
  endif
  return trim(get(readfile(a:path, '', 1), 0, ''))
endfunction

" What Vim waits for its user to answer, or '' (PROTOCOL.md "EDITOR_BLOCKED"): the hit-enter
" prompt, "-- More --" or a question (the swap-file question E325 of a file open elsewhere, a
" confirm() dialog). Vim reads its channel while it waits for that key, so a call would run, but
" in the middle of what the user is answering: a listing paused at "-- More --", a buffer half
" loaded at the swap-file question. Such a call answers EDITOR_BLOCKED, and nothing runs.
function! vimrelay#waiting() abort
  let mode = mode(1)
  return mode ==# 'r' ? 'hit-enter' : mode ==# 'rm' ? 'more' : mode ==# 'r?' ? 'confirm' : ''
endfunction

" What the agent shows about this editor.
function! vimrelay#info() abort
  " ui: a terminal or a GUI; `vim -es` has neither (its 'term' is empty).
  let info = {'type': 'info', 'cwd': getcwd(), 'pid': getpid(), 'ui': has('gui_running') || !empty(&term) ? v:true : v:false}
  let info.current_file = empty(&buftype) && !empty(bufname('%')) ? fnamemodify(bufname('%'), ':p') : v:null
  return info
endfunction

function! s:is_open() abort
  return s:channel isnot v:null && ch_status(s:channel) ==# 'open'
endfunction

" Where the agent listens: 127.0.0.1:g:vimrelay_port when set, else the address it wrote.
function! s:address() abort
  let port = string(get(g:, 'vimrelay_port', 0))
  if port !=# '0'
    if port !~# '^\d\+$'
      throw 'vimrelay: g:vimrelay_port is not a port number (' . port . ')'
    endif
    return '127.0.0.1:' . port
  endif
  let address = s:read_first_line(s:state_file('vim-address'), 'no agent is running')
  if address !~# '^unix:/'
    throw 'vimrelay: no agent is running (no agent address in ' . s:state_file('vim-address') . ')'
  endif
  return address
endfunction

" The agent's answer to the challenge, its first line in nl mode: {type: 'proof', nonce, proof}, or {}.
function! s:proof_of(line) abort
  try
    let message = json_decode(a:line)
  catch
    return {}
  endtry
  if type(message) != v:t_list || len(message) != 2 || type(message[1]) != v:t_dict
    return {}
  endif
  let answer = message[1]
  let hex64 = '^[0-9a-f]\{64}$'
  if get(answer, 'type', '') !=# 'proof' || type(get(answer, 'nonce', 0)) != v:t_string || answer.nonce !~# hex64
        \ || type(get(answer, 'proof', 0)) != v:t_string || answer.proof !~# hex64
    return {}
  endif
  return answer
endfunction

" One attempt: opens the channel and sends the challenge; the handshake goes on in s:on_proof and
" s:on_welcome, within s:handshake_ms. Throws when it cannot even start.
function! s:open() abort
  let token = s:read_first_line(s:config_file('vim-token'), 'no agent has run for this user')
  let address = s:address()
  " nl mode until the agent has proved itself: a JSON-mode peer could run commands in this Vim.
  " ('waittime' is for TCP only: Vim refuses it for a unix socket.)
  let options = {'mode': 'nl', 'callback': function('s:on_proof'), 'close_cb': function('s:on_attempt_close')}
  if address !~# '^unix:'
    let options.waittime = 1000
  endif
  try
    let ch = ch_open(address, options)
  catch
    throw 'vimrelay: cannot reach the agent (at ' . address . ': ' . v:exception . ')'
  endtry
  if ch_status(ch) !=# 'open'
    throw 'vimrelay: cannot reach the agent (at ' . address . ')'
  endif
  let s:attempt = {'ch': ch, 'token': token, 'address': address, 'mine': vimrelay#util#hmac#nonce(), 'proven': v:false,
        \ 'timer': timer_start(s:handshake_ms, function('s:on_attempt_timeout'))}
  try
    call ch_sendraw(ch, json_encode([0, {'type': 'challenge', 'v': 2, 'nonce': s:attempt.mine}]) . "\n")
  catch
    call s:end_attempt()
    throw 'vimrelay: cannot reach the agent (at ' . address . ': ' . v:exception . ')'
  endtry
endfunction

" The first line of an attempt's channel: the agent's proof. Checked, it switches the channel to
" JSON mode and sends the hello with Vim's own proof; anything else ends the attempt.
function! s:on_proof(ch, line) abort
  let attempt = s:attempt
  if get(attempt, 'ch', v:null) isnot a:ch || attempt.proven
    return
  endif
  let answer = s:proof_of(a:line)
  if empty(answer) || answer.proof !=# vimrelay#util#hmac#proof(attempt.token, 'vimrelay-agent', attempt.address, attempt.mine, answer.nonce)
    return s:attempt_failed(s:not_proven(attempt.address))
  endif
  let attempt.proven = v:true
  call ch_setoptions(a:ch, {'mode': 'json', 'callback': function('s:on_message')})
  let vim_version = exists('v:versionlong') ? v:versionlong : v:version * 10000
  let hello = extend(vimrelay#info(), {'type': 'hello', 'proof': vimrelay#util#hmac#proof(attempt.token, 'vimrelay-vim', attempt.address, answer.nonce, attempt.mine),
        \ 'name': s:requested, 'chosen': s:chosen, 'instance': s:instance, 'previous': s:given, 'version': string(vim_version)})
  call ch_sendexpr(a:ch, hello, {'callback': function('s:on_welcome')})
endfunction

" The agent's answer to the hello: {ok, name} connects this Vim.
function! s:on_welcome(ch, reply) abort
  if get(s:attempt, 'ch', v:null) isnot a:ch
    return
  endif
  if type(a:reply) != v:t_dict || !get(a:reply, 'ok', v:false) || type(get(a:reply, 'name', 0)) != v:t_string
    return s:attempt_failed(s:refused)
  endif
  call s:end_attempt(v:true)
  call ch_setoptions(a:ch, {'close_cb': function('s:on_close')})
  let s:channel = a:ch
  let s:name = a:reply.name
  let s:given = a:reply.name
  let s:last_error = ''
  call s:stop_timer()
  if s:error_shown
    " The error said at :VimRelayConnect is stale now: say what is true instead.
    let s:error_shown = v:false
    redraw
    echo 'vimrelay: connected as ' . s:name
  endif
endfunction

let s:refused = 'vimrelay: the agent refused this Vim (a token it does not share?)'

function! s:not_proven(address) abort
  return 'vimrelay: not your agent, not connecting (the listener at ' . a:address . ' did not prove it is your agent)'
endfunction

function! s:on_attempt_close(ch) abort
  if get(s:attempt, 'ch', v:null) is a:ch
    call s:attempt_failed(s:attempt.proven ? s:refused : s:not_proven(s:attempt.address))
  endif
endfunction

function! s:on_attempt_timeout(timer) abort
  if get(s:attempt, 'timer', -1) == a:timer
    call s:attempt_failed('vimrelay: the agent did not answer, not connecting (the listener at ' . s:attempt.address
          \ . ' did not answer within ' . s:handshake_ms / 1000 . ' s: an agent that is stopped?)')
  endif
endfunction

" Says the connection error `message` on the command line in one line that fits the screen, so
" that no hit-enter prompt stops the user (at :VimRelayConnect, and at startup with
" g:vimrelay_autoconnect): what is wrong, that it retries, and where to read the whole of it
" (the paths and addresses in its detail), :VimRelayStatus. From a callback (`drawn` false) Vim
" draws no message by itself: the line goes to :messages and is drawn after a redraw.
function! s:say(message, drawn) abort
  let line = s:fit(substitute(a:message, ' (.*$', '', ''), s:message_room())
  echomsg line
  if !a:drawn
    call vimrelay#util#redraw()
    echo line
  endif
  let s:error_shown = v:true
endfunction

" The first of these that is narrower than `room` (the room left of the ruler and the partial
" command, whatever the characters' widths: a wider line would wrap, or stop at a hit-enter
" prompt): `reason` with "; retrying, see :VimRelayStatus"; with " (:VimRelayStatus)"; the same
" without its "vimrelay: " (the command names the plugin); that last one with its reason cut short.
" 80 columns with 'ruler' and 'showcmd' (Vim 9.1's defaults) leave 52.
function! s:fit(reason, room) abort
  let bare = substitute(a:reason, '^vimrelay: ', '', '')
  for line in [a:reason . '; retrying, see :VimRelayStatus', a:reason . ' (:VimRelayStatus)', bare . ' (:VimRelayStatus)']
    if strdisplaywidth(line) < a:room
      return line
    endif
  endfor
  let tail = '… (:VimRelayStatus)'
  let line = bare
  while strdisplaywidth(line . tail) >= a:room && !empty(line)
    let line = strcharpart(line, 0, strchars(line) - 1)
  endwhile
  return empty(line) ? strcharpart(bare, 0, a:room - 1) : line . tail
endfunction

" Ends the attempt under way as `message` says, and retries later.
function! s:attempt_failed(message) abort
  let say = get(s:attempt, 'say', v:false)
  call s:end_attempt()
  let s:last_error = a:message
  if say
    call s:say(a:message, v:false)
  endif
  call s:start_timer()
endfunction

" The screen cells a message on the last line may take before Vim asks the user to press Enter:
" those left of the partial command and the ruler, when 'showcmd' or 'ruler' shows them there (as
" Vim 9.1+ does by default), as Vim's comp_col() and msg_check() count them (ruler: 17 cells or
" 'rulerformat''s width, and a space; partial command: 10, and a space unless the ruler gives one).
function! s:message_room() abort
  let status = &laststatus == 2 || (&laststatus == 1 && winnr('$') > 1)
  let reserved = 0
  if &ruler && !status
    let width = matchstr(&rulerformat, '^%\zs\d\+\ze(')
    let reserved = (empty(width) ? 17 : str2nr(width)) + 1
  endif
  if &showcmd && (!exists('&showcmdloc') || &showcmdloc ==# 'last')
    let reserved += 10 + (!&ruler || status ? 1 : 0)
  endif
  return max([&columns - reserved, 2])
endfunction

" Forgets the attempt under way: its limit stops, and its channel closes unless `keep` (connected).
function! s:end_attempt(...) abort
  let attempt = s:attempt
  let s:attempt = {}
  if empty(attempt)
    return
  endif
  call timer_stop(attempt.timer)
  if !get(a:, 1, v:false)
    silent! call ch_close(attempt.ch)
  endif
endfunction

function! s:try_connect(...) abort
  if !s:wanted || s:is_open()
    call s:stop_timer()
    return
  endif
  if !empty(s:attempt)
    return
  endif
  try
    call s:open()
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
  " Prompts shown for the agent that went away can no longer be answered (autoload/vimrelay/ask.vim),
  " nor the answers it was owed sent: their requests are cancelled (a language server's too).
  call vimrelay#ask#close_all()
  call vimrelay#review#close_all()
  call vimrelay#util#deferred#cancel_all()
  let s:channel = v:null
  let s:name = ''
  call s:start_timer()
endfunction

" :VimRelayConnect [name]: connect (and keep reconnecting) under `name` (default: the cwd's tail).
function! vimrelay#connect(name) abort
  let s:chosen = !empty(a:name) || !empty(get(g:, 'vimrelay_name', '')) ? v:true : v:false
  let s:requested = !empty(a:name) ? a:name : s:chosen ? g:vimrelay_name : fnamemodify(getcwd(), ':t')
  let s:given = ''
  let s:wanted = v:true
  if s:is_open()
    silent! call ch_close(s:channel)
    let s:channel = v:null
  endif
  call s:end_attempt()
  call s:try_connect()
  if !empty(s:attempt)
    " Its handshake says how it went (s:attempt_failed, s:on_welcome).
    let s:attempt.say = v:true
  elseif !s:is_open() && !empty(s:last_error)
    call s:say(s:last_error, v:true)
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
  call s:end_attempt()
  if s:channel isnot v:null
    silent! call ch_close(s:channel)
  endif
  let s:channel = v:null
  let s:name = ''
  let s:error_shown = v:false
  silent! autocmd! vimrelay_events
endfunction

" :VimRelayStatus: whether and as what this Vim is connected, then what the health check says in
" Neovim: which agent serves this machine (connected, and to which relay, or `serve` locally),
" whether it lists this Vim (util/agent.vim); each problem with what to do.
function! vimrelay#status() abort
  if s:is_open()
    let first = ['vimrelay: connected as ' . s:name]
  elseif s:wanted
    let first = ['vimrelay: not connected, retrying'] + (empty(s:last_error) ? [] : ['  why: ' . substitute(s:last_error, '^vimrelay: ', '', '')])
  else
    let first = ['vimrelay: disconnected (:VimRelayConnect to connect)']
  endif
  return first + map(vimrelay#util#agent#report(), '"  " . v:val')
endfunction

" Sends `message` to the agent without waiting for an answer, when connected (e.g. a prompt's
" answer from autoload/vimrelay/ask.vim).
function! vimrelay#send(message) abort
  if s:is_open()
    call ch_sendexpr(s:channel, a:message)
  endif
endfunction

" The timer of an info message that waits for Vim to be back in the user's windows, or -1.
let s:info_timer = -1

" Tells the agent what vimrelay#info() says, unless the current window is the autocommand window:
" there (bufload() of a hidden buffer) a hidden buffer is current for a moment, and nothing says
" when the user's own comes back. What is current then is told once the call or command under way
" has ended (a timer), one message for any number of such events.
function! s:notify_info() abort
  if win_gettype() ==# 'autocmd'
    if s:info_timer == -1
      let s:info_timer = timer_start(0, function('s:notify_later'))
    endif
  elseif s:is_open()
    call ch_sendexpr(s:channel, vimrelay#info())
  endif
endfunction

function! s:notify_later(timer) abort
  let s:info_timer = -1
  call s:notify_info()
endfunction

" Pieces of long parameters the agent sends ahead of a call (agent/editors/vim/staging.ts): id ->
" list of pieces, strings of a string or lists of a list of lines. A call takes its own; the agent
" drops those of a call it gave up before sending it (vimrelay#unstage); whatever is left goes
" when the channel closes.
let s:staged = {}

function! vimrelay#stage(id, piece) abort
  if !has_key(s:staged, a:id)
    let s:staged[a:id] = []
  endif
  call add(s:staged[a:id], a:piece)
  return 1
endfunction

" Drops the pieces staged under each of `ids`: their call was cancelled while they were on their way.
function! vimrelay#unstage(ids) abort
  for id in a:ids
    if has_key(s:staged, id)
      call remove(s:staged, id)
    endif
  endfor
endfunction

" The params with every {'vimrelay_staged': id} replaced by the joined pieces of that id; params
" sent ahead whole as JSON text ({'vimrelay_staged_json': id}) are decoded from their pieces first.
function! s:unstage(params) abort
  if has_key(a:params, 'vimrelay_staged_json')
    return s:unstage(json_decode(join(remove(s:staged, a:params.vimrelay_staged_json), '')))
  endif
  for [key, value] in items(a:params)
    if type(value) == v:t_dict && has_key(value, 'vimrelay_staged')
      let pieces = remove(s:staged, value.vimrelay_staged)
      let a:params[key] = type(pieces[0]) == v:t_list ? s:join_lines(pieces) : join(pieces, '')
    endif
  endfor
  return a:params
endfunction

" The list of lines staged as `pieces` (staging.ts splitLinePieces): the first element of each
" piece but the first continues the last line of the pieces before it.
function! s:join_lines(pieces) abort
  let lines = a:pieces[0]
  for piece in a:pieces[1 :]
    let lines[-1] .= piece[0]
    call extend(lines, piece[1 :])
  endfor
  return lines
endfunction

" Runs one tool implementation, vimrelay#<impl>#run(params) in autoload/vimrelay/<impl>.vim (the
" twin of the Neovim tool's lua/<impl>.lua; `paths` is not a catalog tool: the agent asks it which
" files a call addresses): {'ok': v:true, 'data': ...} or {'ok': v:false, 'error': {code, message, ...}},
" or {'ok': v:true, 'pending': v:true} when the tool deferred its answer (util/deferred.vim);
" EDITOR_BLOCKED, running nothing, while Vim waits for its user (vimrelay#waiting()).
" The optional `opts`: {'redraw': 1} for a tool that may change what is on screen (any that is
" not read-only): Vim does not redraw after a channel call by itself, so the dispatcher does,
" whether the tool succeeded or not (a command list may fail after changing things); nor does it
" tell plugins that a buffer's text changed, which the dispatcher does first (s:text_changed). And
" {'expect': {'params': ..., 'paths': [...]}}: the files the agent's policy judged the call by;
" when the call addresses others now (vimrelay#paths#run over `params`), nothing runs and the
" answer is {'ok': v:false, 'paths_changed': v:true, 'paths': <what it addresses>}. And
" {'propose': {'creates', 'max_lines'}}: the edit tool runs on a copy of its buffer, for a review
" (autoload/vimrelay/propose.vim), and the buffer does not change. And {'now': <epoch ms>}: the
" agent's clock when it sent the call, which keeps Vim's own in step (util/compat.vim now_ms: the
" deadline checks of start_by).
function! vimrelay#call(impl, params, ...) abort
  let opts = a:0 ? a:1 : {}
  if has_key(opts, 'now')
    call vimrelay#util#compat#saw_wall_clock(opts.now)
  endif
  let waiting = vimrelay#waiting()
  if !empty(waiting)
    " Nothing runs in the middle of what the user is answering (vimrelay#waiting()).
    call s:unstage(a:params)
    return {'ok': v:false, 'error': {'code': 'EDITOR_BLOCKED', 'message': 'Vim waits for its user (' . waiting . ').', 'waiting_for': waiting}}
  endif
  if has_key(opts, 'expect')
    let changed = s:paths_changed(opts.expect)
    if changed isnot v:null
      " Nothing runs: the pieces staged for its parameters are dropped.
      call s:unstage(a:params)
      return {'ok': v:false, 'paths_changed': v:true, 'paths': changed}
    endif
  endif
  let redraw = get(opts, 'redraw', 0)
  if redraw
    let ticks = s:ticks()
  endif
  try
    return s:run(a:impl, a:params, get(opts, 'propose', {}))
  finally
    if redraw
      call s:text_changed(ticks)
      call vimrelay#util#redraw()
    endif
  endtry
endfunction

" Every loaded buffer's changedtick, by buffer number.
function! s:ticks() abort
  let ticks = {}
  for info in getbufinfo({'bufloaded': 1})
    let ticks[info.bufnr] = info.changedtick
  endfor
  return ticks
endfunction

" The loaded buffers a call changed, given s:ticks() from before it: their changedtick moved, or,
" loaded by the call, they are modified (a file it opened and edited).
function! s:changed_since(ticks) abort
  let changed = filter(getbufinfo({'bufloaded': 1}), {_, info -> has_key(a:ticks, info.bufnr) ? a:ticks[info.bufnr] != info.changedtick : info.changed})
  return map(changed, 'v:val.bufnr')
endfunction

" The buffers whose plugins s:tell_changed is to tell about a tool's edit (buffer number -> 1),
" and its timer, or -1.
let s:changed = {}
let s:changed_timer = -1

" Tells plugins, from a timer, about every buffer the call changed since `ticks` (s:ticks()): Vim
" fires TextChanged only from its main loop, after the user's next key and for the current buffer,
" never after a channel call, so plugins that lint, sync a language server or mark changes on it
" (ALE, vim-lsp...) would go on showing the text before the tool's edit until then, or, for
" another buffer, until the user enters it. Not inside the channel call: the handlers (a language
" client's diff of the whole buffer) then neither hold up the tool's answer nor fail it, and they
" run where Vim runs them, outside any channel message.
function! s:text_changed(ticks) abort
  for b in s:changed_since(a:ticks)
    let s:changed[b] = 1
  endfor
  if !empty(s:changed) && s:changed_timer == -1
    let s:changed_timer = timer_start(0, function('s:tell_changed'))
  endif
endfunction

" The buffers that are not current first, each as s:tell_other says; then the current one, if
" changed, gets TextChanged (s:fire_text_changed), last, so that the lint ALE queues for it then is
" not replaced by theirs (ALE keeps one lint timer, ale#Queue()).
function! s:tell_changed(timer) abort
  let s:changed_timer = -1
  let bufs = filter(map(keys(s:changed), 'str2nr(v:val)'), 'bufloaded(v:val)')
  let s:changed = {}
  let current = bufnr('%')
  for b in bufs
    if b != current && getbufvar(b, '&buftype') !=# 'terminal'
      call s:tell_other(b)
    endif
  endfor
  if index(bufs, current) >= 0
    call s:fire_text_changed()
  endif
endfunction

" What a user's edit of buffer b, which is not current, would have told its plugins. In a window of
" the current tab page that shows it, TextChanged, fired there with win_execute() (b current, the
" user's window, cursor and screen left alone, no autocommand for entering it). Then, wherever b
" is (hidden, too, where no autocommand can run as they expect: they act on the current buffer and
" window), ALE and vim-lsp through their own functions for a given buffer, as their TextChanged
" handlers would for b current: ALE lints it now (ale#Queue() with no delay: its one lint timer
" holds one buffer's lint, and several may have changed; this replaces the lint its handler may
" just have queued), and vim-lsp sends the servers of b what changed (lsp#ensure_flush_all(), a
" didChange only when b's changedtick moved since its last). Each only when it follows Normal-mode
" changes: ALE's g:ale_lint_on_text_changed, vim-lsp's own TextChanged handler. Other plugins hear
" of a hidden buffer's change when the user enters it: Vim fires TextChanged then.
function! s:tell_other(b) abort
  let wins = filter(win_findbuf(a:b), {_, w -> win_gettype(w) ==# '' && win_id2tabwin(w)[0] == tabpagenr()})
  if !empty(wins) && exists('#TextChanged')
    call s:plugins_say('TextChanged in buffer ' . a:b, 'call win_execute(' . wins[0] . ', "doautocmd <nomodeline> TextChanged")')
  endif
  if exists('#ALEEvents#TextChanged')
    call s:plugins_say('ALE linting buffer ' . a:b, 'call ale#Queue(0, "", ' . a:b . ')')
  endif
  if exists('#lsp#TextChanged')
    call s:plugins_say('vim-lsp syncing buffer ' . a:b, 'call lsp#ensure_flush_all(' . a:b . ', lsp#get_allowed_servers(' . a:b . '))')
  endif
endfunction

" Runs Ex command `command` for plugins; their failure in it is their own: it goes to :messages,
" with `what`.
function! s:plugins_say(what, command) abort
  try
    execute a:command
  catch
    echomsg 'vimrelay: ' . a:what . ' after a tool: ' . v:exception
  endtry
endfunction

" Fires TextChanged (TextChangedI in Insert or Replace mode) for the current buffer. Vim fires the
" event once more at the user's next key (it does not know it was fired).
function! s:fire_text_changed() abort
  let event = mode() =~# '^[iR]' ? 'TextChangedI' : 'TextChanged'
  if exists('#' . event)
    call s:plugins_say(event, 'doautocmd <nomodeline> ' . event)
  endif
endfunction

" The paths `expect.params` addresses when they are not exactly `expect.paths` (in any order), else v:null.
function! s:paths_changed(expect) abort
  let got = vimrelay#paths#run(s:unstage(a:expect.params)).paths
  return sort(copy(got)) ==# sort(copy(a:expect.paths)) ? v:null : got
endfunction

function! s:run(impl, params, propose) abort
  let fn = 'vimrelay#' . a:impl . '#run'
  if a:impl !~# '^\l[a-z_]*$'
    return s:unsupported(a:impl)
  endif
  try
    let params = s:unstage(a:params)
    let data = empty(a:propose) ? call(fn, [params]) : vimrelay#propose#run(fn, params, a:propose)
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
