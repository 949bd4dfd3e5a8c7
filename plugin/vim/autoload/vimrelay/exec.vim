" run_command and send_keys on Vim: same contracts as the Neovim tools
" (agent/editors/nvim/lua/run_command.lua, send_keys.lua). Both run under a CTRL-C watchdog
" (s:watch): a command or keys still waiting after `timeout_ms`, typically on a prompt (input(),
" getchar(), confirm(), :s///c), are interrupted and the call fails with TIMEOUT, leaving Vim
" usable. The watchdog cannot stop a command that computes (a Vimscript loop, system()), nor a
" :s///c question in Ex mode reading a pipe (vim -es), which reads its answer without running
" timers: those hold Vim until they end, and the agent answers TIMEOUT at the call's deadline. A
" call Vim could only start after its deadline (start_by) does nothing. Commands run through
" execute(), inside a function: a variable without a scope prefix is local to that call, so
" commands use g:, b:, w: or s: variables to keep state.

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

" The CTRL-C watchdog of one call: {'fired': whether it has interrupted, 'timer': its timer}.
" Vim runs timers while it waits for a key, as a prompt does (and during :sleep), not while a
" command computes. When the call still waits after `timeout_ms`, and again every `timeout_ms`
" after (for a prompt that follows the first), the timer types CTRL-C as the keyboard would:
" feedkeys()'s L flag puts it in the input buffer, where the waiting prompt reads it, and t makes it
" set got_int, so that the command is aborted (Vim:Interrupt) as when the user presses CTRL-C.
" Two prompts get another key instead, and their command goes on with that answer (the call still
" fails with TIMEOUT and the commands after it do not run):
" - a :s///c or confirm() question (mode 'r?'): <Esc>, which quits it; got_int there has been
"   seen to close the channel;
" - an input() prompt in Ex mode (vim -e, gQ): an empty line; got_int there has been seen to
"   leave Vim blocked for good, reading a stdin pipe that stays open (vim -es).
function! s:watch(timeout_ms) abort
  let watch = {'fired': v:false}
  let watch.timer = timer_start(a:timeout_ms, function('s:interrupt', [watch]), {'repeat': -1})
  return watch
endfunction

function! s:interrupt(watch, timer) abort
  let a:watch.fired = v:true
  let mode = mode(1)
  if mode ==# 'r?'
    call feedkeys("\<Esc>", 'L')
  elseif mode =~# '^c[ev]' && getcmdtype() ==# '@'
    call feedkeys("\<CR>", 'L')
  else
    call feedkeys("\<C-c>", 'Lt')
  endif
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
  let failed = 0
  call vimrelay#util#break_undo(bufnr('%'))
  let watch = s:watch(a:p.timeout_ms)
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
    call timer_stop(watch.timer)
  endtry
  call vimrelay#util#break_undo(bufnr('%'))
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
  let watch = s:watch(a:p.timeout_ms)
  " m: mappings apply; t: as if typed (history, undo, abbreviations); x: execute now, ending an
  " unfinished command or insert when the keys run out, as :normal does.
  " Inside a try (as every tool call is), an error the keys cause is thrown: it ends the keys, as
  " an error does in a mapping, and is reported as errmsg.
  try
    call feedkeys(s:termcodes(sent), 'mtx')
  catch
    let v:errmsg = substitute(v:exception, '^Vim\%((\a\+)\)\=:', '', '')
  finally
    call timer_stop(watch.timer)
  endtry
  " Not `errmsg`: unscoped, that name is v:errmsg itself (a Vi-compatible alias).
  let error = watch.fired ? '' : v:errmsg
  if empty(error)
    let v:errmsg = previous
  endif
  if watch.fired
    call vimrelay#util#fail('TIMEOUT', 'The keys still ran after ' . a:p.timeout_ms . ' ms and were interrupted with CTRL-C.', {
          \ 'sent': sent, 'mode': mode(1), 'hint': 'They probably reached a prompt that waits for input (such as input()). '
          \ . 'The keys before it took effect: check with get_state_brief. Send the answer with the keys, use run_command for Ex commands, or raise timeout_ms.'})
  endif
  let b = bufnr('%')
  let pos = getcurpos()
  return {'sent': sent, 'mode': mode(1), 'buf': b, 'path': vimrelay#util#buf_path(b),
        \ 'cursor': {'line': pos[1], 'col': vimrelay#util#char_col(getline(pos[1]), pos[2])},
        \ 'errmsg': empty(error) ? v:null : vimrelay#util#cut(error, a:p.error_bytes)}
endfunction
