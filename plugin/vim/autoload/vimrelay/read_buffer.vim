" read_buffer on Vim: one page of a buffer's live text with its changedtick, capped at
" params.max_lines lines and params.max_bytes bytes of JSON lines; says where to continue.
" Same contract as the Neovim tool (agent/editors/nvim/lua/read_buffer.lua).

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
  let lines = page_end >= first ? getbufline(b, first, page_end) : []
  let bytes = 0
  let kept = 0
  for line in lines
    let size = vimrelay#util#json_size(line)
    if bytes + size > a:p.max_bytes
      break
    endif
    let bytes += size
    let kept += 1
  endfor
  if kept == 0 && !empty(lines)
    call vimrelay#util#fail('UNSUPPORTED', 'Line ' . first . ' alone is ' . vimrelay#util#json_size(lines[0])
          \ . ' bytes as JSON, more than the ' . a:p.max_bytes . '-byte result cap.', {'line': first,
          \ 'line_bytes': strlen(lines[0]), 'hint': 'Read from start_line ' . (first + 1)
          \ . ' to skip it, or edit it with find_and_replace using a short, unique old_text.'})
  endif
  let returned_end = first + kept - 1
  let truncated = returned_end < last
  return {'buf': b, 'path': vimrelay#util#buf_path(b), 'changedtick': vimrelay#util#tick(b),
        \ 'total_lines': total, 'start_line': first, 'end_line': returned_end,
        \ 'lines': kept > 0 ? lines[: kept - 1] : [], 'truncated': truncated ? v:true : v:false,
        \ 'next_start_line': truncated ? returned_end + 1 : v:null}
endfunction
