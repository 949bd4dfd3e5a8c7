" vimrelay's permission prompt in Vim: the same prompt as the Neovim one
" (agent/editors/nvim/lua/ask.lua), as a popup.
"
" Contract: the agent calls vimrelay#ask#open(id, lines), which shows `lines` in a centred popup
" whose filter takes every key while it is shown: o allow once, a allow always for this editor,
" A for all editors, d deny, r deny with a reason, q and <Esc> deny; other keys do nothing. The
" answer goes to the agent as the message {type: 'ask', id, answer} and the popup closes. A filter
" cannot call input(), so after r a timer asks for the reason with input(); keys typed before that
" prompt shows are dropped, not run. The agent calls vimrelay#ask#close(id) when its deadline
" passes: the popup closes without an answer, and an input() still waiting for the reason is
" ended. A popup closed some other way (popup_close()) is a deny; popup_clear() runs no
" callback, so a prompt it clears stays unanswered until the deadline. The popup leaves the
" current window, its cursor and the mode alone. Without +popupwin, open returns 0 and the agent
" counts the prompt as not shown.

" Prompt id -> {'winid': the popup, 'state': 'keys' | 'waiting' (r pressed) | 'input' (reason)}.
let s:asks = {}

" Shows a prompt; returns its popup's window id, or 0 when this Vim has no popups.
function! vimrelay#ask#open(id, lines) abort
  if !exists('*popup_create')
    return 0
  endif
  let winid = popup_create(a:lines, {
        \ 'pos': 'center',
        \ 'border': [],
        \ 'padding': [0, 1, 0, 1],
        \ 'zindex': 300,
        \ 'mapping': 0,
        \ 'wrap': 1,
        \ 'maxwidth': max([20, &columns - 6]),
        \ 'filter': function('s:filter', [a:id]),
        \ 'callback': function('s:closed', [a:id]),
        \ })
  let s:asks[a:id] = {'winid': winid, 'state': 'keys'}
  " Shown now, not when the user next presses a key: a channel call does not redraw by itself.
  call vimrelay#util#redraw()
  return winid
endfunction

" Takes prompt `id` down without an answer; 1 when it was still shown.
function! vimrelay#ask#close(id) abort
  if !has_key(s:asks, a:id)
    return 0
  endif
  let ask = remove(s:asks, a:id)
  call popup_close(ask.winid)
  " The reason prompt is still waiting: end it (<Esc> abandons input(), which returns '').
  if ask.state ==# 'input' && mode() ==# 'c'
    call feedkeys("\<Esc>", 'n')
  endif
  call vimrelay#util#redraw()
  return 1
endfunction

" Takes every prompt down without an answer (the channel to the agent closed).
function! vimrelay#ask#close_all() abort
  for id in keys(s:asks)
    call vimrelay#ask#close(id)
  endfor
endfunction

" Sends `answer` for prompt `id` and takes the prompt down.
function! s:answer(id, answer) abort
  if !has_key(s:asks, a:id)
    return
  endif
  let ask = remove(s:asks, a:id)
  call popup_close(ask.winid)
  call vimrelay#send({'type': 'ask', 'id': a:id, 'answer': a:answer})
endfunction

let s:keys = {
      \ 'o': {'kind': 'allow_once'},
      \ 'a': {'kind': 'allow_always', 'scope': 'editor'},
      \ 'A': {'kind': 'allow_always', 'scope': 'all'},
      \ 'd': {'kind': 'deny'},
      \ 'q': {'kind': 'deny'},
      \ "\<Esc>": {'kind': 'deny'},
      \ }

function! s:filter(id, winid, key) abort
  let ask = get(s:asks, a:id, {})
  if empty(ask)
    return 0
  endif
  if ask.state ==# 'input'
    " Keys go to the reason prompt.
    return 0
  endif
  if ask.state ==# 'keys'
    if has_key(s:keys, a:key)
      call s:answer(a:id, s:keys[a:key])
    elseif a:key ==# 'r'
      let ask.state = 'waiting'
      call timer_start(0, function('s:read_reason', [a:id]))
    endif
  endif
  return 1
endfunction

function! s:read_reason(id, timer) abort
  let ask = get(s:asks, a:id, {})
  if empty(ask)
    return
  endif
  let ask.state = 'input'
  let reason = ''
  try
    let reason = input('Reason for denying: ')
  catch /^Vim:Interrupt$/
  endtry
  call s:answer(a:id, empty(reason) ? {'kind': 'deny'} : {'kind': 'deny', 'reason': reason})
endfunction

" The popup closed: by an answer or vimrelay#ask#close (already forgotten), or by something else.
function! s:closed(id, winid, result) abort
  call s:answer(a:id, {'kind': 'deny'})
endfunction
