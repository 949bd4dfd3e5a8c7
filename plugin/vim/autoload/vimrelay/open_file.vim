" open_file on Vim: the same contract as the Neovim tool (agent/editors/nvim/lua/open_file.lua).
" It adds a file to the buffer list and loads it, showing it in the current window only on
" request; the path reaches Vim only as data (bufadd, bufload), never an Ex command line. show is
" refused, before anything is added, when it would abandon unsaved changes, and while the user is
" in the command-line window (vimrelay#util#refuse_in_cmdwin).

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

function! vimrelay#open_file#run(p) abort
  let b = vimrelay#util#find_by_path(a:p.path)
  let path = b ? vimrelay#util#absolute(fnamemodify(bufname(b), ':p')) : vimrelay#util#absolute(a:p.path)
  let type = s:disk_type(path)
  if !empty(type) && type !=# 'file'
    call vimrelay#util#fail('INVALID_ARGUMENT', path . ' is a ' . type . ', not a file.',
          \ {'hint': 'Pass the path of a regular file (or of a file to create).'})
  endif
  if a:p.show && bufnr('%') != b
    call vimrelay#util#refuse_in_cmdwin('Nothing was opened.')
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
    " A number, not a path, on the command line; silent: the file's line in :messages is not ours to leave.
    silent execute 'buffer' b
  endif
  return {'buf': b, 'path': vimrelay#util#buf_path(b), 'created': created, 'exists_on_disk': !empty(type) ? v:true : v:false,
        \ 'shown': bufnr('%') == b ? v:true : v:false, 'total_lines': vimrelay#util#line_count(b),
        \ 'changedtick': vimrelay#util#tick(b), 'modified': getbufvar(b, '&modified') ? v:true : v:false}
endfunction
