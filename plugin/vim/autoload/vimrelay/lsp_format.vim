" lsp_format, the twin of lua/lsp_format.lua: the edits the buffer's language server (util/lsp.vim)
" formats it with, the whole buffer (textDocument/formatting) or lines p.start_line..p.end_line
" (textDocument/rangeFormatting), as a deferred answer: a preview of one file's edits
" (util/lsp_edit.vim), kept for lsp_edit_apply.vim when p.keep. The formatting options are the
" buffer's: tabSize what shiftwidth() counts for it, insertSpaces its 'expandtab'.

function! s:shape(result, state) abort
  let uri = a:state.params.textDocument.uri
  let how = {'tool': 'lsp_format', 'what': 'the formatting', 'client': a:state.client, 'handle': a:state.handle, 'b': a:state.b,
        \ 'tick': a:state.tick, 'ticks': a:state.ticks}
  return vimrelay#util#lsp_edit#preview(a:state.p, {'changes': {uri: a:result is v:null ? [] : a:result}}, how)
endfunction

function! vimrelay#lsp_format#run(p) abort
  let [b, client] = vimrelay#util#lsp#target(a:p)
  let tick = vimrelay#util#check_tick(b, get(a:p, 'expected_changedtick', v:null))
  let shiftwidth = getbufvar(b, '&shiftwidth')
  let params = {'textDocument': {'uri': vimrelay#util#lsp#uri(client, b)},
        \ 'options': {'tabSize': shiftwidth > 0 ? shiftwidth : getbufvar(b, '&tabstop'), 'insertSpaces': getbufvar(b, '&expandtab') ? v:true : v:false}}
  let method = 'textDocument/formatting'
  if has_key(a:p, 'start_line')
    let method = 'textDocument/rangeFormatting'
    let last = get(getbufline(b, a:p.end_line), 0, '')
    let params.range = vimrelay#util#lsp#range_params(client, b, a:p.start_line, 1, a:p.end_line, strchars(last) + 1)
  endif
  let state = {'p': a:p, 'b': b, 'tick': tick, 'ticks': vimrelay#util#lsp_edit#ticks(), 'params': params}
  return vimrelay#util#lsp#request(a:p, b, client, method, params, function('s:shape'), state)
endfunction
