" lsp_rename, the twin of lua/lsp_rename.lua: the edits the buffer's language server (util/lsp.vim) would
" make to rename the symbol at a position, as a deferred answer: every file, and its edits while the
" byte budget lasts. With p.keep the edit is kept under the call's token (util/deferred.vim) for
" lsp_rename_apply.vim, with the ticks of the buffers loaded now and the text of each file the edit
" was computed on. An edit to be applied writes the new name and nothing else (lsp_rename.lua).

" Fails the call when edit `e` of `path` (a byte edit, util/lsp.vim) writes other text than `name`.
function! s:writes_only(client, path, e, name) abort
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
  let read = vimrelay#util#lsp#reader(a:state.client)
  let [files, kept, cnt, truncated, used] = [[], [], 0, v:false, 0]
  for f in vimrelay#util#lsp#edit_files(a:result)
    let edits = vimrelay#util#lsp#byte_edits(read, f.uri, f.edits)
    let b = read.buf(f.uri)
    let entry = extend(vimrelay#util#lsp#file(read, f.uri), {'buf': b > 0 ? b : v:null, 'changedtick': v:null, 'edits': []})
    if p.keep
      for e in edits
        call s:writes_only(a:state.client, entry.path, e, p.new_name)
      endfor
    endif
    " Every file is listed (the agent vets them all before an apply); edits while they fit.
    let used += vimrelay#util#json_size(entry)
    for e in edits
      let view = vimrelay#util#lsp#edit_view(read, f.uri, e)
      let size = vimrelay#util#json_size(view)
      if !truncated && used + size <= p.max_bytes
        let used += size
        call add(entry.edits, view)
      else
        let truncated = v:true
      endif
    endfor
    let cnt += len(edits)
    call add(files, entry)
    call add(kept, {'path': entry.path, 'buf': read.buf(f.uri), 'edits': edits, 'lines': read.all(f.uri)})
  endfor
  let out = {'server': a:state.client.name, 'applied': v:false, 'files': files, 'edit_count': cnt, 'truncated': truncated, 'withheld': 0}
  if p.keep
    call vimrelay#util#deferred#keep(p.answer_token, {'buf': a:state.b, 'tick': a:state.tick, 'ticks': a:state.ticks, 'files': kept,
          \ 'out': out, 'client': a:state.client, 'handle': a:state.handle})
  endif
  return out
endfunction

function! vimrelay#lsp_rename#run(p) abort
  let [b, client] = vimrelay#util#lsp#target(a:p)
  let tick = vimrelay#util#check_tick(b, get(a:p, 'expected_changedtick', v:null))
  let params = vimrelay#util#lsp#position_params(client, b, a:p.line, a:p.col)
  let params.newName = a:p.new_name
  " Buffers as the server will see them: an edit computed on this text applies to this text only.
  let ticks = {}
  for info in filter(getbufinfo(), 'v:val.loaded')
    let ticks[info.bufnr] = info.changedtick
  endfor
  return vimrelay#util#lsp#request(a:p, b, client, 'textDocument/rename', params, function('s:shape'), {'p': a:p, 'b': b, 'tick': tick, 'ticks': ticks})
endfunction
