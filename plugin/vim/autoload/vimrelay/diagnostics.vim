" get_diagnostics on Vim, and the diagnostics summary of get_state. Vim keeps no diagnostics of its
" own: they are read from ALE when it is loaded (ale#engine#GetLoclist() of each buffer, items whose
" bufnr is that buffer; 'col' a 1-based byte, 'end_col' an inclusive byte; type E/W/I), else from
" vim-lsp (lsp#internal#diagnostics#state#_get_all_diagnostics_grouped_by_uri_and_server(): LSP
" diagnostics per file URI and server, positions 0-based in UTF-16 code units; files with no
" buffer are left out). With neither, get_diagnostics answers UNSUPPORTED and the summary is null.
" Same contract as the Neovim tool (agent/editors/nvim/lua/get_diagnostics.lua): sorted by buffer,
" line, column (in the plugin's units), then severity, end and message; the cursor
" '<buf>:<line>:<col>:<skip>' names the first diagnostic not returned by its place and how many at
" that same place precede it; a page ends before max_results items or max_bytes of JSON. Columns
" are converted to characters with the buffer's text, or its file's when it is not loaded; `source`
" is the ALE linter, or the LSP diagnostic's source (else the server's name).

let s:severity_names = ['error', 'warn', 'info', 'hint']
let s:ale_severity = {'E': 1, 'W': 2, 'I': 3}

" 'ale', 'vim-lsp' or '' (none loaded).
function! s:provider() abort
  if exists('g:loaded_ale')
    return 'ale'
  elseif exists('g:lsp_loaded')
    return 'vim-lsp'
  endif
  return ''
endfunction

function! s:text(value) abort
  return type(a:value) == v:t_string ? a:value : string(a:value)
endfunction

" ALE's items of buffer b, as raw diagnostics: {bufnr, lnum, col, end_lnum, end_col, severity,
" message, source, code, unit}; lnum 1-based, col a 0-based byte offset, end_col ALE's inclusive
" 1-based byte (v:null when absent).
function! s:from_ale(b) abort
  let list = []
  for item in ale#engine#GetLoclist(a:b)
    if get(item, 'bufnr', a:b) != a:b
      continue
    endif
    let code = get(item, 'code', v:null)
    let lnum = max([1, item.lnum])
    call add(list, {'bufnr': a:b, 'lnum': lnum, 'col': max([0, get(item, 'col', 0) - 1]),
          \ 'end_lnum': max([lnum, get(item, 'end_lnum', lnum)]), 'end_col': get(item, 'end_col', v:null),
          \ 'severity': get(s:ale_severity, get(item, 'type', 'E'), 1), 'message': s:text(get(item, 'text', '')),
          \ 'source': get(item, 'linter_name', v:null), 'code': code is v:null ? v:null : s:text(code), 'unit': 'byte'})
  endfor
  return list
endfunction

" The path of a file: URI, or '' for another scheme. Percent escapes are bytes (of UTF-8 text),
" so each becomes the byte itself: a "\x.." string of two hex digits the pattern matched.
function! s:uri_path(uri) abort
  if a:uri !~? '^file://'
    return ''
  endif
  return substitute(a:uri[7 :], '%\(\x\x\)', '\=eval(''"\x'' . submatch(1) . ''"'')', 'g')
endfunction

" vim-lsp's diagnostics as raw diagnostics (col and end_col 0-based UTF-16 offsets, end
" exclusive), of buffer `scope` or of every buffer when scope is 0.
function! s:from_lsp(scope) abort
  let list = []
  for [uri, servers] in items(lsp#internal#diagnostics#state#_get_all_diagnostics_grouped_by_uri_and_server())
    let path = s:uri_path(uri)
    let b = empty(path) ? 0 : vimrelay#util#find_by_path(path)
    if b == 0 || (a:scope != 0 && b != a:scope)
      continue
    endif
    for [server, response] in items(servers)
      for d in get(get(response, 'params', {}), 'diagnostics', [])
        let severity = get(d, 'severity', 1)
        let severity = type(severity) == v:t_number ? severity : 1
        let code = get(d, 'code', v:null)
        call add(list, {'bufnr': b, 'lnum': d.range.start.line + 1, 'col': d.range.start.character,
              \ 'end_lnum': d.range.end.line + 1, 'end_col': d.range.end.character,
              \ 'severity': severity >= 1 && severity <= 4 ? severity : 1, 'message': s:text(get(d, 'message', '')),
              \ 'source': s:text(get(d, 'source', server)), 'code': code is v:null ? v:null : s:text(code), 'unit': 'utf16'})
      endfor
    endfor
  endfor
  return list
endfunction

" The raw diagnostics of buffer `scope` (0: every buffer), or v:null when no plugin provides any.
function! vimrelay#diagnostics#collect(scope) abort
  let provider = s:provider()
  if provider ==# 'ale'
    let list = []
    for b in a:scope != 0 ? [a:scope] : map(getbufinfo(), 'v:val.bufnr')
      call extend(list, s:from_ale(b))
    endfor
    return list
  elseif provider ==# 'vim-lsp'
    return s:from_lsp(a:scope)
  endif
  return v:null
endfunction

" Compares a and b by the place a cursor names: buffer, line, column.
function! s:place_cmp(a, b) abort
  for key in ['bufnr', 'lnum', 'col']
    if a:a[key] != a:b[key]
      return a:a[key] < a:b[key] ? -1 : 1
    endif
  endfor
  return 0
endfunction

" The sort order: place, then severity (worst first), end, message.
function! s:cmp(a, b) abort
  let c = s:place_cmp(a:a, a:b)
  if c != 0
    return c
  endif
  for key in ['severity', 'end_lnum', 'end_col']
    let [x, y] = [a:a[key] is v:null ? -1 : a:a[key], a:b[key] is v:null ? -1 : a:b[key]]
    if x != y
      return x < y ? -1 : 1
    endif
  endfor
  return a:a.message ==# a:b.message ? 0 : a:a.message <# a:b.message ? -1 : 1
endfunction

" Index (0-based) in sorted `list` of the first diagnostic the cursor names.
function! s:resume_index(list, cursor) abort
  if a:cursor is v:null
    return 0
  endif
  let [b, l, c, skip] = map(split(a:cursor, ':'), 'str2nr(v:val)')
  let at = {'bufnr': b, 'lnum': l, 'col': c}
  let i = 0
  while i < len(a:list) && s:place_cmp(a:list[i], at) < 0
    let i += 1
  endwhile
  while skip > 0 && i < len(a:list) && s:place_cmp(at, a:list[i]) >= 0
    let [i, skip] = [i + 1, skip - 1]
  endwhile
  return i
endfunction

" The cursor that names list[i].
function! s:cursor_at(list, i) abort
  let d = a:list[a:i]
  let skip = 0
  while a:i - skip - 1 >= 0 && s:place_cmp(a:list[a:i - skip - 1], d) >= 0
    let skip += 1
  endwhile
  return d.bufnr . ':' . d.lnum . ':' . d.col . ':' . skip
endfunction

" Reads line `lnum` of buffer b: from the buffer when loaded, else from its file (read once, up to
" the last line this page needs, kept in `files`); v:null when neither has it.
function! s:line(files, last, b, lnum) abort
  if bufloaded(a:b)
    return get(getbufline(a:b, a:lnum), 0, v:null)
  endif
  if !has_key(a:files, a:b)
    let path = bufexists(a:b) ? vimrelay#util#buf_path(a:b) : v:null
    let a:files[a:b] = path is v:null || !filereadable(path) ? [] : readfile(path, '', a:last[a:b])
  endif
  return get(a:files[a:b], a:lnum - 1, v:null)
endfunction

" 1-based character column of a 0-based byte offset (of the character that byte is part of);
" past the end: just after the line. Composing characters count, as everywhere in vimrelay.
function! s:byte_col(line, offset) abort
  let i = charidx(a:line, a:offset, 1)
  return i < 0 ? strchars(a:line) + 1 : i + 1
endfunction

" 1-based character column of a 0-based UTF-16 offset (a character beyond U+FFFF takes two units).
function! s:utf16_col(line, units) abort
  let [n, used, total] = [0, 0, strchars(a:line)]
  while n < total && used < a:units
    let used += strgetchar(a:line, n) > 0xFFFF ? 2 : 1
    let n += 1
  endwhile
  return n + 1
endfunction

" [start col, end col] of raw diagnostic d in characters, given its start and end lines' text
" (v:null when unknown: then the plugin's offsets + 1 stand in). The end is exclusive; an ALE item
" without end_col ends where it starts, as in Neovim.
function! s:columns(d, start_text, end_text) abort
  if a:d.unit ==# 'utf16'
    return [a:start_text is v:null ? a:d.col + 1 : s:utf16_col(a:start_text, a:d.col),
          \ a:end_text is v:null ? a:d.end_col + 1 : s:utf16_col(a:end_text, a:d.end_col)]
  endif
  let start = a:start_text is v:null ? a:d.col + 1 : s:byte_col(a:start_text, a:d.col)
  if a:d.end_col is v:null || a:d.end_col < 1
    return [start, a:d.end_lnum == a:d.lnum ? start : 1]
  endif
  if a:end_text is v:null
    return [start, a:d.end_col + 1]
  endif
  " The inclusive end byte lies in some character: the range ends just after it.
  return [start, a:d.end_col > strlen(a:end_text) ? strchars(a:end_text) + 1 : s:byte_col(a:end_text, a:d.end_col - 1) + 1]
endfunction

function! vimrelay#diagnostics#get(p) abort
  let scope = get(a:p, 'buffer', v:null) is v:null ? 0 : vimrelay#util#resolve(a:p)
  let all = vimrelay#diagnostics#collect(scope)
  if all is v:null
    call vimrelay#util#fail('UNSUPPORTED', 'Vim keeps no diagnostics itself, and neither ALE nor vim-lsp is loaded.',
          \ {'hint': 'Load ALE or vim-lsp in this Vim, or use a Neovim editor for diagnostics; or run the linter with '
          \ . 'run_command (e.g. ":make") and read the quickfix list with run_command ("clist").'})
  endif
  let wanted = get(a:p, 'severity', v:null) is v:null ? 0 : index(s:severity_names, a:p.severity) + 1
  let counts = {'error': 0, 'warn': 0, 'info': 0, 'hint': 0}
  let list = []
  for d in all
    let counts[s:severity_names[d.severity - 1]] += 1
    if !wanted || d.severity == wanted || (a:p.severity_match ==# 'at_least' && d.severity < wanted)
      call add(list, d)
    endif
  endfor
  call sort(list, function('s:cmp'))

  let first = s:resume_index(list, get(a:p, 'cursor', v:null))
  let last = min([len(list), first + a:p.max_results]) - 1
  let last_line = {}
  for d in list[first : last]
    let last_line[d.bufnr] = max([get(last_line, d.bufnr, 0), d.lnum, d.end_lnum])
  endfor
  let files = {}
  let out = []
  let used = 0
  let next = -1
  for i in range(first, last)
    let d = list[i]
    let message = vimrelay#util#cut(d.message, a:p.message_bytes)
    let cut = message !=# d.message ? v:true : v:false
    let [col, end_col] = s:columns(d, s:line(files, last_line, d.bufnr, d.lnum), s:line(files, last_line, d.bufnr, d.end_lnum))
    let item = {'buf': d.bufnr, 'path': bufexists(d.bufnr) ? vimrelay#util#buf_path(d.bufnr) : v:null,
          \ 'line': d.lnum, 'col': col, 'end_line': d.end_lnum, 'end_col': end_col,
          \ 'severity': s:severity_names[d.severity - 1], 'message': message, 'message_truncated': cut,
          \ 'source': d.source, 'code': d.code}
    let size = vimrelay#util#json_size(item)
    if used + size > a:p.max_bytes
      let next = i
      break
    endif
    let used += size
    call add(out, item)
  endfor
  if next < 0 && last + 1 < len(list)
    let next = last + 1
  endif
  return {'diagnostics': out, 'total': len(list), 'counts': counts, 'truncated': next >= 0 ? v:true : v:false,
        \ 'cursor': next >= 0 ? s:cursor_at(list, next) : v:null}
endfunction

" get_state's summary: counts per severity, in total and per buffer (by number, at most
" `max_buffers`, each taken from `budget` ({used, max}, bytes of JSON)); v:null with no plugin.
function! vimrelay#diagnostics#summary(max_buffers, budget) abort
  let all = vimrelay#diagnostics#collect(0)
  if all is v:null
    return v:null
  endif
  let summary = {'error': 0, 'warn': 0, 'info': 0, 'hint': 0, 'buffers': [], 'buffers_truncated': v:false}
  let per_buf = {}
  for d in all
    let name = s:severity_names[d.severity - 1]
    let summary[name] += 1
    if !has_key(per_buf, d.bufnr)
      let per_buf[d.bufnr] = {'buf': d.bufnr, 'path': vimrelay#util#buf_path(d.bufnr), 'error': 0, 'warn': 0, 'info': 0, 'hint': 0}
    endif
    let per_buf[d.bufnr][name] += 1
  endfor
  for b in sort(map(keys(per_buf), 'str2nr(v:val)'), 'n')
    let size = vimrelay#util#json_size(per_buf[b])
    if len(summary.buffers) >= a:max_buffers || a:budget.used + size > a:budget.max
      let summary.buffers_truncated = v:true
      break
    endif
    let a:budget.used += size
    call add(summary.buffers, per_buf[b])
  endfor
  return summary
endfunction
