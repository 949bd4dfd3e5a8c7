" Deferred answers (PROTOCOL.md "Deferred answers"), the twin of lua/core.lua's: a tool that must
" wait (a language server's answer) returns vimrelay#util#deferred#later(p, Cancel) at once,
" p.answer_token being the token the agent gave the call, and vimrelay#call answers {ok, pending}.
" Later vimrelay#util#deferred#settle(token, Fn, args) sends the outcome of Fn(args) (its data, or
" the failure it raises) to the agent as {type: 'answer', token, outcome}. When the agent stops
" waiting (the deadline, a cancellation) it calls vimrelay#util#deferred#cancel(token): Cancel()
" runs (e.g. $/cancelRequest) and a later settle of that token sends nothing. keep() keeps a value
" under a token for a second phase (agent/editors/tools/tool.ts CommitPhase), take() takes it.

" token -> Cancel (a Funcref), for answers still owed.
let s:deferred = get(s:, 'deferred', {})
" token -> value, and the tokens oldest first; at most s:kept_max are kept.
let s:kept = get(s:, 'kept', {})
let s:kept_order = get(s:, 'kept_order', [])
let s:kept_max = 16
" What later() returns: a value no tool returns otherwise (compared with `is`).
let s:later = {'vimrelay_later': v:true}

" Defers the answer of the running call; returns what the tool returns.
function! vimrelay#util#deferred#later(p, Cancel) abort
  let s:deferred[a:p.answer_token] = a:Cancel
  return s:later
endfunction

" Whether a tool's result is later()'s.
function! vimrelay#util#deferred#is_later(value) abort
  return a:value is s:later
endfunction

" Sends the answer `token`: the outcome of Fn(args). Nothing when nobody waits for it.
function! vimrelay#util#deferred#settle(token, Fn, args) abort
  if !has_key(s:deferred, a:token)
    return
  endif
  call remove(s:deferred, a:token)
  try
    let outcome = {'ok': v:true, 'data': call(a:Fn, a:args)}
  catch /^vimrelay-fail$/
    let outcome = {'ok': v:false, 'error': vimrelay#util#failure()}
  catch
    let outcome = {'ok': v:false, 'error': {'code': 'EDITOR_ERROR', 'message': v:exception . ' (' . v:throwpoint . ')'}}
  endtry
  call vimrelay#send({'type': 'answer', 'token': a:token, 'outcome': outcome})
endfunction

" Nobody waits for `token` any more: its Cancel runs, what was kept for it goes. Called by the agent.
function! vimrelay#util#deferred#cancel(token) abort
  if has_key(s:kept, a:token)
    call remove(s:kept, a:token)
  endif
  if has_key(s:deferred, a:token)
    let Cancel = remove(s:deferred, a:token)
    silent! call Cancel()
  endif
  return 1
endfunction

" The agent that was owed these answers went away (its channel closed): every Cancel runs, and
" what was kept for a second phase goes.
function! vimrelay#util#deferred#cancel_all() abort
  let [owed, s:deferred] = [s:deferred, {}]
  let s:kept = {}
  let s:kept_order = []
  for Cancel in values(owed)
    silent! call Cancel()
  endfor
endfunction

" Keeps `value` for the second phase of call `token`; the oldest of more than s:kept_max goes.
function! vimrelay#util#deferred#keep(token, value) abort
  let s:kept[a:token] = a:value
  call add(s:kept_order, a:token)
  while len(s:kept_order) > s:kept_max
    let old = remove(s:kept_order, 0)
    if has_key(s:kept, old)
      call remove(s:kept, old)
    endif
  endwhile
endfunction

" What keep() kept for `token` (once), or v:null.
function! vimrelay#util#deferred#take(token) abort
  return has_key(s:kept, a:token) ? remove(s:kept, a:token) : v:null
endfunction
