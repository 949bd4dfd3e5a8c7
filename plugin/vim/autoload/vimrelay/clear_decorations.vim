" clear_decorations on Vim: same contract as the Neovim tool (agent/editors/nvim/lua/clear_decorations.lua):
" only vimrelay's own decorations (util/decorations.vim) are ever removed.

function! vimrelay#clear_decorations#run(p) abort
  if get(a:p, 'all_buffers', v:false)
    let removed = 0
    for info in getbufinfo()
      let removed += vimrelay#util#decorations#clear(info.bufnr)
    endfor
    return {'removed': removed, 'buf': v:null, 'path': v:null}
  endif
  let b = vimrelay#util#resolve(a:p)
  let id = get(a:p, 'id', v:null)
  let removed = id is v:null ? vimrelay#util#decorations#clear(b) : (bufloaded(b) ? vimrelay#util#decorations#remove(b, id) : 0)
  return {'removed': removed, 'buf': b, 'path': vimrelay#util#buf_path(b)}
endfunction
