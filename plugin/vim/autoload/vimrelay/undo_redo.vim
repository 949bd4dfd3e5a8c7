" undo / redo on Vim: steps through one buffer's undo tree with :undo or :redo. Same contract as
" the Neovim tools (agent/editors/nvim/lua/undo_redo.lua): up to params.steps steps, stopping early
" when one moves nothing. In the current buffer the cursor moves to the change, as the user's own u
" would. Another buffer is stepped in a hidden popup (util/hidden.vim), so no window of the
" user's moves: the cursors and views of windows showing it follow their text, as they do for any
" change made elsewhere, and the current window stays current.

" Takes up to `steps` steps in the current window; returns {taken, seq_cur, seq_last}.
function! s:step(command, steps) abort
  let taken = 0
  for _ in range(a:steps)
    let before = undotree().seq_cur
    execute 'silent ' . a:command
    if undotree().seq_cur == before
      break
    endif
    let taken += 1
  endfor
  let tree = undotree()
  let s:result = {'taken': taken, 'seq_cur': tree.seq_cur, 'seq_last': tree.seq_last}
endfunction

" Runs s:step with buffer b current (see the header); returns its result.
function! s:step_in(b, command, steps) abort
  let s:result = {}
  " By its full name: the popup runs the command in util/hidden.vim, where s: means another script.
  let call = 'call ' . get(function('s:step'), 'name') . '(' . string(a:command) . ', ' . a:steps . ')'
  if a:b == bufnr('%')
    execute call
  else
    call vimrelay#util#hidden#execute(a:b, call)
  endif
  return s:result
endfunction

function! vimrelay#undo_redo#run(p) abort
  let b = vimrelay#util#resolve(a:p)
  call vimrelay#util#ensure_loaded(b)
  call vimrelay#util#check_modifiable(b)
  let tick = vimrelay#util#check_tick(b, get(a:p, 'expected_changedtick', v:null))
  let result = s:step_in(b, a:p.direction, a:p.steps)
  let now = vimrelay#util#tick(b)
  return {'buf': b, 'path': vimrelay#util#buf_path(b), 'steps_taken': result.taken,
        \ 'changed': now != tick ? v:true : v:false, 'changedtick': now,
        \ 'seq_cur': result.seq_cur, 'seq_last': result.seq_last}
endfunction
