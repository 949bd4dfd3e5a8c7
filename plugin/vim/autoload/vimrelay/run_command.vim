" run_command on Vim: same contract as the Neovim tool (agent/editors/nvim/lua/run_command.lua).
" It runs under the CTRL-C watchdog (util/interrupt.vim): a command still waiting after
" `timeout_ms`, typically on a prompt, is interrupted and the call fails with TIMEOUT. A call Vim
" could only start after its deadline (start_by) does nothing. Commands run through execute(),
" inside a function: a variable without a scope prefix is local to that call, so commands use g:,
" b:, w: or s: variables to keep state.

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

function! vimrelay#run_command#run(p) abort
  call vimrelay#util#check_start_by(get(a:p, 'start_by', v:null))
  let results = []
  let left = a:p.total_output_bytes
  let truncated = v:false
  let n = len(a:p.commands)
  let failed = 0
  call vimrelay#util#break_undo(bufnr('%'))
  let watch = vimrelay#util#interrupt#watch(a:p.timeout_ms)
  try
    for i in range(1, n)
      try
        let out = s:exec(a:p.commands[i - 1])
      catch
        let [failed, vim_error] = [i, v:exception]
        break
      endtry
      if watch.fired
        let failed = i
        break
      endif
      let [kept, cut] = s:json_cut(out, min([a:p.max_output_bytes, left]))
      let left -= s:json_size(kept)
      let truncated = truncated || cut
      call add(results, {'index': i, 'output': kept, 'output_bytes': strlen(out), 'truncated': cut})
    endfor
  finally
    call vimrelay#util#interrupt#stop(watch)
  endtry
  call vimrelay#util#end_edit(bufnr('%'))
  if !failed
    return {'results': results, 'count': n, 'output_truncated': truncated ? v:true : v:false}
  endif

  let status = (failed - 1) . ' before it ran (their output is in `results`); ' . (n - failed) . ' after it did not run.'
  let details = {'failed_index': failed, 'command': vimrelay#util#cut(a:p.commands[failed - 1], a:p.command_bytes), 'results': results}
  if watch.fired
    let details.vim_error = 'Interrupted (CTRL-C) after ' . a:p.timeout_ms . ' ms.'
    let details.hint = 'The command was probably waiting on a prompt (input(), getchar(), :s///c) or ran too long. '
          \ . 'Use a form that does not prompt (e.g. :s without the c flag), or raise timeout_ms for a slow command. ' . status
    call vimrelay#util#fail('TIMEOUT', 'Command ' . failed . ' of ' . n . ' still ran after ' . a:p.timeout_ms . ' ms and was interrupted with CTRL-C.', details)
  endif
  let details.vim_error = vimrelay#util#cut(vim_error, a:p.error_bytes)
  let details.hint = 'Fix that command (see vim_error), then run it and the ones after it. ' . status
  call vimrelay#util#fail('EDITOR_ERROR', 'Command ' . failed . ' of ' . n . ' failed: ' . details.vim_error, details)
endfunction
