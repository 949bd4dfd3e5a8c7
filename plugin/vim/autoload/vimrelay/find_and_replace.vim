" find_and_replace on Vim: same contract as the Neovim tool (agent/editors/nvim/lua/find_and_replace.lua).
" It runs inside one vimrelay#call, so the changedtick guard and the edit are atomic, and closes the
" undo block before and after its edit, so the edit is one undo step. It never writes the file.

" Byte offsets (0-based, ascending) in `text` -> [{line, col (chars), byte (0-based in its line)}].
function! s:positions(text, offsets) abort
  let out = []
  let line = 1
  let line_start = 0
  for offset in a:offsets
    while 1
      let nl = stridx(a:text, "\n", line_start)
      if nl < 0 || nl >= offset
        break
      endif
      let line += 1
      let line_start = nl + 1
    endwhile
    call add(out, {'line': line, 'col': strchars(strpart(a:text, line_start, offset - line_start)) + 1,
          \ 'byte': offset - line_start})
  endfor
  return out
endfunction

function! vimrelay#find_and_replace#run(p) abort
  let b = vimrelay#util#resolve(a:p)
  call vimrelay#util#ensure_loaded(b)
  call vimrelay#util#check_modifiable(b)
  call vimrelay#util#check_tick(b, get(a:p, 'expected_changedtick', v:null))
  let lines = getbufline(b, 1, '$')
  let text = join(lines, "\n")
  let old = a:p.old_text
  let found = 0
  let shown = []
  let at = stridx(text, old)
  while at >= 0
    let found += 1
    if len(shown) < a:p.max_matches
      call add(shown, at)
    endif
    let at = stridx(text, old, at + 1)
  endwhile
  if found == 0
    call vimrelay#util#fail('NO_MATCH', 'old_text does not occur in the buffer. Nothing was changed.')
  elseif found > 1
    let matches = map(s:positions(text, shown), '{"line": v:val.line, "col": v:val.col}')
    call vimrelay#util#fail('MULTIPLE_MATCHES', 'old_text occurs ' . found . ' times in the buffer. Nothing was changed.',
          \ {'match_count': found, 'matches': matches})
  endif
  let [start, stop] = s:positions(text, [shown[0], shown[0] + strlen(old)])
  let new_lines = split(a:p.new_text, "\n", 1)
  call vimrelay#util#break_undo(b)
  call vimrelay#util#set_text(b, start.line, start.byte, stop.line, stop.byte, new_lines)
  call vimrelay#util#break_undo(b)
  let last = new_lines[-1]
  if len(new_lines) == 1
    let end = {'line': start.line, 'col': start.col + strchars(last)}
  else
    let end = {'line': start.line + len(new_lines) - 1, 'col': strchars(last) + 1}
  endif
  return {'buf': b, 'path': vimrelay#util#buf_path(b), 'changedtick': vimrelay#util#tick(b),
        \ 'start': {'line': start.line, 'col': start.col}, 'end': end}
endfunction
