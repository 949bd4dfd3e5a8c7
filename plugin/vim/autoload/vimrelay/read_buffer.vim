" read_buffer on Vim: one page of a buffer's live text with its changedtick, capped at
" params.max_lines lines and params.max_bytes bytes of JSON lines; says where to continue.
" Same contract as the Neovim tool (agent/editors/nvim/lua/read_buffer.lua).

let s:FIRST_CHUNK = 256

function! vimrelay#read_buffer#run(p) abort
  let b = vimrelay#util#resolve(a:p)
  call vimrelay#util#ensure_loaded(b)
  let total = vimrelay#util#line_count(b)
  let first = get(a:p, 'start_line', 1)
  let last = get(a:p, 'end_line', total)
  if first > last
    let [first, last] = [last, first]
  endif
  let first = max([1, min([first, total])])
  let last = min([last, total])
  let page_end = min([last, first + a:p.max_lines - 1])
  " Fetched in chunks that double (s:FIRST_CHUNK lines first): a page that the byte cap ends early
  " (long lines) never copies out of the buffer the many lines after its end. One json_encode()
  " sizes a whole chunk (an array counts two more than its values, summed: util.vim json_size),
  " and the chunk that reaches the cap is cut by halving; a Vimscript loop over its lines cost
  " some 20 ms on 1,000 lines.
  let lines = []
  let bytes = 0
  let at = first
  let chunk = s:FIRST_CHUNK
  let full = v:false
  while at <= page_end && !full
    let upto = min([page_end, at + chunk - 1])
    let got = getbufline(b, at, upto)
    let size = vimrelay#util#json_size(got) - 2
    if bytes + size <= a:p.max_bytes
      let bytes += size
      call extend(lines, got)
    else
      " The most lines of it that fit, found by halving: a few json_encode() calls, not a loop.
      let [fit, over] = [0, len(got)]
      while over - fit > 1
        let mid = (fit + over) / 2
        if bytes + vimrelay#util#json_size(got[: mid - 1]) - 2 <= a:p.max_bytes
          let fit = mid
        else
          let over = mid
        endif
      endwhile
      if fit == 0 && empty(lines)
        call vimrelay#util#fail('UNSUPPORTED', 'Line ' . first . ' alone is ' . vimrelay#util#json_size(got[0])
              \ . ' bytes as JSON, more than the ' . a:p.max_bytes . '-byte result cap.', {'line': first,
              \ 'line_bytes': strlen(got[0]), 'hint': 'Read from start_line ' . (first + 1)
              \ . ' to skip it, or edit it with find_and_replace using a short, unique old_text.'})
      endif
      if fit > 0
        call extend(lines, got[: fit - 1])
      endif
      let full = v:true
    endif
    let at = upto + 1
    let chunk = chunk * 2
  endwhile
  let kept = len(lines)
  let returned_end = first + kept - 1
  let truncated = returned_end < last
  return {'buf': b, 'path': vimrelay#util#buf_path(b), 'changedtick': vimrelay#util#tick(b),
        \ 'total_lines': total, 'start_line': first, 'end_line': returned_end,
        \ 'lines': lines, 'truncated': truncated ? v:true : v:false,
        \ 'next_start_line': truncated ? returned_end + 1 : v:null}
endfunction
