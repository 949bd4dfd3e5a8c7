" vimrelay: lets MCP clients read and edit this Vim's buffers through the local vimrelay agent.
" This file holds only the load guard, the commands and the optional auto-connect; the logic is in
" autoload/vimrelay.vim. See :help vimrelay.

if exists('g:loaded_vimrelay') || &compatible || !exists('*ch_open') || !exists('*charidx') || !has('timers')
  finish
endif
let g:loaded_vimrelay = 1

command! -bar -nargs=? VimRelayConnect call vimrelay#connect(<q-args>)
command! -bar VimRelayDisconnect call vimrelay#disconnect()
command! -bar VimRelayStatus echo vimrelay#status()

if get(g:, 'vimrelay_autoconnect', 0)
  augroup vimrelay_autoconnect
    autocmd!
    autocmd VimEnter * call vimrelay#connect('')
  augroup END
endif
