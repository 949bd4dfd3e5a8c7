" review_apply on Vim: the same contract as the Neovim one (agent/editors/nvim/lua/review_apply.lua):
" the hunks a user accepted in a review, made last first in one undo block of their own, refused
" (STALE_CHANGEDTICK with current_changedtick and current_lines, nothing changed) when the buffer
" changed since the agent merged them.
function! vimrelay#review_apply#run(p) abort
  let b = vimrelay#util#resolve(a:p)
  call vimrelay#util#ensure_loaded(b)
  call vimrelay#util#check_modifiable(b)
  let tick = vimrelay#util#tick(b)
  if tick != a:p.expected_changedtick
    call vimrelay#util#fail('STALE_CHANGEDTICK', 'The buffer changed during the review. Nothing was changed.',
          \ {'current_changedtick': tick, 'current_lines': getbufline(b, 1, '$')})
  endif
  call vimrelay#util#break_undo(b)
  for h in reverse(copy(a:p.hunks))
    if h.count == 0
      if !empty(h.lines) && appendbufline(b, h.start, h.lines)
        call vimrelay#util#fail('EDITOR_ERROR', 'Vim refused to change buffer ' . b . '.')
      endif
    else
      call vimrelay#util#set_lines(b, h.start + 1, h.start + h.count, h.lines)
    endif
  endfor
  call vimrelay#util#break_undo(b)
  return {'buf': b, 'path': vimrelay#util#buf_path(b), 'changedtick': vimrelay#util#tick(b),
        \ 'total_lines': vimrelay#util#line_count(b)}
endfunction
