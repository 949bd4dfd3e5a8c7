" paths: the absolute file paths a tool call addresses, for the agent's permission policy (path
" rules and never_read). Not a catalog tool: the agent calls it before a call runs.
" params: tool (a catalog tool name), args (only its buffer, buffers, path, window, all_buffers).
" Returns {paths: [...]}: each addressed file's absolute name and, when it differs, its real path
" (resolve(): symlinks resolved). The table of which tool addresses what is in
" agent/editors/paths.ts; buffer references resolve as the tools resolve them
" (vimrelay#util#find_by_path), but a reference that names no buffer never fails here: a path
" counts as itself, a number as nothing.

" Tools whose `buffer` defaults to the current buffer (exec and terminal tools have no `buffer`
" and act on the current one).
let s:current_default = ['read_buffer', 'find_and_replace', 'apply_diff', 'substitute', 'undo',
      \ 'redo', 'save_buffer', 'highlight_range', 'add_virtual_text', 'clear_decorations',
      \ 'write_buffer', 'run_command', 'send_keys', 'send_to_terminal']

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
    call s:add_buf(a:out, a:ref)
  elseif type(a:ref) == v:t_string
    let b = vimrelay#util#find_by_path(a:ref)
    if b > 0
      call s:add_buf(a:out, b)
    else
      call s:add(a:out, vimrelay#util#absolute(a:ref))
    endif
  endif
endfunction

function! vimrelay#paths#get(params) abort
  let tool = a:params.tool
  let args = get(a:params, 'args', {})
  if type(args) != v:t_dict
    let args = {}
  endif
  let out = []
  if tool ==# 'open_file'
    if type(get(args, 'path', v:null)) == v:t_string
      call s:add(out, vimrelay#util#absolute(args.path))
    endif
  elseif tool ==# 'grep_buffers'
    if type(get(args, 'buffers', v:null)) == v:t_list
      for ref in args.buffers
        call s:add_ref(out, ref)
      endfor
    else
      for info in getbufinfo({'bufloaded': 1})
        call s:add_buf(out, info.bufnr)
      endfor
    endif
  elseif tool ==# 'get_diagnostics'
    call s:add_ref(out, get(args, 'buffer', v:null))
  elseif tool ==# 'set_cursor'
    if has_key(args, 'buffer')
      call s:add_ref(out, args.buffer)
    elseif type(get(args, 'window', v:null)) == v:t_number
      call s:add_buf(out, winbufnr(args.window))
    else
      call s:add_buf(out, bufnr('%'))
    endif
  elseif index(s:current_default, tool) >= 0 && !(tool ==# 'clear_decorations' && get(args, 'all_buffers', v:false) is v:true)
    if has_key(args, 'buffer')
      call s:add_ref(out, args.buffer)
    else
      call s:add_buf(out, bufnr('%'))
    endif
  endif
  return {'paths': out}
endfunction
