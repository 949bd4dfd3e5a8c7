" apply_diff on Vim: the same contract as the Neovim tool (agent/editors/nvim/lua/apply_diff.lua).
" params: buffer (number | path | null), expected_changedtick, hunks (as protocol/tools/unified-diff.ts
" makes them: index, header, start, old, edits {at, remove, add}, old_no_eol, new_no_eol),
" mismatch_lines, line_bytes, max_shifted.
" Every hunk is located first, against the live lines and in order: at its header's line (moved by
" the previous hunk's shift), else at the nearest line where its old lines match exactly, after the
" previous hunk; a hunk marked "\ No newline at end of file" must end at the last line. If any hunk
" has no place, DIFF_MISMATCH and nothing changes. Then the edits go in bottom-up (so that earlier
" positions stay valid), between two undo breaks, so the diff is one undo step. A diff that only
" inserts at the top (a new file's diff, "@@ -0,0 +1,n @@") replaces the one empty line Vim shows in
" a buffer that holds no text (vimrelay#util#holds_no_text: a 0-byte file); a buffer that is one
" empty line ("\n") keeps it, after the inserted lines, as `diff` and `patch` count it.
" Line numbers below are 1-based; `lines` is a 0-based list.

" Whether `old` is at line `s` of `lines`.
function! s:matches_at(lines, old, s) abort
  if a:s < 1 || a:s + len(a:old) - 1 > len(a:lines)
    return 0
  endif
  return empty(a:old) || a:lines[a:s - 1 : a:s + len(a:old) - 2] ==# a:old
endfunction

" Where hunk `h` goes: [line >= lo nearest to `guess`, v:null], or [0, ambiguous] when it has no
" place (ambiguous: the two equally near candidates when that is why, else v:null).
function! s:locate(lines, h, guess, lo) abort
  let n = len(a:lines)
  let size = len(a:h.old)
  if a:h.old_no_eol || a:h.new_no_eol
    let s = n - size + 1
    return [s >= a:lo && s:matches_at(a:lines, a:h.old, s) ? s : 0, v:null]
  endif
  if size == 0
    return [a:guess >= a:lo && a:guess <= n + 1 ? a:guess : 0, v:null]
  endif
  let hi = n - size + 1
  if a:guess >= a:lo && a:guess <= hi && s:matches_at(a:lines, a:h.old, a:guess)
    return [a:guess, v:null]
  endif
  " Elsewhere: the nearest start where the old lines match, among the lines that hold the first
  " of them, found by match() on the List, in C (a Vimscript loop over every line kept Vim busy
  " half a second on a 20,000-line buffer). Two equally near ones are ambiguous.
  let pattern = '\V\C\^' . escape(a:h.old[0], '\') . '\$'
  let best = 0
  let at = match(a:lines, pattern, a:lo - 1)
  while at >= 0 && at + 1 <= hi
    let s = at + 1
    if best > 0 && s - a:guess > abs(best - a:guess)
      break
    endif
    if s:matches_at(a:lines, a:h.old, s)
      if best > 0 && abs(s - a:guess) == abs(best - a:guess)
        return [0, [best, s]]
      endif
      if best == 0 || abs(s - a:guess) < abs(best - a:guess)
        let best = s
      endif
    endif
    let at = match(a:lines, pattern, at + 1)
  endwhile
  return [best, v:null]
endfunction

" Fails with DIFF_MISMATCH for hunk `h`, which should apply at line `at`, showing the buffer there.
function! s:mismatch(p, b, lines, h, at, ambiguous) abort
  let n = len(a:lines)
  let first = max([1, min([a:at, n])])
  let last = min([n, first + max([len(a:h.old), 1]) - 1, first + a:p.mismatch_lines - 1])
  let shown = map(a:lines[first - 1 : last - 1], 'vimrelay#util#cut(v:val, a:p.line_bytes)')
  let details = {'hunk': a:h.index, 'header': a:h.header, 'current_changedtick': vimrelay#util#tick(a:b),
        \ 'buffer_lines': {'start_line': first, 'lines': n == 0 ? [] : shown, 'total_lines': n}}
  let where = 'at line ' . a:at
  for j in range(len(a:h.old))
    let l = a:at + j
    let actual = l >= 1 && l <= n ? a:lines[l - 1] : v:null
    if actual is v:null || actual !=# a:h.old[j]
      let details.line = l
      let details.expected = vimrelay#util#cut(a:h.old[j], a:p.line_bytes)
      let details.actual = actual is v:null ? v:null : vimrelay#util#cut(actual, a:p.line_bytes)
      let where = 'at line ' . l . ' (first differing line)'
      break
    endif
  endfor
  let what = 'Hunk ' . a:h.index . ' (' . a:h.header . ') does not match the buffer ' . where
  if a:ambiguous isnot v:null
    let what .= ', and its lines occur both at line ' . a:ambiguous[0] . ' and at line ' . a:ambiguous[1]
          \ . ', equally near: add context lines or fix the line numbers'
  elseif a:h.old_no_eol || a:h.new_no_eol
    let what .= '; it marks the end of the file ("\ No newline at end of file"), so it must match the last lines'
  elseif empty(a:h.old)
    let what = 'Hunk ' . a:h.index . ' (' . a:h.header . ') inserts before line ' . a:at . ', but the buffer has ' . n . ' lines'
  else
    let what .= ', and its lines occur nowhere else' . (a:h.index > 1 ? ' after the previous hunk' : '')
  endif
  call vimrelay#util#fail('DIFF_MISMATCH', what . '. Nothing was changed.', details)
endfunction

" Replaces `remove` lines of buffer b after line `after` with `add`: appends first, then deletes, so
" that the buffer is never emptied in between (Vim would keep one empty line).
function! s:replace(b, after, remove, add) abort
  let failed = 0
  if !empty(a:add)
    let failed = appendbufline(a:b, a:after + a:remove, a:add)
  endif
  if !failed && a:remove > 0
    let failed = deletebufline(a:b, a:after + 1, a:after + a:remove)
  endif
  if failed
    call vimrelay#util#fail('EDITOR_ERROR', 'Vim refused to change buffer ' . a:b . '.')
  endif
endfunction

function! vimrelay#apply_diff#run(p) abort
  let b = vimrelay#util#resolve(a:p)
  call vimrelay#util#ensure_loaded(b)
  call vimrelay#util#check_modifiable(b)
  call vimrelay#util#check_tick(b, get(a:p, 'expected_changedtick', v:null))
  let lines = getbufline(b, 1, '$')
  let hunks = a:p.hunks
  let empty_file = lines ==# [''] && len(hunks) == 1 && empty(hunks[0].old) && hunks[0].start == 1
        \ && vimrelay#util#holds_no_text(b)
  if empty_file
    let lines = []
  endif

  let starts = []
  let shifted = []
  let shifted_count = 0
  let offset = 0
  let lo = 1
  for h in hunks
    let [s, ambiguous] = s:locate(lines, h, h.start + offset, lo)
    if s == 0
      call s:mismatch(a:p, b, lines, h, h.start + offset, ambiguous)
    endif
    call add(starts, s)
    let offset = s - h.start
    let lo = s + len(h.old)
    if offset != 0
      let shifted_count += 1
      if len(shifted) < a:p.max_shifted
        call add(shifted, {'hunk': h.index, 'offset': offset})
      endif
    endif
  endfor

  let added = 0
  let removed = 0
  call vimrelay#util#break_undo(b)
  for i in range(len(hunks) - 1, 0, -1)
    let h = hunks[i]
    for e in reverse(copy(h.edits))
      call s:replace(b, starts[i] - 1 + e.at, e.remove, e.add)
      let added += len(e.add)
      let removed += e.remove
    endfor
  endfor
  if empty_file && added > 0
    " The empty line that stood for the empty file is now after the added lines.
    call deletebufline(b, added + 1)
  endif
  " The end-of-line marker of the file's last line, when the diff changes it (:h 'endofline').
  let last = hunks[-1]
  if last.new_no_eol && !last.old_no_eol
    call setbufvar(b, '&endofline', 0)
    call setbufvar(b, '&fixendofline', 0)
  elseif last.old_no_eol && !last.new_no_eol
    call setbufvar(b, '&endofline', 1)
  endif
  call vimrelay#util#end_edit(b)

  return {'buf': b, 'path': vimrelay#util#buf_path(b), 'changedtick': vimrelay#util#tick(b),
        \ 'total_lines': vimrelay#util#line_count(b), 'hunks_applied': len(hunks), 'lines_added': added,
        \ 'lines_removed': removed, 'shifted': shifted, 'shifted_count': shifted_count}
endfunction
