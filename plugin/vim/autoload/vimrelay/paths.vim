" paths: the absolute file paths a tool call addresses, for the agent's permission policy (path
" rules and never_read); the twin of agent/editors/nvim/lua/paths.lua. Not a catalog tool: the
" agent calls it before a call runs. params: addressing (agent/editors/tools/tool.ts `Addressing`:
" buffer, buffer_or_none, window_buffer, current, path, buffers_or_loaded, diagnosed, none) and
" only the call's buffer, buffers, path and window arguments. Returns {paths: [...]}: each addressed file's
" absolute name and, when it differs, its real path (resolve(): symlinks resolved). Buffer
" references resolve as the tools resolve them (vimrelay#util#find_by_path): a path that names no
" buffer counts as itself (the file a tool would open or create), and a number that names none
" fails with BUFFER_NOT_FOUND, as the tool itself would, so that nobody is asked to allow a call
" that cannot run.

function! s:add(out, path) abort
  if type(a:path) != v:t_string || empty(a:path)
    return
  endif
  for x in [a:path, resolve(a:path)]
    if index(a:out, x) < 0
      call add(a:out, x)
    endif
  endfor
endfunction

function! s:add_buf(out, b) abort
  if a:b > 0 && bufexists(a:b)
    call s:add(a:out, vimrelay#util#buf_path(a:b))
  endif
endfunction

" A buffer reference: a number, or a path (absolute or relative to the cwd).
function! s:add_ref(out, ref) abort
  if type(a:ref) == v:t_number
    call s:add_buf(a:out, vimrelay#util#resolve({'buffer': a:ref}))
  elseif type(a:ref) == v:t_string
    let b = vimrelay#util#find_by_path(a:ref)
    if b > 0
      call s:add_buf(a:out, b)
    else
      call s:add(a:out, vimrelay#util#absolute(a:ref))
    endif
  endif
endfunction

function! vimrelay#paths#run(p) abort
  let how = get(a:p, 'addressing', '')
  let out = []
  if how ==# 'path'
    if type(get(a:p, 'path', v:null)) == v:t_string
      call s:add(out, vimrelay#util#absolute(a:p.path))
    endif
  elseif how ==# 'buffers_or_loaded'
    if type(get(a:p, 'buffers', v:null)) == v:t_list
      for ref in a:p.buffers
        call s:add_ref(out, ref)
      endfor
    else
      for info in getbufinfo({'bufloaded': 1})
        call s:add_buf(out, info.bufnr)
      endfor
    endif
  elseif how ==# 'buffer_or_none'
    call s:add_ref(out, get(a:p, 'buffer', v:null))
  elseif how ==# 'window_buffer'
    if has_key(a:p, 'buffer')
      call s:add_ref(out, a:p.buffer)
    elseif type(get(a:p, 'window', v:null)) == v:t_number
      call s:add_buf(out, winbufnr(a:p.window))
    else
      call s:add_buf(out, bufnr('%'))
    endif
  elseif how ==# 'buffer'
    if has_key(a:p, 'buffer')
      call s:add_ref(out, a:p.buffer)
    else
      call s:add_buf(out, bufnr('%'))
    endif
  elseif how ==# 'current'
    call s:add_buf(out, bufnr('%'))
  elseif how ==# 'diagnosed'
    " ALE's or vim-lsp's (util/diagnostics.vim); with neither, no buffer has any.
    let [all, done] = [vimrelay#util#diagnostics#collect(0), {}]
    for d in all is v:null ? [] : all
      if !has_key(done, d.bufnr)
        let done[d.bufnr] = 1
        call s:add_buf(out, d.bufnr)
      endif
    endfor
  elseif how !=# 'none'
    call vimrelay#util#fail('INVALID_ARGUMENT', 'paths: unknown addressing ' . string(how) . '.')
  endif
  return {'paths': out}
endfunction
