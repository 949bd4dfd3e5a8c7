" lsp_references, the twin of lua/lsp_references.lua: every reference to the symbol at a position,
" from the buffer's language server (util/lsp.vim), as a deferred answer: sorted by path, line and column,
" one page at a time (a place cursor), grouped by file, each with the text of its line.

function! s:shape(result, state) abort
  let p = a:state.p
  let read = vimrelay#util#lsp#reader(a:state.client)
  let all = []
  for loc in vimrelay#util#lsp#locations(a:result)
    let item = vimrelay#util#lsp#range(read, loc.uri, loc.range)
    let item.path = read.path(loc.uri)
    let item.uri = loc.uri
    let item.text = vimrelay#util#cut(read.line(loc.uri, loc.range.start.line) ?? '', p.line_bytes)
    call add(all, item)
  endfor
  call vimrelay#util#lsp#sort_by_place(all)
  let [page, next] = vimrelay#util#lsp#page(all, vimrelay#util#lsp#first_at(all, get(p, 'cursor', v:null)), p)
  let files = []
  for item in page
    if empty(files) || files[-1].path !=# item.path
      call add(files, extend(vimrelay#util#lsp#file(read, item.uri), {'references': []}))
    endif
    call add(files[-1].references, filter(copy(item), 'v:key !=# "path" && v:key !=# "uri"'))
  endfor
  return {'server': a:state.client.name, 'total': len(all), 'files': files, 'truncated': next >= 0 ? v:true : v:false,
        \ 'cursor': next >= 0 ? vimrelay#util#lsp#place_cursor(all[next]) : v:null, 'withheld': 0}
endfunction

function! vimrelay#lsp_references#run(p) abort
  let [b, client] = vimrelay#util#lsp#target(a:p)
  let params = vimrelay#util#lsp#position_params(client, b, a:p.line, a:p.col)
  let params.context = {'includeDeclaration': a:p.include_declaration ? v:true : v:false}
  return vimrelay#util#lsp#request(a:p, b, client, 'textDocument/references', params, function('s:shape'), {'p': a:p})
endfunction
