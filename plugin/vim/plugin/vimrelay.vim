" vimrelay: lets MCP clients read and edit this Vim's buffers through the local vimrelay agent.
" This file holds only the load guard, the commands and the optional auto-connect; the logic is in
" autoload/vimrelay.vim. See :help vimrelay.

" Vim 9.0: unix-socket channels, readblob() with a size, bit shifts (the handshake's HMAC).
if exists('g:loaded_vimrelay') || &compatible || v:version < 900 || !has('channel') || !has('timers') || !has('num64')
  finish
endif
let g:loaded_vimrelay = 1

command! -bar -nargs=? VimRelayConnect call vimrelay#connect(<q-args>)
command! -bar VimRelayDisconnect call vimrelay#disconnect()
command! -bar VimRelayStatus echo join(vimrelay#status(), "\n")
command! -bar VimRelayReview call vimrelay#review#go()
command! -bar VimRelayAccept call vimrelay#review#accept_here()
command! -nargs=? VimRelayReject call vimrelay#review#reject_here(<q-args>)

if get(g:, 'vimrelay_autoconnect', 0)
  augroup vimrelay_autoconnect
    autocmd!
    autocmd VimEnter * call vimrelay#connect('')
  augroup END
endif
