" write_buffer on Vim: same contract as the Neovim tool (agent/editors/nvim/lua/write_buffer.lua).
" It runs inside one vimrelay#call, so the changedtick guard and the edit are atomic, and closes the
" undo block before and after its edit, so the edit is one undo step. It never writes the file. A
" path whose file exists on disk needs expected_changedtick as a buffer does: without one it is
" refused before any buffer is made, with one it is loaded into a new listed buffer, wiped again
" when the tick is stale, so that a refused call leaves no buffer behind. params.lines are the
" text's lines, each "\n" in one a NUL (:h NL-used-for-Nul): the text is never split here.

" The buffer for params.buffer, whether it was created (a path with neither buffer nor file), and
" whether it was added for a file on disk.
function! s:target(ref, expected) abort
  if type(a:ref) == v:t_number
    return [vimrelay#util#resolve({'buffer': a:ref}), v:false, v:false]
  endif
  let b = vimrelay#util#find_by_path(a:ref)
  if b != 0
    return [b, v:false, v:false]
  endif
  let path = vimrelay#util#absolute(a:ref)
  if isdirectory(path)
    call vimrelay#util#fail('INVALID_ARGUMENT', path . ' is a directory, not a file.')
  endif
  let exists = filereadable(path) || !empty(getftype(path))
  if exists && a:expected is v:null
    call vimrelay#util#fail('INVALID_ARGUMENT', path . ' exists on disk, so expected_changedtick is required. Nothing was changed.',
          \ {'path': path, 'hint': 'Call open_file on the path, which gives its changedtick (read_buffer then shows its text), '
          \ . 'and pass that as expected_changedtick.'})
  endif
  let b = bufadd(path)
  call setbufvar(b, '&buflisted', 1)
  return [b, exists ? v:false : v:true, exists]
endfunction

function! vimrelay#write_buffer#run(p) abort
  let expected = get(a:p, 'expected_changedtick', v:null)
  let [b, created, added] = s:target(a:p.buffer, expected)
  call vimrelay#util#ensure_loaded(b)
  if !created
    if expected is v:null
      call vimrelay#util#fail('INVALID_ARGUMENT', 'The buffer exists, so expected_changedtick is required. Nothing was changed.',
            \ {'current_changedtick': vimrelay#util#tick(b),
            \ 'hint': 'Call read_buffer to see the text you would replace, then pass its changedtick as expected_changedtick.'})
    endif
    try
      call vimrelay#util#check_modifiable(b)
      call vimrelay#util#check_tick(b, expected)
    catch /^vimrelay-fail$/
      if added
        execute 'bwipeout!' b
      endif
      throw v:exception
    endtry
  endif
  call vimrelay#util#break_undo(b)
  call vimrelay#util#set_lines(b, 1, vimrelay#util#line_count(b), a:p.lines)
  call vimrelay#util#end_edit(b)
  return {'buf': b, 'path': vimrelay#util#buf_path(b), 'created': created, 'changedtick': vimrelay#util#tick(b),
        \ 'total_lines': vimrelay#util#line_count(b)}
endfunction
