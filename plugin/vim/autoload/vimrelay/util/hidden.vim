" Runs Ex commands "inside" a buffer without touching any window: in a hidden popup window that
" shows the buffer (Vim has no nvim_buf_call). The popup has its own cursor and no folds, and
" win_execute() enters it without autocommands, so the user's windows, cursors and folds stay as
" they were (their cursors still follow inserted or deleted lines). Used by save_buffer and
" substitute.

" Runs `commands` (a string or a list, as win_execute() takes) with buffer b current, in a hidden
" popup, and returns their output; the popup is closed whatever happens, and an error propagates as
" the exception it was. Fails UNSUPPORTED on a Vim built without +popupwin.
function! vimrelay#util#hidden#execute(b, commands) abort
  if !has('popupwin')
    call vimrelay#util#fail('UNSUPPORTED', 'This Vim has no +popupwin, which vimrelay needs to work in a buffer without switching windows.',
          \ {'hint': 'Use a Vim built with +popupwin (most "normal" and "huge" builds), or a Neovim editor.'})
  endif
  let popup = popup_create(a:b, {'hidden': 1})
  try
    call win_execute(popup, 'setlocal nofoldenable')
    let output = win_execute(popup, a:commands)
  finally
    call popup_close(popup)
  endtry
  return output
endfunction
