" lsp_hierarchy (lsp_calls and lsp_types), the twin of lua/lsp_hierarchy.lua: p.prepare names the
" symbol at the position, then p.method the symbols one step away from the first one it names, each
" {name, kind (p.kinds), path, line, col}; calls (p.field) also with `sites`, where the calls
" are (in the caller's file for incoming calls, in the symbol's own for outgoing ones); sorted by
" place and paged (an index cursor) under p.list, as a deferred answer.

" `item` (a CallHierarchyItem or TypeHierarchyItem) as a result names it.
function! s:symbol(read, item, p) abort
  let at = vimrelay#util#lsp#range(a:read, a:item.uri, get(a:item, 'selectionRange', a:item.range))
  return {'name': a:item.name, 'kind': get(a:p.kinds, a:item.kind - 1, 'unknown'),
        \ 'path': a:read.path(a:item.uri), 'line': at.line, 'col': at.col}
endfunction

function! s:prepared(result, state) abort
  let p = a:state.p
  let of = type(a:result) == v:t_list ? get(a:result, 0, v:null) : v:null
  if of is v:null
    let [what, names] = p.list ==# 'calls' ? ['function', 'function or method'] : ['type', 'class, interface or struct']
    call vimrelay#util#fail('NO_MATCH', a:state.client.name . ' names no ' . what . ' at line ' . p.line . ', column ' . p.col . '.',
          \ {'hint': 'Put the position on the name of a ' . names . ' (lsp_symbols lists them).'})
  endif
  let a:state.of = of
  return vimrelay#util#lsp#next(p.method, {'item': of}, function('s:stepped'))
endfunction

function! s:stepped(result, state) abort
  let p = a:state.p
  let read = vimrelay#util#lsp#reader(a:state.client)
  let all = []
  for r in a:result is v:null ? [] : a:result
    let item = s:symbol(read, has_key(p, 'field') ? r[p.field] : r, p)
    if has_key(p, 'field')
      " fromRanges lie in the caller (incoming: `from`), or in the symbol asked about (outgoing).
      let uri = p.field ==# 'from' ? r.from.uri : a:state.of.uri
      let item.sites = map(copy(get(r, 'fromRanges', [])), {_, range -> s:site(read, uri, range)})
    endif
    call add(all, item)
  endfor
  call vimrelay#util#lsp#sort_by_place(all)
  let [page, next] = vimrelay#util#lsp#page(all, vimrelay#util#lsp#first_after(get(p, 'cursor', v:null)), p)
  let out = {'server': a:state.client.name, 'of': s:symbol(read, a:state.of, p), 'total': len(all), 'truncated': next >= 0 ? v:true : v:false,
        \ 'cursor': next >= 0 ? string(next) : v:null, 'withheld': 0}
  let out[p.list] = page
  return out
endfunction

function! s:site(read, uri, range) abort
  let at = vimrelay#util#lsp#range(a:read, a:uri, a:range)
  return {'line': at.line, 'col': at.col}
endfunction

function! vimrelay#lsp_hierarchy#run(p) abort
  let [b, client] = vimrelay#util#lsp#target(a:p)
  let params = vimrelay#util#lsp#position_params(client, b, a:p.line, a:p.col)
  return vimrelay#util#lsp#request(a:p, b, client, a:p.prepare, params, function('s:prepared'), {'p': a:p})
endfunction
