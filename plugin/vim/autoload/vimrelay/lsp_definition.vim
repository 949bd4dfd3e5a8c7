" lsp_definition, the twin of lua/lsp_definition.lua: the definition, declaration, type definition
" or implementations of the symbol at a position, from the buffer's language server (util/lsp.vim), as a
" deferred answer: locations in the server's order with context lines, one page at a time.

let s:method = {'definition': 'textDocument/definition', 'declaration': 'textDocument/declaration',
      \ 'type_definition': 'textDocument/typeDefinition', 'implementation': 'textDocument/implementation'}

function! s:shape(result, state) abort
  let p = a:state.p
  let read = vimrelay#util#lsp#reader(a:state.client)
  let items = []
  for loc in vimrelay#util#lsp#locations(a:result)
    let item = extend(vimrelay#util#lsp#file(read, loc.uri), vimrelay#util#lsp#range(read, loc.uri, loc.range))
    let item.context = vimrelay#util#lsp#context(read, loc.uri, loc.range.start.line, p.context_lines, p.line_bytes)
    call add(items, item)
  endfor
  let [page, next] = vimrelay#util#lsp#page(items, vimrelay#util#lsp#first_after(get(p, 'cursor', v:null)), p)
  return {'server': a:state.client.name, 'total': len(items), 'locations': page, 'truncated': next >= 0 ? v:true : v:false,
        \ 'cursor': next >= 0 ? string(next) : v:null, 'withheld': 0}
endfunction

function! vimrelay#lsp_definition#run(p) abort
  let [b, client] = vimrelay#util#lsp#target(a:p)
  return vimrelay#util#lsp#request(a:p, b, client, s:method[a:p.kind], vimrelay#util#lsp#position_params(client, b, a:p.line, a:p.col),
        \ function('s:shape'), {'p': a:p})
endfunction
