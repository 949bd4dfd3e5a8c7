" The CTRL-C watchdog of run_command and send_keys (as util.lua's M.with_interrupt): a command or
" keys still waiting after `timeout_ms`, typically on a prompt (input(), getchar(), confirm(),
" :s///c), are interrupted, leaving Vim usable. The watchdog cannot stop a command that computes
" (a Vimscript loop, system()), nor a :s///c question in Ex mode reading a pipe (vim -es), which
" reads its answer without running timers: those hold Vim until they end, and the agent answers
" TIMEOUT at the call's deadline.

" The CTRL-C watchdog of one call: {'fired': whether it has interrupted, 'timer': its timer, and
" 'ttimeout': the user's [&ttimeout, &ttimeoutlen] while it has set them (below)}.
" Vim runs timers while it waits for a key, as a prompt does (and during :sleep), not while a
" command computes. When the call still waits after `timeout_ms`, and again every `timeout_ms`
" after (for a prompt that follows the first), the timer types CTRL-C as the keyboard would:
" feedkeys()'s L flag puts it in the input buffer, where the waiting prompt reads it, and t makes it
" set got_int, so that the command is aborted (Vim:Interrupt) as when the user presses CTRL-C.
" Two prompts get another key instead, and their command goes on with that answer (the call still
" fails with TIMEOUT and the commands after it do not run):
" - a :s///c or confirm() question (mode 'r?'): <Esc>, which quits it; got_int there has been
"   seen to close the channel. A lone <Esc> is also how key codes begin, so Vim would wait to see
"   whether more follows: 'ttimeoutlen' with 'ttimeout', else 'timeoutlen' ('timeout'), else until
"   the next key (:help 'ttimeout'). The watchdog sets 'ttimeout' and 'ttimeoutlen' 0 for it, and
"   `vimrelay#util#interrupt#stop` gives the user's values back;
" - an input() prompt in Ex mode (vim -e, gQ): an empty line; got_int there has been seen to
"   leave Vim blocked for good, reading a stdin pipe that stays open (vim -es).
function! vimrelay#util#interrupt#watch(timeout_ms) abort
  let watch = {'fired': v:false}
  let watch.timer = timer_start(a:timeout_ms, function('s:interrupt', [watch]), {'repeat': -1})
  return watch
endfunction

" Ends the watch: its timer, and the key code timeout it set (the user's own again).
function! vimrelay#util#interrupt#stop(watch) abort
  call timer_stop(a:watch.timer)
  if has_key(a:watch, 'ttimeout')
    let [&ttimeout, &ttimeoutlen] = a:watch.ttimeout
    call remove(a:watch, 'ttimeout')
  endif
endfunction

function! s:interrupt(watch, timer) abort
  let a:watch.fired = v:true
  let mode = mode(1)
  if mode ==# 'r?'
    if !has_key(a:watch, 'ttimeout')
      let a:watch.ttimeout = [&ttimeout, &ttimeoutlen]
    endif
    set ttimeout ttimeoutlen=0
    call feedkeys("\<Esc>", 'L')
  elseif mode =~# '^c[ev]' && getcmdtype() ==# '@'
    call feedkeys("\<CR>", 'L')
  else
    call feedkeys("\<C-c>", 'Lt')
  endif
endfunction
