" vimrelay's permission prompt in Vim: the same prompt as the Neovim one
" (agent/editors/nvim/lua/ask.lua), as a popup.
"
" Contract: the agent calls vimrelay#ask#open(id, lines, opts) (opts: deny_only, quiet_ms,
" arm_ms, from agent/editors/prompts.ts), which shows `lines` at once in a centred popup. Long lines
" are cut into lines of the popup's width (a popup cannot scroll within one line), so each buffer
" line is one screen row; a popup taller than the screen scrolls, with a scrollbar. While the user
" types, keys go where they always go (the popup's filter only notes when each was typed, and the
" user's mappings apply); the popup takes keys only once no key has been typed for opts.quiet_ms
" (or g:vimrelay_prompt_delay_ms, if longer), counted from when it showed, and only in Normal, Visual, Insert or Replace mode (never in the
" middle of a command line or an operator). From then on its filter takes every key, unmapped: j,
" k, <Down>, <Up>, CTRL-D, CTRL-U, CTRL-F, CTRL-B, <PageDown>, <PageUp>, G, gg scroll; CTRL-G
" allow once, CTRL-T allow always in this editor (the agent decides what "always" means for it),
" d deny, r deny with a reason, q and <Esc> deny; other keys do nothing. A key answers only
" opts.arm_ms (or g:vimrelay_prompt_delay_ms, if longer: a user who reads slowly may make it longer,
" never shorter) after the popup took keys, and allow only that long after its view last moved and
" once every row has been on screen (else its top border says what to wait for); with opts.deny_only
" the allow keys do nothing at all. The answer goes to the agent as the message {type: 'ask', id,
" answer} and the popup closes. A filter cannot call input(), so after r a timer asks for the
" reason with input(); keys typed before that prompt shows are dropped, not run. The agent calls
" vimrelay#ask#close(id, notice) when its deadline passes, or another surface answered first: the
" popup closes without an answer, an input() still waiting for the reason is ended, and `notice`,
" if not empty, is shown as a one-line message whether the popup was still shown or not (its
" user's own answer may have lost the race: they are told who answered first). A popup closed some other way (popup_close()) is
" a deny; popup_clear() runs no callback, so a prompt it clears stays unanswered until the
" deadline. The popup leaves the current window, its cursor and the mode alone.
" vimrelay#ask#state() lists the prompts shown, each {id, taking_keys, armed, rows, unseen}. Without
" +popupwin, open returns 0 and the agent counts the prompt as not shown.

" Prompt id -> {'winid': the popup, 'state': 'shown' (keys pass) | 'keys' | 'waiting' (r pressed)
" | 'input' (reason), 'lines': how many rows it has, 'deny_only', 'seen': rows that have been on
" screen, 'unseen': how many have not, 'first': the first row shown, the times (reltime())
" 'shown_at', 'last_key', 'took_at', 'moved_at', the delays 'quiet_ms' and 'arm_ms', and 'timer',
" which waits for the user to stop typing}.
let s:asks = {}

" The modes a prompt may take keys in (mode(1)).
let s:TAKES_IN = ['n', 'i', 'v', 'V', "\<C-V>", 'R']

" `line` cut into pieces of at most `width` display cells, never inside a character.
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

" Milliseconds since `start` (a reltime()).
function! s:since(start) abort
  return reltimefloat(reltime(a:start)) * 1000
endfunction

" Shows a prompt; returns its popup's window id, 0 when this Vim has no popups, or {waiting_for}
" when Vim waits for its user (vimrelay#waiting()) and shows nothing.
function! vimrelay#ask#open(id, lines, opts) abort
  if !exists('*popup_create')
    return 0
  endif
  let waiting = vimrelay#waiting()
  if !empty(waiting)
    " Not shown in the middle of what the user is answering: the agent says EDITOR_BLOCKED.
    return {'waiting_for': waiting}
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
        \ 'mapping': 1,
        \ 'wrap': 1,
        \ 'scrollbar': 1,
        \ 'maxwidth': width,
        \ 'maxheight': max([3, &lines - 4]),
        \ 'filter': function('s:filter', [a:id]),
        \ 'callback': function('s:closed', [a:id]),
        \ })
  let ask = {'winid': winid, 'state': 'shown', 'lines': len(shown),
        \ 'deny_only': get(a:opts, 'deny_only', v:false) is v:true,
        \ 'seen': {}, 'unseen': len(shown), 'first': 0,
        \ 'shown_at': reltime(), 'last_key': reltime(), 'took_at': [], 'moved_at': [],
        \ 'quiet_ms': max([a:opts.quiet_ms, get(g:, 'vimrelay_prompt_delay_ms', 0)]),
        \ 'arm_ms': max([a:opts.arm_ms, get(g:, 'vimrelay_prompt_delay_ms', 0)])}
  let ask.timer = timer_start(50, function('s:try_take', [a:id]), {'repeat': -1})
  let s:asks[a:id] = ask
  " Shown now, not when the user next presses a key: a channel call does not redraw by itself.
  call s:look(ask)
  return winid
endfunction

" Takes prompt `id` down without an answer, then shows the notice (a:1), if any; 1 when it was still shown.
function! vimrelay#ask#close(id, ...) abort
  let notice = get(a:000, 0, '')
  let was = has_key(s:asks, a:id)
  if was
    let ask = s:forget(a:id)
    " The reason prompt is still waiting: end it (<Esc> abandons input(), which returns '').
    if ask.state ==# 'input' && mode() ==# 'c'
      call feedkeys("\<Esc>", 'n')
    endif
  endif
  call vimrelay#util#redraw()
  if !empty(notice)
    echohl WarningMsg | echo strcharpart(notice, 0, max([10, &columns - 15])) | echohl None
  endif
  return was
endfunction

" Takes every prompt down without an answer (the channel to the agent closed).
function! vimrelay#ask#close_all() abort
  for id in keys(s:asks)
    call vimrelay#ask#close(id)
  endfor
endfunction

" The prompts shown: whether each takes keys yet, whether they answer, its rows and those unseen.
function! vimrelay#ask#state() abort
  let out = []
  for [id, ask] in items(s:asks)
    call s:look(ask)
    let taking = ask.state !=# 'shown'
    call add(out, {'id': id, 'taking_keys': taking ? v:true : v:false,
          \ 'armed': taking && s:since(ask.took_at) >= ask.arm_ms && s:since(ask.moved_at) >= ask.arm_ms ? v:true : v:false,
          \ 'rows': ask.lines, 'unseen': ask.unseen})
  endfor
  return out
endfunction

" Forgets prompt `id`, stops its timer and closes its popup; returns what it was.
function! s:forget(id) abort
  let ask = remove(s:asks, a:id)
  call timer_stop(ask.timer)
  call popup_close(ask.winid)
  return ask
endfunction

" Sends `answer` for prompt `id` and takes the prompt down.
function! s:answer(id, answer) abort
  if !has_key(s:asks, a:id)
    return
  endif
  call s:forget(a:id)
  call vimrelay#send({'type': 'ask', 'id': a:id, 'answer': a:answer})
endfunction

" Draws the popup (as vimrelay#util#redraw does: not over a hit-enter prompt), notes the rows on
" screen, and when the view last moved.
function! s:look(ask) abort
  call vimrelay#util#redraw()
  let pos = popup_getpos(a:ask.winid)
  let first = get(pos, 'firstline', 0)
  if first != a:ask.first
    let a:ask.first = first
    let a:ask.moved_at = reltime()
  endif
  for row in range(first, get(pos, 'lastline', 0))
    if row > 0 && !has_key(a:ask.seen, row)
      let a:ask.seen[row] = 1
      let a:ask.unseen -= 1
    endif
  endfor
endfunction

" Takes keys for prompt `id` once the user has stopped typing, in a mode it may take them in.
function! s:try_take(id, timer) abort
  let ask = get(s:asks, a:id, {})
  if empty(ask) || ask.state !=# 'shown'
    return
  endif
  if s:since(ask.shown_at) < ask.quiet_ms || s:since(ask.last_key) < ask.quiet_ms || index(s:TAKES_IN, mode(1)) < 0
    return
  endif
  let ask.state = 'keys'
  let ask.took_at = reltime()
  let ask.moved_at = ask.took_at
  call timer_stop(ask.timer)
  call popup_setoptions(ask.winid, {'mapping': 0})
endfunction

let s:allow = {"\<C-G>": {'kind': 'allow_once'}, "\<C-T>": {'kind': 'allow_always'}}
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

" Whether `ask`'s keys answer yet (`allow`: for an allow key); says what to wait for when not.
function! s:armed(ask, allow) abort
  if s:since(a:ask.took_at) < a:ask.arm_ms
    return s:say(a:ask, 'vimrelay: read the prompt; its keys answer in a moment')
  endif
  if !a:allow
    return 1
  endif
  " The screen may show more of it now (resized, or drawn since a hit-enter prompt).
  call s:look(a:ask)
  if a:ask.unseen > 0
    return s:say(a:ask, printf('vimrelay: scroll through all of it first (%d rows unseen)', a:ask.unseen))
  endif
  if s:since(a:ask.moved_at) < a:ask.arm_ms
    return s:say(a:ask, 'vimrelay: allow answers a moment after the last scroll')
  endif
  return 1
endfunction

" Shows `text` in the popup's top border until the next key: a message line would be wiped by
" the mode message of Insert and Visual mode, or stop at a hit-enter prompt when too long; returns 0.
function! s:say(ask, text) abort
  let width = get(popup_getpos(a:ask.winid), 'core_width', 20)
  call popup_setoptions(a:ask.winid, {'title': ' ' .. strcharpart(a:text, 0, max([10, width - 4])) .. ' '})
  let a:ask.said = 1
  call vimrelay#util#redraw()
  return 0
endfunction

function! s:filter(id, winid, key) abort
  let ask = get(s:asks, a:id, {})
  if empty(ask)
    return 0
  endif
  if ask.state ==# 'shown'
    " The user is typing: the key goes where it always goes.
    let ask.last_key = reltime()
    return 0
  endif
  if ask.state ==# 'input'
    " Keys go to the reason prompt.
    return 0
  endif
  if ask.state !=# 'keys'
    return 1
  endif
  if get(ask, 'said', 0)
    let ask.said = 0
    call popup_setoptions(a:winid, {'title': ''})
  endif
  let first = s:scrolled(ask, popup_getpos(a:winid), a:key)
  if first > 0
    call popup_setoptions(a:winid, {'firstline': first})
    call s:look(ask)
  elseif has_key(s:deny, a:key)
    if s:armed(ask, 0)
      call s:answer(a:id, s:deny[a:key])
    endif
  elseif has_key(s:allow, a:key) && !ask.deny_only
    if s:armed(ask, 1)
      call s:answer(a:id, s:allow[a:key])
    endif
  elseif a:key ==# 'r' && s:armed(ask, 0)
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
