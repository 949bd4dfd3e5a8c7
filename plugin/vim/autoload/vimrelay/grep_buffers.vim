" grep_buffers on Vim: the same contract as the Neovim tool (agent/editors/nvim/lua/grep_buffers.lua).
" params: pattern, mode ('literal' | 'regex'), case_sensitive, buffers (refs, optional; default every
" loaded listed buffer), max_results, cursor ('<buf>:<line>:<byte>', optional), max_bytes,
" line_bytes, trim_context_bytes, scan_lines.
" Both modes are Vim regexes: literal text goes through very nomagic (\V), and \C / \c fixes the
" case whatever 'ignorecase' says. Buffers are searched in number order, lines in order, every
" non-overlapping match of a line in order; matchstrpos() with a count (so that ^ and \< still see
" the text before the start, :h matchstrpos()) finds each match. The page ends before max_results
" hits, max_bytes of JSON or scan_lines scanned lines would be passed; the cursor is where the next
" call resumes (the first hit not returned, or the first line not scanned).

" Lines read from a buffer at a time.
let s:chunk = 5000

" The Vim pattern for the search. Fails INVALID_ARGUMENT on a line break or an invalid regex.
function! s:compile(p) abort
  if stridx(a:p.pattern, "\n") >= 0
    call vimrelay#util#fail('INVALID_ARGUMENT', 'The pattern contains a line break; grep_buffers matches within one line.',
          \ {'hint': 'Search for one line of the text, then read_buffer around the hits.'})
  endif
  let pattern = a:p.mode ==# 'literal' ? '\V' . escape(a:p.pattern, '\') : a:p.pattern
  let pattern = (a:p.case_sensitive ? '\C' : '\c') . pattern
  try
    call match('', pattern)
  catch
    call vimrelay#util#fail('INVALID_ARGUMENT', 'Not a valid Vim regular expression: ' . substitute(v:exception, '^Vim\%((\a\+)\)\=:', '', ''),
          \ {'hint': 'Fix the pattern (Vim regex syntax: \( \) for groups, \| for alternatives), or pass mode "literal" to search for the text as it is.'})
  endtry
  return pattern
endfunction

" The buffers to search, in number order, and how many listed buffers were skipped as unloaded.
function! s:targets(refs) abort
  let list = []
  let unloaded = 0
  if a:refs isnot v:null
    for ref in a:refs
      let b = vimrelay#util#resolve({'buffer': ref})
      if index(list, b) < 0
        call vimrelay#util#ensure_loaded(b)
        call add(list, b)
      endif
    endfor
  else
    for info in getbufinfo({'buflisted': 1})
      if info.loaded
        call add(list, info.bufnr)
      else
        let unloaded += 1
      endif
    endfor
  endif
  return [sort(list, 'n'), unloaded]
endfunction

" The line, or a part of it starting trim_context_bytes before the match at byte s when it is too
" long: [text, the column it starts at, whether it was trimmed].
function! s:excerpt(line, s, p) abort
  if strlen(a:line) <= a:p.line_bytes
    return [a:line, 1, v:false]
  endif
  let from = max([0, a:s - a:p.trim_context_bytes])
  " Inside a character: move forward to the start of the next one.
  let index = charidx(a:line, from, 1)
  if byteidxcomp(a:line, index) < from
    let from = byteidxcomp(a:line, index + 1)
  endif
  return [vimrelay#util#cut(strpart(a:line, from), a:p.line_bytes), vimrelay#util#char_col(a:line, from + 1), v:true]
endfunction

function! s:page(hits, list, unloaded, cursor) abort
  return {'hits': a:hits, 'truncated': a:cursor is v:null ? v:false : v:true, 'cursor': a:cursor,
        \ 'searched_buffers': len(a:list), 'unloaded_buffers': a:unloaded}
endfunction

" Every hit from the cursor on, within the page's caps: [hits, the next page's cursor or v:null].
" A compiled Vim9 function (:def, Vim 9.0): the same loop in legacy Vimscript spent some 130 us a
" hit, a page of 200 hits 26.6 ms of Vim's time against 7.0 ms here.
def s:Search(p: dict<any>, pattern: string, list: list<number>, resume_buf: number, resume_line: number, resume_byte: number): list<any>
  var hits: list<dict<any>> = []
  var used = 0
  var scanned = 0
  for b in list
    if b < resume_buf
      continue
    endif
    var path = vimrelay#util#buf_path(b)
    var lnum = b == resume_buf ? resume_line : 1
    var total: number = vimrelay#util#line_count(b)
    while lnum <= total
      var top = lnum
      var got = getbufline(b, top, min([total, top + s:chunk - 1]))
      var i = 0
      while i < len(got)
        # The next line that holds a match, found by match() on the List, in C (a loop over every
        # line cost some 40 us a line); the line the cursor resumes in is searched from its byte,
        # whatever it holds. The lines passed over count as scanned, up to the cap.
        var resuming = b == resume_buf && top + i == resume_line
        var next = resuming ? i : match(got, pattern, i)
        next = next < 0 ? len(got) : next
        var step = next - i + (next < len(got) ? 1 : 0)
        if step > p.scan_lines - scanned
          return [hits, b .. ':' .. (top + i + p.scan_lines - scanned) .. ':0']
        endif
        scanned += step
        if next == len(got)
          break
        endif
        var row = top + next
        var line = got[next]
        var from = resuming ? resume_byte : 0
        while from <= strlen(line)
          var m = matchstrpos(line, pattern, from, 1)
          var start: number = m[1]
          var stop: number = m[2]
          if start < 0
            break
          endif
          var [text, text_col, trimmed] = s:excerpt(line, start, p)
          var hit = {'buf': b, 'path': path, 'line': row, 'col': vimrelay#util#char_col(line, start + 1),
                \ 'end_col': vimrelay#util#char_col(line, stop + 1), 'text': text, 'text_start_col': text_col, 'trimmed': trimmed}
          var size: number = vimrelay#util#json_size(hit)
          if len(hits) == p.max_results || used + size > p.max_bytes
            return [hits, b .. ':' .. row .. ':' .. start]
          endif
          used += size
          add(hits, hit)
          # After an empty match, step over one character so that the search moves on.
          from = stop > start ? stop : start + max([1, strlen(strcharpart(strpart(line, start), 0, 1))])
        endwhile
        i = next + 1
      endwhile
      lnum = top + len(got)
    endwhile
  endfor
  return [hits, v:null]
enddef

function! vimrelay#grep_buffers#run(p) abort
  let pattern = s:compile(a:p)
  let [list, unloaded] = s:targets(get(a:p, 'buffers', v:null))
  let [resume_buf, resume_line, resume_byte] = [0, 1, 0]
  let cursor = get(a:p, 'cursor', v:null)
  if cursor isnot v:null
    let [resume_buf, resume_line, resume_byte] = map(split(cursor, ':'), 'str2nr(v:val)')
  endif
  let [hits, next] = s:Search(a:p, pattern, list, resume_buf, resume_line, resume_byte)
  return s:page(hits, list, unloaded, next)
endfunction
