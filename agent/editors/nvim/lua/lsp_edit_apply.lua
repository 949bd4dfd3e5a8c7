-- lsp_edit_apply: the second phase of lsp_rename, lsp_code_actions and lsp_format with apply
-- (tools/tool.ts CommitPhase): makes the edit the first phase kept under p.token, all or nothing,
-- everything checked before anything changes, one undo step per buffer, unsaved; then runs a code
-- action's server command, deferring the answer until the server has run it (lua/lsp_edit.lua
-- L.apply_kept). params: token, expected_changedtick, start_by, answer_token.
local M = ...

return function(p)
  return M.lsp.apply_kept(p)
end
