" save_buffer on Vim: the same contract as the Neovim tool (agent/editors/nvim/lua/save_buffer.lua).
" It is :update inside one buffer, never forced, with 'confirm' off so a read-only buffer is an
" error rather than a dialog; it runs in a hidden popup window showing the buffer
" (util/hidden.vim), so no window changes. Not started after the call's deadline (start_by).

" What to do about a failed write, from its message.
function! s:hint_for(message, path) abort
  let dir = fnamemodify(a:path, ':h')
  if !isdirectory(dir)
    return 'The directory ' . dir . ' does not exist. Ask the user to create it (or do so with run_command, e.g. :call mkdir(...)), then retry.'
  endif
  if a:message =~# 'E45\|E505\|read-only'
    return 'The buffer or its file is read-only, and vimrelay never forces a write. Ask the user whether and how to save it.'
  endif
  return 'The editor could not write the file; read the message, fix the cause (or ask the user), then retry.'
endfunction

let s:wrote = 0

" :update in buffer b, without changing windows; '' or Vim's error message.
function! s:update(b) abort
  let s:wrote = 0
  augroup vimrelay_save
    autocmd!
    execute 'autocmd BufWritePost <buffer=' . a:b . '> let s:wrote = 1'
  augroup END
  let confirm = &confirm
  set noconfirm
  let message = ''
  try
    call vimrelay#util#hidden#execute(a:b, 'silent update')
  catch /^vimrelay-fail$/
    throw v:exception
  catch
    let message = substitute(v:exception, '^Vim\%((\a\+)\)\=:', '', '')
  finally
    let &confirm = confirm
    autocmd! vimrelay_save
  endtry
  return message
endfunction

function! vimrelay#save_buffer#run(p) abort
  call vimrelay#util#check_start_by(get(a:p, 'start_by', v:null))
  let b = vimrelay#util#resolve(a:p)
  let path = vimrelay#util#buf_path(b)
  if path is v:null
    call vimrelay#util#fail('INVALID_ARGUMENT', 'Buffer ' . b . ' has no file to save to (it is unnamed, or its buftype is "'
          \ . getbufvar(b, '&buftype') . '").',
          \ {'hint': "To save this text to a file, call write_buffer with the file's path, then save_buffer with that path."})
  endif
  call vimrelay#util#check_tick(b, get(a:p, 'expected_changedtick', v:null))
  let written = v:false
  if bufloaded(b) && getbufvar(b, '&modified')
    let message = s:update(b)
    if !empty(message)
      call vimrelay#util#fail('EDITOR_ERROR', 'The buffer was not saved: ' . message, {'hint': s:hint_for(message, path)})
    endif
    " A BufWriteCmd (netrw, plugins) writes without BufWritePost, and resets 'modified'.
    let written = s:wrote || !getbufvar(b, '&modified') ? v:true : v:false
    if !written
      call vimrelay#util#fail('EDITOR_ERROR', 'The buffer was not saved, and the editor gave no error (a question about the write may have been declined).',
            \ {'hint': 'Ask the user to look at the editor, then call get_state_brief to see whether the buffer is still modified.'})
    endif
  endif
  return {'buf': b, 'path': path, 'written': written, 'modified': getbufvar(b, '&modified') ? v:true : v:false,
        \ 'changedtick': vimrelay#util#tick(b)}
endfunction
