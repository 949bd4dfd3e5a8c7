" get_diagnostics on Vim: same contract as the Neovim tool (agent/editors/nvim/lua/get_diagnostics.lua),
" over the diagnostics of ALE or vim-lsp (util/diagnostics.vim); with neither it answers UNSUPPORTED.
" Sorted by buffer, line, column (in the plugin's units), then severity, end and message; the cursor
" '<buf>:<line>:<col>:<skip>' names the first diagnostic not returned by its place and how many at
" that same place precede it; a page ends before max_results items or max_bytes of JSON. Columns
" are converted to characters with the buffer's text, or its file's when it is not loaded. The
" buffers of the files in `withheld` (by name or real path) count as having no diagnostics at all.

let s:severity_names = ['error', 'warn', 'info', 'hint']

" Compares a and b by the place a cursor names: buffer, line, column.
function! s:place_cmp(a, b) abort
  for key in ['bufnr', 'lnum', 'col']
    if a:a[key] != a:b[key]
      return a:a[key] < a:b[key] ? -1 : 1
    endif
  endfor
  return 0
endfunction

" The sort key of diagnostic d, the i-th collected: its place, severity (worst first), end (v:null
" before any number) and message, so that Vim's own sort() orders the keys as the contract says, in
" C: a comparison function in Vim script took most of each page's time (0.3 s of 0.36 for 500
" diagnostics of long messages). The numbers are fixed-width hex (none is below 0: lines from 1,
" columns from 0); the message compares bytewise, a message before any it begins: its bytes 0x01
" and 0x02 become 0x02 0x02 and 0x02 0x03, and a 0x01 ends it, before i.
function! s:key(d, i) abort
  let message = a:d.message
  if stridx(message, "\x01") >= 0 || stridx(message, "\x02") >= 0
    let message = substitute(message, "[\x01\x02]", '\="\x02" . nr2char(char2nr(submatch(0)) + 1)', 'g')
  endif
  return printf('%08x%08x%08x%08x%08x%08x%s' . "\x01" . '%d', a:d.bufnr, a:d.lnum, a:d.col, a:d.severity,
        \ a:d.end_lnum is v:null ? 0 : a:d.end_lnum + 1, a:d.end_col is v:null ? 0 : max([0, a:d.end_col + 1]), message, a:i)
endfunction

" `list` sorted by s:key.
function! s:sorted(list) abort
  let keys = sort(map(copy(a:list), {i, d -> s:key(d, i)}))
  return map(keys, {_, k -> a:list[str2nr(k[strridx(k, "\x01") + 1 :])]})
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

function! vimrelay#get_diagnostics#run(p) abort
  let scope = get(a:p, 'buffer', v:null) is v:null ? 0 : vimrelay#util#resolve(a:p)
  let all = vimrelay#util#diagnostics#collect(scope)
  if all is v:null
    call vimrelay#util#fail('UNSUPPORTED', 'Vim keeps no diagnostics itself, and neither ALE nor vim-lsp is loaded.',
          \ {'hint': 'Load ALE or vim-lsp in this Vim, or use a Neovim editor for diagnostics; or run the linter with '
          \ . 'run_command (e.g. ":make") and read the quickfix list with run_command ("clist").'})
  endif
  let wanted = get(a:p, 'severity', v:null) is v:null ? 0 : index(s:severity_names, a:p.severity) + 1
  let counts = {'error': 0, 'warn': 0, 'info': 0, 'hint': 0}
  let list = []
  for d in vimrelay#util#diagnostics#without(all, get(a:p, 'withheld', []))
    let counts[s:severity_names[d.severity - 1]] += 1
    if !wanted || d.severity == wanted || (a:p.severity_match ==# 'at_least' && d.severity < wanted)
      call add(list, d)
    endif
  endfor
  let list = s:sorted(list)

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
