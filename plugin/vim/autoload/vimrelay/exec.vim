" run_command and send_keys on Vim: same contracts as the Neovim tools
" (agent/editors/nvim/lua/run_command.lua, send_keys.lua), with one difference: Vim has no CTRL-C
" watchdog here, so a command or keys that wait on a prompt (input(), getchar(), :s///c) block Vim
" until the prompt is answered; the agent answers TIMEOUT at the call's deadline, and `timeout_ms`
" is accepted but not enforced. A call Vim could only start after its deadline (start_by) does
" nothing. Commands run through execute(), inside a function: a variable without a scope prefix is
" local to that call, so commands use g:, b:, w: or s: variables to keep state.

" Fails with TIMEOUT when the call starts after `start_by` (unix seconds), as M.check_start_by.
" Also used by the other tools that may find Vim busy (terminal.vim).
function! vimrelay#exec#check_start_by(start_by) abort
  if a:start_by isnot v:null && localtime() > a:start_by
    call vimrelay#util#fail('TIMEOUT', 'The editor could only start this call after its deadline had passed, so nothing was done.',
          \ {'hint': 'The editor was busy or waiting on a prompt. Once get_state_brief answers, retry if the call is still wanted.'})
  endif
endfunction

" Bytes `s` takes inside a JSON string (Vim's json_encode escapes as JSON.stringify does).
function! s:json_size(s) abort
  return strlen(json_encode(a:s)) - 2
endfunction

" [the longest start of `s` whose JSON size is at most `max`, not splitting a character, whether it was cut].
function! s:json_cut(s, max) abort
  if s:json_size(a:s) <= a:max
    return [a:s, v:false]
  endif
  let lo = 0
  let hi = strchars(a:s)
  while lo < hi
    let mid = (lo + hi + 1) / 2
    if s:json_size(strcharpart(a:s, 0, mid)) <= a:max
      let lo = mid
    else
      let hi = mid - 1
    endif
  endwhile
  return [strcharpart(a:s, 0, lo), v:true]
endfunction

" What one command prints (without execute()'s leading newline); throws Vim's error.
function! s:exec(cmd) abort
  return substitute(execute(split(a:cmd, "\n")), '^\n', '', '')
endfunction

function! vimrelay#exec#run_command(p) abort
  call vimrelay#exec#check_start_by(get(a:p, 'start_by', v:null))
  let results = []
  let left = a:p.total_output_bytes
  let truncated = v:false
  let n = len(a:p.commands)
  call vimrelay#util#break_undo(bufnr('%'))
  for i in range(1, n)
    let cmd = a:p.commands[i - 1]
    try
      let out = s:exec(cmd)
    catch
      call vimrelay#util#break_undo(bufnr('%'))
      let vim_error = vimrelay#util#cut(v:exception, a:p.error_bytes)
      call vimrelay#util#fail('EDITOR_ERROR', 'Command ' . i . ' of ' . n . ' failed: ' . vim_error, {
            \ 'failed_index': i, 'command': vimrelay#util#cut(cmd, a:p.command_bytes), 'vim_error': vim_error,
            \ 'results': results, 'hint': 'Fix that command (see vim_error), then run it and the ones after it. '
            \ . (i - 1) . ' before it ran (their output is in `results`); ' . (n - i) . ' after it did not run.'})
    endtry
    let [kept, cut] = s:json_cut(out, min([a:p.max_output_bytes, left]))
    let left -= s:json_size(kept)
    let truncated = truncated || cut
    call add(results, {'index': i, 'output': kept, 'output_bytes': strlen(out), 'truncated': cut})
  endfor
  call vimrelay#util#break_undo(bufnr('%'))
  return {'results': results, 'count': n, 'output_truncated': truncated ? v:true : v:false}
endfunction

" Keys in Vim key notation ("dd<Esc>", "<C-w>v") as the bytes they stand for.
function! s:termcodes(keys) abort
  let s = substitute(escape(a:keys, '\"'), '<[^<> ]\+>', '\\&', 'g')
  return eval('"' . s . '"')
endfunction

function! vimrelay#exec#send_keys(p) abort
  call vimrelay#exec#check_start_by(get(a:p, 'start_by', v:null))
  let sent = '<Esc>' . a:p.keys
  let previous = v:errmsg
  let v:errmsg = ''
  " m: mappings apply; t: as if typed (history, undo, abbreviations); x: execute now, ending an
  " unfinished command or insert when the keys run out, as :normal does.
  " Inside a try (as every tool call is), an error the keys cause is thrown: it ends the keys, as
  " an error does in a mapping, and is reported as errmsg.
  try
    call feedkeys(s:termcodes(sent), 'mtx')
  catch
    let v:errmsg = substitute(v:exception, '^Vim\%((\a\+)\)\=:', '', '')
  endtry
  let errmsg = v:errmsg
  if empty(errmsg)
    let v:errmsg = previous
  endif
  let b = bufnr('%')
  let pos = getcurpos()
  return {'sent': sent, 'mode': mode(1), 'buf': b, 'path': vimrelay#util#buf_path(b),
        \ 'cursor': {'line': pos[1], 'col': vimrelay#util#char_col(getline(pos[1]), pos[2])},
        \ 'errmsg': empty(errmsg) ? v:null : vimrelay#util#cut(errmsg, a:p.error_bytes)}
endfunction
