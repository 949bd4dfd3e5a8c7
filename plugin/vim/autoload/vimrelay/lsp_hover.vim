" lsp_hover, the twin of lua/lsp_hover.lua: the hover text of the symbol at a position, from the
" buffer's language server (util/lsp.vim), as a deferred answer. ALE asks for plain text, which
" servers other than typescript-language-server then send, vim-lsp for markdown first; `format`
" says which came.

" MarkupContent | MarkedString | MarkedString[] (LSP 3.17 "Hover") -> [text, format].
function! s:contents(c) abort
  if type(a:c) == v:t_string
    return [a:c, 'markdown']
  elseif type(a:c) == v:t_dict && has_key(a:c, 'kind')
    return [a:c.value, a:c.kind is# 'plaintext' ? 'plaintext' : 'markdown']
  elseif type(a:c) == v:t_dict
    return ['```' . a:c.language . "\n" . a:c.value . "\n```", 'markdown']
  endif
  return [join(map(copy(a:c), 's:contents(v:val)[0]'), "\n\n"), 'markdown']
endfunction

function! s:shape(result, state) abort
  let p = a:state.p
  let out = {'server': a:state.client.name, 'format': v:null, 'text': v:null, 'text_truncated': v:false, 'signature': v:null, 'range': v:null}
  if a:result is v:null || !has_key(a:result, 'contents')
    return out
  endif
  let [text, format] = s:contents(a:result.contents)
  let out.format = format
  let out.text = vimrelay#util#cut(text, p.hover_bytes)
  let out.text_truncated = out.text !=# text ? v:true : v:false
  if format is# 'markdown'
    let m = matchlist(text, '```[[:alnum:]_+-]*\n\(\_.\{-}\)\n```')
    let signature = empty(m) ? v:null : m[1]
  else
    let signature = get(map(filter(split(text, "\n"), 'v:val =~# ''\S'''), 'trim(v:val)'), 0, v:null)
  endif
  let out.signature = signature is v:null ? v:null : vimrelay#util#cut(signature, p.hover_bytes)
  if has_key(a:result, 'range')
    let out.range = vimrelay#util#lsp#range(vimrelay#util#lsp#reader(a:state.client), a:state.uri, a:result.range)
  endif
  return out
endfunction

function! vimrelay#lsp_hover#run(p) abort
  let [b, client] = vimrelay#util#lsp#target(a:p)
  let params = vimrelay#util#lsp#position_params(client, b, a:p.line, a:p.col)
  return vimrelay#util#lsp#request(a:p, b, client, 'textDocument/hover', params, function('s:shape'), {'p': a:p, 'uri': params.textDocument.uri})
endfunction
