" find_and_replace on Vim: same contract as the Neovim tool (agent/editors/nvim/lua/find_and_replace.lua).
" It runs inside one vimrelay#call, so the changedtick guard and the edit are atomic, and closes the
" undo block before and after its edit, so the edit is one undo step. It never writes the file.
" params.old_lines and params.new_lines are the texts' lines. Occurrences are those in the buffer's
" lines joined with line breaks, overlapping ones included, found line by line: a NUL is a "\n" in
" a line's string (:h NL-used-for-Nul), so no text joined with "\n" could tell it from a line break.

" Where `old` (lines) occurs in `lines`, in order: [[line (1-based), byte (0-based)], ...]. The
" lines to check are found with match() (native; a literal, exact-case pattern finds a superset of
" them), anchored on the first line of `old` that is not empty.
function! s:occurrences(lines, old) abort
  let anchor = max([0, index(map(copy(a:old), '!empty(v:val)'), 1)])
  let pattern = s:line_pattern(a:old, anchor)
  let found = []
  let at = match(a:lines, pattern, anchor)
  while at >= 0 && at - anchor + len(a:old) <= len(a:lines)
    call extend(found, s:occurrences_from(a:lines, a:old, at - anchor))
    let at = match(a:lines, pattern, at + 1)
  endwhile
  return found
endfunction

" A pattern for the lines that may be line j of an occurrence of `old`: one line of text holds it,
" the first of more ends with it, the last starts with it, the others are it.
function! s:line_pattern(old, j) abort
  let last = len(a:old) - 1
  return '\V\C' . (a:j > 0 ? '\^' : '') . escape(a:old[a:j], '\') . (a:j < last ? '\$' : '')
endfunction

" The occurrences of `old` that start on line i (0-based) of `lines`, as s:occurrences gives them:
" one line of text anywhere in it, overlapping ones too; more from the end of the line.
function! s:occurrences_from(lines, old, i) abort
  let line = a:lines[a:i]
  if len(a:old) == 1
    let found = []
    let at = stridx(line, a:old[0])
    while at >= 0
      call add(found, [a:i + 1, at])
      let at = stridx(line, a:old[0], at + 1)
    endwhile
    return found
  endif
  let n = len(a:old)
  let from = strlen(line) - strlen(a:old[0])
  if from >= 0 && strpart(line, from) ==# a:old[0] && a:lines[a:i + 1 : a:i + n - 2] ==# a:old[1 : -2]
        \ && stridx(a:lines[a:i + n - 1], a:old[-1]) == 0
    return [[a:i + 1, from]]
  endif
  return []
endfunction

" The place at 0-based byte `byte` of line `line`: {line, col (chars), byte}.
function! s:place(lines, line, byte) abort
  return {'line': a:line, 'col': strchars(strpart(a:lines[a:line - 1], 0, a:byte)) + 1, 'byte': a:byte}
endfunction

function! vimrelay#find_and_replace#run(p) abort
  let b = vimrelay#util#resolve(a:p)
  call vimrelay#util#ensure_loaded(b)
  call vimrelay#util#check_modifiable(b)
  call vimrelay#util#check_tick(b, get(a:p, 'expected_changedtick', v:null))
  let lines = getbufline(b, 1, '$')
  let old = a:p.old_lines
  let found = s:occurrences(lines, old)
  if empty(found)
    call vimrelay#util#fail('NO_MATCH', 'old_text does not occur in the buffer. Nothing was changed.')
  elseif len(found) > 1
    let matches = map(found[: a:p.max_matches - 1], '{"line": v:val[0], "col": s:place(lines, v:val[0], v:val[1]).col}')
    call vimrelay#util#fail('MULTIPLE_MATCHES', 'old_text occurs ' . len(found) . ' times in the buffer. Nothing was changed.',
          \ {'match_count': len(found), 'matches': matches})
  endif
  let [line, byte] = found[0]
  let start = s:place(lines, line, byte)
  let stop = len(old) == 1 ? s:place(lines, line, byte + strlen(old[0])) : s:place(lines, line + len(old) - 1, strlen(old[-1]))
  let new_lines = a:p.new_lines
  call vimrelay#util#break_undo(b)
  call vimrelay#util#set_text(b, start.line, start.byte, stop.line, stop.byte, new_lines)
  call vimrelay#util#end_edit(b)
  let last = new_lines[-1]
  if len(new_lines) == 1
    let end = {'line': start.line, 'col': start.col + strchars(last)}
  else
    let end = {'line': start.line + len(new_lines) - 1, 'col': strchars(last) + 1}
  endif
  return {'buf': b, 'path': vimrelay#util#buf_path(b), 'changedtick': vimrelay#util#tick(b),
        \ 'start': {'line': start.line, 'col': start.col}, 'end': end}
endfunction
