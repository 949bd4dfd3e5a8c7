" Proposals for reviews on Vim: the same contract as the Neovim one (agent/editors/nvim/lua/propose.lua).
" vimrelay#propose#run(fn, params, opts) resolves the real buffer (made as write_buffer makes it
" for opts.creates and a path with no buffer), checks it as the tool would, copies its lines (at
" most opts.max_lines) and the options tools read into a new hidden scratch buffer, calls
" fn(params) on the copy with every autocommand ignored, wipes the copy, and returns {result: the
" tool's data with the real buffer's buf, path and (unchanged) changedtick; base_tick; base: its
" lines; proposed: the copy's lines after the tool; made}. A failure wipes a buffer made for it.

" The buffer options a tool may read or set besides the lines.
let s:copied = ['endofline', 'fixendofline', 'fileformat', 'expandtab', 'shiftwidth', 'tabstop', 'softtabstop', 'textwidth']

" The real buffer, whether it was made now, and whether for a path with no file.
function! s:real_buffer(params, opts) abort
  if !get(a:opts, 'creates', 0)
    let b = vimrelay#util#resolve(a:params)
    call vimrelay#util#ensure_loaded(b)
    return [b, v:false, v:false]
  endif
  let [b, created, added] = vimrelay#util#write_target(a:params.buffer, get(a:params, 'expected_changedtick', v:null))
  call vimrelay#util#ensure_loaded(b)
  return [b, created || added ? v:true : v:false, created]
endfunction

" The tool's data and the copy's lines after fn(params) ran on a copy of b holding `base`.
function! s:run_on_copy(fn, params, b, base) abort
  let copy = bufadd('')
  call setbufvar(copy, '&buftype', 'nofile')
  call setbufvar(copy, '&swapfile', 0)
  call setbufvar(copy, '&bufhidden', 'hide')
  call bufload(copy)
  for name in s:copied
    call setbufvar(copy, '&' . name, getbufvar(a:b, '&' . name))
  endfor
  call setbufline(copy, 1, a:base)
  let p = deepcopy(a:params)
  let p.buffer = copy
  " The real buffer's tick was checked already; the copy's always matches (and write_buffer, which
  " asks for one for any buffer that exists, gets it).
  let p.expected_changedtick = vimrelay#util#tick(copy)
  try
    let result = call(a:fn, [p])
    return [result, getbufline(copy, 1, '$')]
  finally
    execute 'bwipeout!' copy
  endtry
endfunction

function! vimrelay#propose#run(fn, params, opts) abort
  let [b, made, created] = s:real_buffer(a:params, a:opts)
  let ignored = &eventignore
  try
    call vimrelay#util#check_modifiable(b)
    if !made || get(a:params, 'expected_changedtick', v:null) isnot v:null
      call vimrelay#util#check_tick(b, get(a:params, 'expected_changedtick', v:null))
    endif
    let n = vimrelay#util#line_count(b)
    if n > a:opts.max_lines
      call vimrelay#util#fail('INVALID_ARGUMENT', 'The buffer has ' . n . ' lines, more than the ' . a:opts.max_lines
            \ . ' a review shows. Nothing was changed.',
            \ {'hint': 'Ask the user to let this edit through without a review, or to review a smaller file.'})
    endif
    let base_tick = vimrelay#util#tick(b)
    let base = getbufline(b, 1, '$')
    set eventignore=all
    let [result, proposed] = s:run_on_copy(a:fn, a:params, b, base)
  catch
    let &eventignore = ignored
    if made
      execute 'bwipeout!' b
    endif
    " Vim's own errors cannot be thrown again as they are (E608).
    throw v:exception =~# '^Vim' ? 'vimrelay: ' . v:exception : v:exception
  endtry
  let &eventignore = ignored
  let result.buf = b
  let result.path = vimrelay#util#buf_path(b)
  let result.changedtick = base_tick
  if has_key(result, 'created')
    let result.created = created
  endif
  return {'result': result, 'base_tick': base_tick, 'base': base, 'proposed': proposed, 'made': made}
endfunction
