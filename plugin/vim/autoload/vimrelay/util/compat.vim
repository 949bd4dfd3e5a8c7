" What differs between the Vims vimrelay supports (9.0 and newer), in one place, each found by what
" the running Vim does or has, never by its version: the tools call these and read the same on
" every Vim.

" Epoch milliseconds minus reltime() milliseconds, as readings of the wall clock have shown it at
" least to be. reltime() counts from a start of its own (the epoch on Vim 9.0 on Unix; the boot,
" CLOCK_MONOTONIC, on later Vims: :h reltime() says it is no wall clock): only its differences are
" time. Each reading narrows this: localtime() (whole seconds, so up to a second behind) and the
" agent's clock sent with each call (vimrelay#call's opts.now: behind by the message's trip).
let s:offset = v:null

" Takes `wall` (epoch milliseconds, read at or before now) into the clock's offset.
function! s:saw(wall, at) abort
  let offset = a:wall - a:at
  if s:offset is v:null || offset > s:offset
    let s:offset = offset
  endif
endfunction

" The agent's clock when it sent the call being run (epoch milliseconds).
function! vimrelay#util#compat#saw_wall_clock(epoch_ms) abort
  call s:saw(a:epoch_ms * 1.0, reltimefloat(reltime()) * 1000.0)
endfunction

" The wall clock in epoch milliseconds (a Float), never ahead of it: behind by at most the
" shortest trip of a call from the agent, or by under a second before any call came.
function! vimrelay#util#compat#now_ms() abort
  let at = reltimefloat(reltime()) * 1000.0
  call s:saw(localtime() * 1000.0, at)
  return s:offset + at
endfunction

" Whether prop_add() takes 'text' (virtual text, which came with patch 9.0.0067: has('patch-...') is
" how Vim names a feature that came with a patch, :h has-patch).
function! vimrelay#util#compat#has_virtual_text() abort
  return has('patch-9.0.0067')
endfunction
