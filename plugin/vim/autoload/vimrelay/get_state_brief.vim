" get_state_brief on Vim: mode, cwd, the active and alternate windows with cursor and context,
" buffers (listed first), modified buffers and terminals (the key only when there are any). Each
" list holds at most params.max_buffers entries and stops at params.max_bytes of JSON (windows are
" never left out); buffers_truncated says either happened. Same contract as the Neovim tool
" (agent/editors/nvim/lua/get_state_brief.lua). get_state (get_state.vim) builds on
" vimrelay#get_state_brief#run and vimrelay#util#window_view.

function! s:bool(x) abort
  return a:x ? v:true : v:false
endfunction

function! s:buffer_summary(info) abort
  let b = a:info.bufnr
  let loaded = a:info.loaded
  return {'buf': b, 'path': vimrelay#util#buf_path(b), 'name': bufname(b), 'listed': s:bool(a:info.listed),
        \ 'loaded': s:bool(loaded), 'modified': s:bool(a:info.changed),
        \ 'buftype': getbufvar(b, '&buftype'), 'filetype': getbufvar(b, '&filetype'),
        \ 'line_count': loaded ? a:info.linecount : v:null,
        \ 'changedtick': loaded ? a:info.changedtick : v:null}
endfunction

function! vimrelay#get_state_brief#run(p) abort
  let active = win_getid()
  let windows = [vimrelay#util#window_view(active, 'active', a:p)]
  let alternate = winnr('#') > 0 ? win_getid(winnr('#')) : 0
  if alternate != 0 && alternate != active
    call add(windows, vimrelay#util#window_view(alternate, 'alternate', a:p))
  endif
  let used = 0
  for w in windows
    let used += vimrelay#util#json_size(w)
  endfor
  let state = {'used': used, 'truncated': v:false}
  let infos = getbufinfo()
  let buffers = []
  let modified = []
  let terminals = []
  for info in filter(copy(infos), 'v:val.listed') + filter(copy(infos), '!v:val.listed')
    call s:add(state, buffers, s:buffer_summary(info), a:p)
  endfor
  for info in infos
    if info.changed
      call s:add(state, modified, info.bufnr, a:p)
    endif
    if getbufvar(info.bufnr, '&buftype') ==# 'terminal'
      call s:add(state, terminals, {'buf': info.bufnr, 'name': bufname(info.bufnr),
            \ 'visible': s:bool(!empty(win_findbuf(info.bufnr)))}, a:p)
    endif
  endfor
  let result = {'mode': mode(), 'cwd': getcwd(), 'buffers': buffers, 'buffers_truncated': state.truncated,
        \ 'modified_buffers': modified, 'windows': windows}
  if !empty(terminals)
    let result.terminals = terminals
  endif
  return result
endfunction

" Appends `item` to `list` within the entry cap and the byte budget; notes a truncation otherwise.
function! s:add(state, list, item, p) abort
  let size = vimrelay#util#json_size(a:item)
  if len(a:list) < a:p.max_buffers && a:state.used + size <= a:p.max_bytes
    call add(a:list, a:item)
    let a:state.used += size
  else
    let a:state.truncated = v:true
  endif
endfunction
