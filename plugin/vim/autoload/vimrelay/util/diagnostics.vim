" The diagnostics vimrelay reads on Vim, shared by get_diagnostics and get_state's summary. Vim keeps
" no diagnostics of its own: they are read from ALE when it is loaded (ale#engine#GetLoclist() of
" each buffer, items whose bufnr is that buffer; 'col' a 1-based byte, 'end_col' an inclusive byte;
" type E/W/I), else from vim-lsp
" (lsp#internal#diagnostics#state#_get_all_diagnostics_grouped_by_uri_and_server(): LSP diagnostics
" per file URI and server, positions 0-based in UTF-16 code units; files with no buffer are left
" out). With neither, collect() and summary() give v:null. `source` is the ALE linter, or the LSP
" diagnostic's source (else the server's name).

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
function! vimrelay#util#diagnostics#collect(scope) abort
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

" The diagnostics of `all` (collect's) but those of buffers holding one of the files `withheld`
" lists (absolute names or real paths; the agent's never_read, agent/editors/call.ts
" `withheldPaths`): such buffers count as having none.
function! vimrelay#util#diagnostics#without(all, withheld) abort
  if empty(a:withheld)
    return a:all
  endif
  let files = {}
  for path in a:withheld
    let files[path] = 1
  endfor
  let held = {}
  let kept = []
  for d in a:all
    if !has_key(held, d.bufnr)
      let path = bufexists(d.bufnr) ? vimrelay#util#buf_path(d.bufnr) : v:null
      let held[d.bufnr] = path isnot v:null && (has_key(files, path) || has_key(files, resolve(path)))
    endif
    if !held[d.bufnr]
      call add(kept, d)
    endif
  endfor
  return kept
endfunction

" get_state's summary: counts per severity, in total and per buffer (by number, at most
" `max_buffers`, each taken from `budget` ({used, max}, bytes of JSON)), leaving out the buffers
" of the files `withheld` lists (#without); v:null with no plugin.
function! vimrelay#util#diagnostics#summary(max_buffers, budget, withheld) abort
  let all = vimrelay#util#diagnostics#collect(0)
  if all is v:null
    return v:null
  endif
  let all = vimrelay#util#diagnostics#without(all, a:withheld)
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
