" vimrelay's reviews in Vim: the same reviews as the Neovim ones (agent/editors/nvim/lua/review.lua).
"
" Contract: the agent calls vimrelay#review#open(id, spec) (spec: buf, header, proposed, quiet_ms);
" while Vim waits for its user (vimrelay#waiting()) it opens nothing and answers {waiting_for}.
" The review comes to the front only while the user is not typing: in Normal mode, with no key for
" spec.quiet_ms; until then a one-line popup at the top says that a review waits (its filter only
" notes when each key was typed, and lets it through), and :VimRelayReview brings the oldest waiting
" review to the front at once. At the front it is a new tab: the real buffer on the left, the
" proposal on the right in a scratch buffer named vimrelay://review/<id> (editable: `do`, :diffget,
" typing), both in diff mode, the header in a window above. In that tab, ZA or :VimRelayAccept
" sends the proposal as it stands, ZR (asking for a reason) or :VimRelayReject [reason] rejects it,
" as the message {type: 'review', id, answer: {kind: 'accept', lines} | {kind: 'reject', reason?}};
" then the header says so and further keys do nothing. Closing the tab, or the proposal's window,
" before deciding rejects it with the reason "closed". vimrelay#review#close(id, message) takes it
" down (the tab closes; the user's window is current again when the review's tab was);
" vimrelay#review#expire(id) says in its header that it expired; vimrelay#review#state() lists
" {id, shown, decided, expired}, vimrelay#review#held() {id, buf, shown}, oldest first (get_state).

" Review id -> {'id', 'spec', 'order', 'shown', 'decided', 'expired', 'notice' (popup id or 0),
" 'last_key' (reltime()), 'timer', 'prop_buf', 'header_buf', 'prev_win'}.
let s:reviews = {}
let s:order = 0

function! s:since(start) abort
  return reltimefloat(reltime(a:start)) * 1000
endfunction

function! vimrelay#review#open(id, spec) abort
  let waiting = vimrelay#waiting()
  if !empty(waiting)
    " Not opened in the middle of what the user is answering: the agent says EDITOR_BLOCKED.
    return {'waiting_for': waiting}
  endif
  let s:order += 1
  let review = {'id': a:id, 'spec': a:spec, 'order': s:order, 'shown': 0, 'decided': 0, 'expired': 0,
        \ 'notice': 0, 'last_key': reltime(), 'timer': -1, 'prop_buf': -1, 'header_buf': -1, 'prev_win': 0}
  let s:reviews[a:id] = review
  if exists('*popup_create')
    let review.notice = popup_create('vimrelay: a review waits for you: :VimRelayReview', {'line': 1, 'col': &columns,
          \ 'pos': 'topright', 'zindex': 200, 'mapping': 1, 'filter': function('s:heard', [a:id])})
  endif
  let review.timer = timer_start(100, function('s:try_show', [a:id]), {'repeat': -1})
  call vimrelay#util#redraw()
  return 1
endfunction

" The notice's filter: notes the key and lets it through.
function! s:heard(id, winid, key) abort
  let review = get(s:reviews, a:id, {})
  if !empty(review)
    let review.last_key = reltime()
  endif
  return 0
endfunction

function! s:try_show(id, timer) abort
  let review = get(s:reviews, a:id, {})
  if empty(review) || review.shown || mode(1) !=# 'n' || getcmdwintype() !=# '' || s:since(review.last_key) < review.spec.quiet_ms
    return
  endif
  call s:show(review)
endfunction

" Brings `review` to the front: its tab, made now.
function! s:show(review) abort
  let review = a:review
  let review.shown = 1
  call timer_stop(review.timer)
  if review.notice
    call popup_close(review.notice)
    let review.notice = 0
  endif
  let review.prev_win = win_getid()
  " Not :tab sbuffer, which 'switchbuf' may send to a window of the user's.
  keepalt tab split
  execute 'keepalt buffer' review.spec.buf
  let t:vimrelay_review = review.id
  let real_win = win_getid()
  rightbelow vnew
  setlocal buftype=nofile bufhidden=wipe noswapfile
  silent! execute 'file' fnameescape('vimrelay://review/' . review.id)
  let review.prop_buf = bufnr('%')
  call setline(1, review.spec.proposed)
  setlocal nomodified
  let &l:filetype = getbufvar(review.spec.buf, '&filetype')
  diffthis
  let prop_win = win_getid()
  call win_execute(real_win, 'diffthis')
  topleft new
  setlocal buftype=nofile bufhidden=wipe noswapfile wrap winfixheight
  let review.header_buf = bufnr('%')
  call setline(1, review.spec.header)
  setlocal nomodifiable
  let rows = 0
  for line in review.spec.header
    let rows += max([1, (strdisplaywidth(line) + &columns - 1) / &columns])
  endfor
  execute 'resize' rows
  " The proposal is the user's alone to change: no tool edits it (vimrelay#util#check_modifiable).
  call setbufvar(review.prop_buf, 'vimrelay_review', review.id)
  nnoremap <buffer> <nowait> ZA :call vimrelay#review#accept_here()<CR>
  nnoremap <buffer> <nowait> ZR :call vimrelay#review#reject_asking()<CR>
  call win_gotoid(prop_win)
  nnoremap <buffer> <nowait> ZA :call vimrelay#review#accept_here()<CR>
  nnoremap <buffer> <nowait> ZR :call vimrelay#review#reject_asking()<CR>
  augroup vimrelay_review
    execute 'autocmd BufWipeout <buffer=' . review.prop_buf . '> call s:closed(' . string(review.id) . ')'
  augroup END
  call vimrelay#util#redraw()
endfunction

" The proposal went away before a decision: a reject.
function! s:closed(id) abort
  let review = get(s:reviews, a:id, {})
  if !empty(review) && review.expired
    call remove(s:reviews, a:id)
  elseif !empty(review) && !review.decided
    call timer_start(0, {-> s:decide(review, {'kind': 'reject', 'reason': 'closed'})})
  endif
endfunction

function! s:notice(text) abort
  echohl WarningMsg | echo strcharpart(a:text, 0, max([10, &columns - 15])) | echohl None
endfunction

function! s:set_header(review, lines) abort
  if bufexists(a:review.header_buf)
    call setbufvar(a:review.header_buf, '&modifiable', 1)
    call deletebufline(a:review.header_buf, 1, '$')
    call setbufline(a:review.header_buf, 1, a:lines)
    call setbufvar(a:review.header_buf, '&modifiable', 0)
  endif
endfunction

" Sends the user's decision (once) and says so in the header.
function! s:decide(review, answer) abort
  if a:review.decided || a:review.expired || !has_key(s:reviews, a:review.id)
    call s:notice(a:review.expired ? 'vimrelay: this review expired: nothing will be applied; close its tab' : 'vimrelay: this review is decided already')
    return
  endif
  let a:review.decided = 1
  call s:set_header(a:review, ['vimrelay: ' . (a:answer.kind ==# 'accept' ? 'accepted' : 'rejected') . ': the agent is making it so…'])
  call vimrelay#send({'type': 'review', 'id': a:review.id, 'answer': a:answer})
  call vimrelay#util#redraw()
endfunction

" The review the current tab shows, or {}.
function! s:here() abort
  return get(s:reviews, get(t:, 'vimrelay_review', ''), {})
endfunction

function! vimrelay#review#accept_here() abort
  let review = s:here()
  if empty(review)
    return s:notice('vimrelay: this tab is no review')
  endif
  if bufexists(review.prop_buf)
    call s:decide(review, {'kind': 'accept', 'lines': getbufline(review.prop_buf, 1, '$')})
  endif
endfunction

function! vimrelay#review#reject_here(reason) abort
  let review = s:here()
  if empty(review)
    return s:notice('vimrelay: this tab is no review')
  endif
  call s:decide(review, empty(a:reason) ? {'kind': 'reject'} : {'kind': 'reject', 'reason': a:reason})
endfunction

function! vimrelay#review#reject_asking() abort
  let reason = ''
  try
    let reason = input('Reason for rejecting: ')
  catch /^Vim:Interrupt$/
    return
  endtry
  call vimrelay#review#reject_here(reason)
endfunction

function! vimrelay#review#go() abort
  let oldest = {}
  for review in values(s:reviews)
    if !review.shown && (empty(oldest) || review.order < oldest.order)
      let oldest = review
    endif
  endfor
  if empty(oldest)
    return s:notice('vimrelay: no review waits')
  endif
  call s:show(oldest)
endfunction

function! vimrelay#review#close(id, message) abort
  let review = get(s:reviews, a:id, {})
  if empty(review)
    return 0
  endif
  call remove(s:reviews, a:id)
  call timer_stop(review.timer)
  if review.notice
    call popup_close(review.notice)
  endif
  for tab in range(1, tabpagenr('$'))
    if gettabvar(tab, 'vimrelay_review', '') ==# a:id
      let was_current = tab == tabpagenr()
      for win in gettabinfo(tab)[0].windows
        call win_execute(win, 'diffoff')
      endfor
      if tabpagenr('$') > 1
        " With !, a changed buffer shown nowhere else becomes hidden rather than stop the close.
        execute 'tabclose!' tab
      endif
      if was_current && review.prev_win
        call win_gotoid(review.prev_win)
      endif
      break
    endif
  endfor
  if !empty(a:message)
    call s:notice(a:message)
  endif
  call vimrelay#util#redraw()
  return 1
endfunction

function! vimrelay#review#expire(id) abort
  let review = get(s:reviews, a:id, {})
  if !empty(review)
    let review.expired = 1
    call s:set_header(review, ['vimrelay: this review expired: nothing will be applied. Close this tab (:tabclose).'])
    call vimrelay#util#redraw()
  endif
  return 1
endfunction

" Every review held, oldest first: {id, buf, shown}.
function! vimrelay#review#held() abort
  let held = sort(values(s:reviews), {a, b -> a.order - b.order})
  return map(held, {_, r -> {'id': r.id, 'buf': r.spec.buf, 'shown': r.shown ? v:true : v:false}})
endfunction

function! vimrelay#review#state() abort
  return map(values(s:reviews), {_, r -> {'id': r.id, 'shown': r.shown ? v:true : v:false,
        \ 'decided': r.decided ? v:true : v:false, 'expired': r.expired ? v:true : v:false}})
endfunction

" Takes every review down without an answer (the channel to the agent closed).
function! vimrelay#review#close_all() abort
  for id in keys(s:reviews)
    call vimrelay#review#close(id, '')
  endfor
endfunction
