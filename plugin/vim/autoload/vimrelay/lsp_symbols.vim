" lsp_symbols, the twin of lua/lsp_symbols.lua: a buffer's symbols flattened in document order
" (pre-order, with depth and container), or the project's symbols matching p.query (sorted by
" place), from the buffer's language server (util/lsp.vim), as a deferred answer, one page at a
" time. ALE and vim-lsp ask for flat SymbolInformation lists; their tree comes from range
" containment (the container being the symbol a symbol nests in, else its containerName), as on
" Neovim for servers that answer so.

let s:kinds = ['file', 'module', 'namespace', 'package', 'class', 'method', 'property', 'field', 'constructor', 'enum', 'interface',
      \ 'function', 'variable', 'constant', 'string', 'number', 'boolean', 'array', 'object', 'key', 'null', 'enum_member', 'struct',
      \ 'event', 'operator', 'type_parameter']

function! s:symbol(read, s, uri, range, depth, container) abort
  let item = extend(vimrelay#util#lsp#file(a:read, a:uri), vimrelay#util#lsp#range(a:read, a:uri, a:range))
  let kind = get(a:s, 'kind', 0)
  let detail = get(a:s, 'detail', v:null)
  call extend(item, {'name': a:s.name, 'kind': type(kind) == v:t_number && kind >= 1 && kind <= len(s:kinds) ? s:kinds[kind - 1] : 'unknown',
        \ 'detail': type(detail) == v:t_string && !empty(detail) ? detail : v:null,
        \ 'container': type(a:container) == v:t_string && !empty(a:container) ? a:container : v:null, 'depth': a:depth})
  return item
endfunction

" The order of symbols x and y: by where their ranges start, the larger (containing) range first,
" then by name.
function! s:order(x, y) abort
  let [a, b] = [a:x.location.range, a:y.location.range]
  for [p, q] in [[a.start.line, b.start.line], [a.start.character, b.start.character], [b.end.line, a.end.line], [b.end.character, a.end.character]]
    if p != q
      return p < q ? -1 : 1
    endif
  endfor
  return a:x.name ==# a:y.name ? 0 : a:x.name <# a:y.name ? -1 : 1
endfunction

" Whether range `outer` contains range `inner` and is larger (equal ranges are siblings).
function! s:contains(outer, inner) abort
  let [os, oe, is, ie] = [a:outer.start, a:outer.end, a:inner.start, a:inner.end]
  return (os.line < is.line || (os.line == is.line && os.character <= is.character))
        \ && (oe.line > ie.line || (oe.line == ie.line && oe.character >= ie.character)) && a:outer != a:inner
endfunction

" A document's symbols in pre-order (see the header); DocumentSymbol trees are walked as they are.
function! s:document(read, uri, result) abort
  let out = []
  if !empty(a:result) && has_key(a:result[0], 'location')
    let open = []
    for s in sort(copy(a:result), function('s:order'))
      while !empty(open) && !s:contains(open[-1].location.range, s.location.range)
        call remove(open, -1)
      endwhile
      call add(out, s:symbol(a:read, s, a:uri, s.location.range, len(open), empty(open) ? get(s, 'containerName', v:null) : open[-1].name))
      call add(open, s)
    endfor
    return out
  endif
  " Siblings in document order, whatever order the server sent them in.
  let InOrder = {list -> sort(copy(list), {x, y -> s:order({'name': x.name, 'location': {'range': x.range}}, {'name': y.name, 'location': {'range': y.range}})})}
  let stack = map(reverse(InOrder(a:result)), '[v:val, 0, v:null]')
  while !empty(stack)
    let [s, depth, container] = remove(stack, -1)
    call add(out, s:symbol(a:read, s, a:uri, s.range, depth, container))
    call extend(stack, map(reverse(InOrder(get(s, 'children', []))), {_, c -> [c, depth + 1, s.name]}))
  endwhile
  return out
endfunction

function! s:shape(result, state) abort
  let p = a:state.p
  let read = vimrelay#util#lsp#reader(a:state.client)
  let result = a:result is v:null ? [] : a:result
  let workspace = has_key(p, 'query')
  if workspace
    let items = []
    for s in result
      let range = get(s.location, 'range', {'start': {'line': 0, 'character': 0}, 'end': {'line': 0, 'character': 0}})
      call add(items, s:symbol(read, s, s.location.uri, range, 0, get(s, 'containerName', v:null)))
    endfor
    call vimrelay#util#lsp#sort_by_place(items)
    let first = vimrelay#util#lsp#first_at(items, get(p, 'cursor', v:null))
  else
    let items = s:document(read, a:state.uri, result)
    let first = vimrelay#util#lsp#first_after(get(p, 'cursor', v:null))
  endif
  let [page, next] = vimrelay#util#lsp#page(items, first, p)
  return {'server': a:state.client.name, 'scope': workspace ? 'workspace' : 'document', 'total': len(items), 'symbols': page,
        \ 'truncated': next >= 0 ? v:true : v:false,
        \ 'cursor': next < 0 ? v:null : workspace ? vimrelay#util#lsp#place_cursor(items[next]) : string(next), 'withheld': 0}
endfunction

function! vimrelay#lsp_symbols#run(p) abort
  let [b, client] = vimrelay#util#lsp#target(a:p)
  let uri = vimrelay#util#lsp#uri(client, b)
  let [method, params] = has_key(a:p, 'query') ? ['workspace/symbol', {'query': a:p.query}] : ['textDocument/documentSymbol', {'textDocument': {'uri': uri}}]
  return vimrelay#util#lsp#request(a:p, b, client, method, params, function('s:shape'), {'p': a:p, 'uri': uri})
endfunction
