" lsp_edit_propose, the twin of lua/lsp_edit_propose.lua: the second phase of lsp_rename,
" lsp_code_actions and lsp_format with apply, under review: what the edit would make of each file,
" nothing changed (util/lsp_edit.vim).
function! vimrelay#lsp_edit_propose#run(p) abort
  return vimrelay#util#lsp_edit#propose(a:p)
endfunction
