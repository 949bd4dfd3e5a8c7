" lsp_edit_apply, the twin of lua/lsp_edit_apply.lua: the second phase of lsp_rename,
" lsp_code_actions and lsp_format with apply (agent/editors/tools/tool.ts CommitPhase): makes the
" edit the first phase kept under p.token, all or nothing, everything checked before anything
" changes, one undo step per buffer, unsaved; then runs a code action's server command, deferring
" the answer until the server has run it (util/lsp_edit.vim).
function! vimrelay#lsp_edit_apply#run(p) abort
  return vimrelay#util#lsp_edit#apply(a:p)
endfunction
