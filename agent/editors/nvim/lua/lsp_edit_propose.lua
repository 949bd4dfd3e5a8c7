-- lsp_edit_propose: the second phase of lsp_rename, lsp_code_actions and lsp_format with apply,
-- under review (README "Reviews"): instead of lsp_edit_apply.lua, what the edit would make of each
-- file, nothing changed (lua/lsp_edit.lua L.propose_kept). params: as lsp_edit_apply's.
local M = ...

return function(p)
  return M.lsp.propose_kept(p)
end
