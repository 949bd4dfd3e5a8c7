" vimrelay's permission prompt in Vim: the same prompt as the Neovim one
" (agent/editors/nvim/lua/ask.lua), as a popup.
"
" Contract: the agent calls vimrelay#ask#open(id, lines, opts), which shows `lines` in a centred
" popup whose filter takes every key while it is shown. Long lines wrap (cut into lines of the
" popup's width: a popup cannot scroll within one line); a popup taller than the
" screen scrolls (j, k, <Down>, <Up>, CTRL-D, CTRL-U, CTRL-F, CTRL-B, <PageDown>, <PageUp>, G, gg),
" with a scrollbar. o allow once, a allow always in this editor (the agent decides what "always"
" means for it), d deny, r deny with a reason, q and <Esc> deny; other keys do nothing. o and a
" take effect only once the popup's last line has been on screen (else a message says to scroll
" to the end), so an allow never covers text the user has not been shown; with opts.deny_only
" they do nothing at all. The answer goes to the agent as the message {type: 'ask', id, answer}
" and the popup closes. A filter cannot call input(), so after r a timer asks for the reason with
" input(); keys typed before that prompt shows are dropped, not run. The agent calls
" vimrelay#ask#close(id) when its deadline passes: the popup closes without an answer, and an
" input() still waiting for the reason is ended. A popup closed some other way (popup_close()) is
" a deny; popup_clear() runs no callback, so a prompt it clears stays unanswered until the
" deadline. The popup leaves the current window, its cursor and the mode alone. Without
" +popupwin, open returns 0 and the agent counts the prompt as not shown.

" Prompt id -> {'winid': the popup, 'state': 'keys' | 'waiting' (r pressed) | 'input' (reason),
" 'lines': how many lines it has, 'deny_only', 'seen_end': whether its last line has been shown}.
let s:asks = {}

" `line` cut into pieces of at most `width` display cells, never inside a character. A popup
" cannot scroll within one line, so a line taller than the prompt would have an end nobody can
" bring on screen: the prompt holds such a line as several.
function! s:pieces(line, width) abort
  if strdisplaywidth(a:line) <= a:width
    return [a:line]
  endif
  let out = []
  let cur = ''
  let w = 0
  for ch in split(a:line, '\zs')
    let cw = ch ==# "\t" ? 8 - w % 8 : strdisplaywidth(ch)
    if w + cw > a:width && !empty(cur)
      call add(out, cur)
      let cur = ''
      let w = 0
      let cw = ch ==# "\t" ? 8 : cw
    endif
    let cur .= ch
    let w += cw
  endfor
  return empty(cur) ? out : add(out, cur)
endfunction

" Shows a prompt; returns its popup's window id, or 0 when this Vim has no popups.
function! vimrelay#ask#open(id, lines, opts) abort
  if !exists('*popup_create')
    return 0
  endif
  let width = max([20, &columns - 6])
  let shown = []
  for line in a:lines
    call extend(shown, s:pieces(line, width))
  endfor
  let winid = popup_create(shown, {
        \ 'pos': 'center',
        \ 'border': [],
        \ 'padding': [0, 1, 0, 1],
        \ 'zindex': 300,
        \ 'mapping': 0,
        \ 'wrap': 1,
        \ 'scrollbar': 1,
        \ 'maxwidth': width,
        \ 'maxheight': max([3, &lines - 4]),
        \ 'filter': function('s:filter', [a:id]),
        \ 'callback': function('s:closed', [a:id]),
        \ })
  let s:asks[a:id] = {'winid': winid, 'state': 'keys', 'lines': len(shown),
        \ 'deny_only': get(a:opts, 'deny_only', v:false) is v:true, 'seen_end': v:false}
  " Shown now, not when the user next presses a key: a channel call does not redraw by itself.
  call s:look(s:asks[a:id])
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

" Draws the popup (as vimrelay#util#redraw does: not over a hit-enter prompt) and notes whether
" its last line is on screen.
function! s:look(ask) abort
  call vimrelay#util#redraw()
  if get(popup_getpos(a:ask.winid), 'lastline', 0) >= a:ask.lines
    let a:ask.seen_end = v:true
  endif
endfunction

let s:allow = {'o': {'kind': 'allow_once'}, 'a': {'kind': 'allow_always'}}
let s:deny = {'d': {'kind': 'deny'}, 'q': {'kind': 'deny'}, "\<Esc>": {'kind': 'deny'}}

" The first line to show after `key`, or -1 when `key` does not scroll. `pos` is popup_getpos().
function! s:scrolled(ask, pos, key) abort
  let first = a:pos.firstline
  let page = max([1, a:pos.core_height])
  let steps = {'j': 1, "\<Down>": 1, 'k': -1, "\<Up>": -1, "\<C-D>": page / 2, "\<C-U>": -page / 2,
        \ "\<C-F>": page, "\<PageDown>": page, "\<C-B>": -page, "\<PageUp>": -page}
  if has_key(steps, a:key)
    return max([1, min([a:ask.lines, first + steps[a:key]])])
  elseif a:key ==# 'G'
    return max([1, a:ask.lines - page + 1])
  elseif a:key ==# 'g'
    " gg: the first g goes to the top already, as there is nothing else g could start here.
    return 1
  endif
  return -1
endfunction

function! s:filter(id, winid, key) abort
  let ask = get(s:asks, a:id, {})
  if empty(ask)
    return 0
  endif
  if ask.state ==# 'input'
    " Keys go to the reason prompt.
    return 0
  endif
  if ask.state !=# 'keys'
    return 1
  endif
  let first = s:scrolled(ask, popup_getpos(a:winid), a:key)
  if first > 0
    call popup_setoptions(a:winid, {'firstline': first})
    call s:look(ask)
  elseif has_key(s:deny, a:key)
    call s:answer(a:id, s:deny[a:key])
  elseif has_key(s:allow, a:key) && !ask.deny_only
    " The screen may show more of it now (resized, or drawn since a hit-enter prompt).
    call s:look(ask)
    if ask.seen_end
      call s:answer(a:id, s:allow[a:key])
    else
      echohl WarningMsg | echomsg 'vimrelay: scroll to the end of the prompt first (G): allow covers only what you were shown' | echohl None
    endif
  elseif a:key ==# 'r'
    let ask.state = 'waiting'
    call timer_start(0, function('s:read_reason', [a:id]))
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
