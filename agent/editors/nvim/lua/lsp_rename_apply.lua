-- lsp_rename_apply: the second phase of lsp_rename with apply (tools/tool.ts CommitPhase): makes
-- the edit lsp_rename.lua kept under p.token, all or nothing. Everything is checked before anything
-- changes (lua/lsp.lua rename_kept). Then each file's buffer (added and loaded when none holds it,
-- and listed) gets its edits, bottom-up, as one undo step; nothing is saved.
local M = ...
local api = vim.api

return function(p)
  local kept, bufs = M.lsp.rename_kept(p)
  for i, f in ipairs(kept.files) do
    local b = bufs[i] or vim.fn.bufadd(f.path)
    M.ensure_loaded(b)
    vim.bo[b].buflisted = true
    M.break_undo(b)
    for j = #f.edits, 1, -1 do
      local e = f.edits[j]
      M.set_text(b, e.sr, e.sc, e.er, e.ec, M.split_lines(e.new))
    end
    M.end_edit(b)
    kept.out.files[i].buf = b
    kept.out.files[i].changedtick = api.nvim_buf_get_changedtick(b)
  end
  kept.out.applied = true
  return kept.out
end
