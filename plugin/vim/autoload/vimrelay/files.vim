" open_file and save_buffer on Vim: the same contracts as the Neovim tools
" (agent/editors/nvim/lua/open_file.lua, save_buffer.lua).
" open_file adds a file to the buffer list and loads it, showing it in the current window only on
" request; the path reaches Vim only as data (bufadd, bufload), never an Ex command line. save_buffer
" is :update inside one buffer, never forced, with 'confirm' off so a read-only buffer is an error
" rather than a dialog; it runs in a hidden popup window showing the buffer (hidden.vim), so no
" window changes.

" Buffer types Vim never counts as changed, so it can always leave them.
let s:never_changed = ['nofile', 'nowrite', 'terminal', 'prompt']

" Whether the current window can switch to buffer `target` without abandoning or saving changes
" (can_abandon() in Vim's source, minus the autowrite and force branches).
function! s:can_leave_current(target) abort
  let cur = bufnr('%')
  let bufhidden = &bufhidden
  return cur == a:target || !&modified || index(s:never_changed, &buftype) >= 0 || len(win_findbuf(cur)) > 1
        \ || bufhidden ==# 'hide' || (bufhidden ==# '' && &hidden)
endfunction

" What is on disk at `path`, following links, in the words of the Neovim tool: '' (nothing),
" 'file', 'directory', 'fifo', ...
function! s:disk_type(path) abort
  let type = getftype(resolve(a:path))
  return get({'dir': 'directory', 'bdev': 'block device', 'cdev': 'character device'}, type, type)
endfunction

function! vimrelay#files#open(p) abort
  let b = vimrelay#util#find_by_path(a:p.path)
  let path = b ? vimrelay#util#absolute(fnamemodify(bufname(b), ':p')) : vimrelay#util#absolute(a:p.path)
  let type = s:disk_type(path)
  if !empty(type) && type !=# 'file'
    call vimrelay#util#fail('INVALID_ARGUMENT', path . ' is a ' . type . ', not a file.',
          \ {'hint': 'Pass the path of a regular file (or of a file to create).'})
  endif
  if a:p.show && !s:can_leave_current(b)
    call vimrelay#util#fail('EDITOR_ERROR', "The current window's buffer has unsaved changes and cannot be hidden ('hidden' is off), "
          \ . 'so it cannot show another buffer. Nothing was opened.',
          \ {'hint': 'Call open_file without show, or save the current buffer first (save_buffer) and retry.'})
  endif
  let created = v:false
  if !b
    let b = bufadd(path)
    let created = v:true
  endif
  call setbufvar(b, '&buflisted', 1)
  call vimrelay#util#ensure_loaded(b)
  if a:p.show && bufnr('%') != b
    " A number, not a path, on the command line.
    execute 'buffer' b
  endif
  return {'buf': b, 'path': vimrelay#util#buf_path(b), 'created': created, 'exists_on_disk': !empty(type) ? v:true : v:false,
        \ 'shown': bufnr('%') == b ? v:true : v:false, 'total_lines': vimrelay#util#line_count(b),
        \ 'changedtick': vimrelay#util#tick(b), 'modified': getbufvar(b, '&modified') ? v:true : v:false}
endfunction

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
    call vimrelay#hidden#execute(a:b, 'silent update')
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

function! vimrelay#files#save(p) abort
  if get(a:p, 'start_by', v:null) isnot v:null && localtime() > a:p.start_by
    call vimrelay#util#fail('TIMEOUT', 'The editor could only start this call after its deadline had passed, so nothing was done.',
          \ {'hint': 'The editor was busy or waiting on a prompt. Once get_state_brief answers, retry if the call is still wanted.'})
  endif
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
