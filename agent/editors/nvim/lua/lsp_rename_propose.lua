-- lsp_rename_propose: lsp_rename with apply, under review (README "Reviews"): instead of the
-- second phase (lua/lsp_rename_apply.lua), what it would make of each file, nothing changed.
-- params: token, expected_changedtick, start_by, as lsp_rename_apply's. The kept edit is checked
-- as lsp_rename_apply checks it (lua/lsp.lua rename_kept: the position's buffer at its tick, every
-- file still the text the server saw), each file's buffer is added, loaded and listed when none
-- holds it (as the apply would), and its lines with the edits made on a copy are returned:
-- {result = the preview (applied false), files = {{buf, path, base_tick, base, proposed, made}}}.
local M = ...
local api = vim.api

return function(p)
  local kept, bufs = M.lsp.rename_kept(p)
  local files = {}
  for i, f in ipairs(kept.files) do
    local b = bufs[i]
    local made = not b
    if made then
      b = vim.fn.bufadd(f.path)
      vim.bo[b].buflisted = true
    end
    M.ensure_loaded(b)
    local base = api.nvim_buf_get_lines(b, 0, -1, true)
    local copy = api.nvim_create_buf(false, true)
    api.nvim_buf_set_lines(copy, 0, -1, true, base)
    for j = #f.edits, 1, -1 do
      local e = f.edits[j]
      api.nvim_buf_set_text(copy, e.sr, e.sc, e.er, e.ec, M.split_lines(e.new))
    end
    local proposed = api.nvim_buf_get_lines(copy, 0, -1, true)
    api.nvim_buf_delete(copy, { force = true })
    kept.out.files[i].buf = b
    kept.out.files[i].changedtick = api.nvim_buf_get_changedtick(b)
    files[i] = { buf = b, path = M.buf_path(b), base_tick = api.nvim_buf_get_changedtick(b), base = base, proposed = proposed, made = made }
  end
  return { result = kept.out, files = files }
end
