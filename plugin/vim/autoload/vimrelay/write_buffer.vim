" write_buffer on Vim: same contract as the Neovim tool (agent/editors/nvim/lua/write_buffer.lua).
" It runs inside one vimrelay#call, so the changedtick guard and the edit are atomic, and closes the
" undo block before and after its edit, so the edit is one undo step. It never writes the file.

" The buffer for params.buffer and whether it was created (a path with neither buffer nor file).
function! s:target(ref) abort
  if type(a:ref) == v:t_number
    return [vimrelay#util#resolve({'buffer': a:ref}), v:false]
  endif
  let b = vimrelay#util#find_by_path(a:ref)
  if b != 0
    return [b, v:false]
  endif
  let path = vimrelay#util#absolute(a:ref)
  if isdirectory(path)
    call vimrelay#util#fail('INVALID_ARGUMENT', path . ' is a directory, not a file.')
  endif
  let exists = filereadable(path) || !empty(getftype(path))
  let b = bufadd(path)
  call setbufvar(b, '&buflisted', 1)
  return [b, exists ? v:false : v:true]
endfunction

function! vimrelay#write_buffer#run(p) abort
  let [b, created] = s:target(a:p.buffer)
  call vimrelay#util#ensure_loaded(b)
  let expected = get(a:p, 'expected_changedtick', v:null)
  if !created
    if expected is v:null
      call vimrelay#util#fail('INVALID_ARGUMENT', 'The buffer exists, so expected_changedtick is required. Nothing was changed.',
            \ {'current_changedtick': vimrelay#util#tick(b),
            \ 'hint': 'Call read_buffer to see the text you would replace, then pass its changedtick as expected_changedtick.'})
    endif
    call vimrelay#util#check_tick(b, expected)
    call vimrelay#util#check_modifiable(b)
  endif
  let text = a:p.text
  if text =~# "\n$"
    let text = text[: -2]
  endif
  call vimrelay#util#break_undo(b)
  call vimrelay#util#set_lines(b, 1, vimrelay#util#line_count(b), split(text, "\n", 1))
  call vimrelay#util#break_undo(b)
  return {'buf': b, 'path': vimrelay#util#buf_path(b), 'created': created, 'changedtick': vimrelay#util#tick(b),
        \ 'total_lines': vimrelay#util#line_count(b)}
endfunction
