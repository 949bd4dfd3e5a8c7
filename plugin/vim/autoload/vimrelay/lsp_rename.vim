" lsp_rename, the twin of lua/lsp_rename.lua: the edits the buffer's language server (util/lsp.vim) would
" make to rename the symbol at a position, as a deferred answer: every file, and its edits while the
" byte budget lasts. With p.keep the edit is kept under the call's token for lsp_edit_apply.vim
" (util/lsp_edit.vim), with the ticks of the buffers loaded now and the text of each file the edit
" was computed on. An edit to be applied writes the new name and nothing else (lsp_rename.lua).

" Fails the call when edit `e` of `path` (a byte edit, util/lsp.vim) writes other text than `name`.
function! s:writes_only(client, name, path, e) abort
  if a:e.new ==# a:name
    return
  endif
  call vimrelay#util#fail('EDITOR_ERROR', a:client.name . "'s rename would write " . json_encode(vimrelay#util#cut(a:e.new, 200)) . ' in ' . a:path
        \ . ' at line ' . (a:e.sr + 1) . ', not the new name ' . json_encode(a:name) . '; a rename is applied only when every edit writes the new name alone, so nothing was changed.',
        \ {'hint': 'Call lsp_rename without apply to see every edit, then make the ones you want with apply_diff or find_and_replace.'})
endfunction

function! s:shape(result, state) abort
  let p = a:state.p
  if a:result is v:null
    call vimrelay#util#fail('NO_MATCH', a:state.client.name . ' found nothing to rename at line ' . p.line . ', column ' . p.col . '.',
          \ {'hint': 'Put the position on the name itself (lsp_hover tells what is there).'})
  endif
  let how = {'tool': 'lsp_rename', 'what': 'the rename', 'client': a:state.client, 'handle': a:state.handle, 'b': a:state.b, 'tick': a:state.tick,
        \ 'ticks': a:state.ticks, 'Check': function('s:writes_only', [a:state.client, p.new_name])}
  return vimrelay#util#lsp_edit#preview(p, a:result, how)
endfunction

function! vimrelay#lsp_rename#run(p) abort
  let [b, client] = vimrelay#util#lsp#target(a:p)
  let tick = vimrelay#util#check_tick(b, get(a:p, 'expected_changedtick', v:null))
  let params = vimrelay#util#lsp#position_params(client, b, a:p.line, a:p.col)
  let params.newName = a:p.new_name
  let state = {'p': a:p, 'b': b, 'tick': tick, 'ticks': vimrelay#util#lsp_edit#ticks()}
  return vimrelay#util#lsp#request(a:p, b, client, 'textDocument/rename', params, function('s:shape'), state)
endfunction
