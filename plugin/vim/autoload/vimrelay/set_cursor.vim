" set_cursor on Vim: moves a window's cursor, first showing a buffer in that window when it shows
" another. Same contract as the Neovim tool (agent/editors/nvim/lua/set_cursor.lua): a line past
" the end is refused before anything moves, a column past the end of the line is clamped; inside
" the window the old position goes to the jumplist (m'), closed folds at the line open (zv) and
" center scrolls it to the middle (zz). Which window is current does not change. A window whose
" modified buffer Vim would not hide is refused (EDITOR_ERROR) rather than prompting or saving, and
" so is showing a buffer while the user is in the command-line window (vimrelay#util#refuse_in_cmdwin).

" Buffer types Vim never counts as changed, so it can always leave them.
let s:never_changed = ['nofile', 'nowrite', 'terminal', 'prompt']

" Whether window `win` can stop showing its buffer without E37, a prompt or a write.
function! s:can_leave(win) abort
  let b = winbufnr(a:win)
  let bufhidden = getbufvar(b, '&bufhidden')
  return !getbufvar(b, '&modified') || index(s:never_changed, getbufvar(b, '&buftype')) >= 0
        \ || bufhidden ==# 'hide' || (bufhidden ==# '' && &hidden) || len(win_findbuf(b)) > 1
endfunction

function! vimrelay#set_cursor#run(p) abort
  let win = get(a:p, 'window', win_getid())
  if empty(getwininfo(win))
    call vimrelay#util#fail('INVALID_ARGUMENT', 'There is no window with id ' . win . '.', {'hint':
          \ 'Call get_state_brief (or get_state) for the window ids, or leave out `window` to use the current window.'})
  endif
  let b = has_key(a:p, 'buffer') ? vimrelay#util#resolve(a:p) : winbufnr(win)
  call vimrelay#util#ensure_loaded(b)
  let line_count = vimrelay#util#line_count(b)
  if a:p.line > line_count
    call vimrelay#util#fail('INVALID_ARGUMENT', 'Line ' . a:p.line . ' is past the end of the buffer, which has '
          \ . line_count . ' lines. The cursor did not move.', {'line_count': line_count,
          \ 'hint': 'Pass a line from 1 to ' . line_count . '.'})
  endif
  let text = getbufline(b, a:p.line)[0]
  let col = min([a:p.col, max([1, strchars(text)])])
  let shown = winbufnr(win)
  let switched = shown != b
  if switched
    call vimrelay#util#refuse_in_cmdwin('The cursor did not move.')
  endif
  if switched && !s:can_leave(win)
    call vimrelay#util#fail('EDITOR_ERROR', 'Window ' . win . ' shows buffer ' . shown . ', which has unsaved changes, and '
          \ . "'hidden' is off: Vim would not hide it (E37). The cursor did not move.", {'hint': 'Leave out `buffer`, pass a '
          \ . '`window` that shows another buffer, or save buffer ' . shown . ' first (save_buffer).'})
  endif
  let byte = byteidxcomp(text, col - 1)
  let commands = ["normal! m'"] + (switched ? ['buffer ' . b] : [])
        \ + ['call cursor(' . a:p.line . ', ' . ((byte < 0 ? strlen(text) : byte) + 1) . ')', 'normal! zv']
        \ + (get(a:p, 'center', v:false) ? ['normal! zz'] : [])
  call win_execute(win, commands)
  let pos = getcurpos(win)
  return {'window': win, 'buf': b, 'path': vimrelay#util#buf_path(b),
        \ 'cursor': {'line': pos[1], 'col': vimrelay#util#char_col(getbufline(b, pos[1])[0], pos[2])},
        \ 'switched_buffer': switched ? v:true : v:false}
endfunction
