" write_buffer on Vim: same contract as the Neovim tool (agent/editors/nvim/lua/write_buffer.lua).
" It runs inside one vimrelay#call, so the changedtick guard and the edit are atomic, and closes the
" undo block before and after its edit, so the edit is one undo step. It never writes the file. A
" path whose file exists on disk needs expected_changedtick as a buffer does: without one it is
" refused before any buffer is made, with one it is loaded into a new listed buffer, wiped again
" when the tick is stale, so that a refused call leaves no buffer behind. params.lines are the
" text's lines, each "\n" in one a NUL (:h NL-used-for-Nul): the text is never split here.

function! vimrelay#write_buffer#run(p) abort
  let expected = get(a:p, 'expected_changedtick', v:null)
  let [b, created, added] = vimrelay#util#write_target(a:p.buffer, expected)
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
