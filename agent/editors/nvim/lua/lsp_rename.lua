-- lsp_rename: the edits the buffer's language server (lsp.lua) would make to rename the symbol at a
-- position, as a deferred answer: every file, and per file its edits (range, old and new text)
-- while the byte budget lasts (edit_count counts them all). With p.keep (the call will apply it),
-- the edit is kept under the call's token with what lsp_edit_apply.lua checks first
-- (lsp_edit.lua L.edit_preview): the ticks of the buffers loaded now, and the text of each file the
-- edit was computed on.
-- An edit to be applied writes the new name and nothing else: one that would put in other text (a
-- server adding code, or a prefix such as TypeScript's `area: ` for a shorthand property) fails
-- the call before anything is kept.
local M = ...
local L = M.lsp

-- Fails the call when edit `e` of `path` (a byte edit, lsp.lua) writes other text than `name`.
local function writes_only(client, path, e, name)
  if e.new == name then
    return
  end
  M.fail('EDITOR_ERROR', client.name .. "'s rename would write " .. vim.fn.json_encode((M.cut(e.new, 200))) .. ' in ' .. path .. ' at line ' .. (e.sr + 1) .. ', not the new name '
    .. vim.fn.json_encode(name) .. '; a rename is applied only when every edit writes the new name alone, so nothing was changed.', {
    hint = 'Call lsp_rename without apply to see every edit, then make the ones you want with apply_diff or find_and_replace.',
  })
end

return function(p)
  local b, client, enc = L.target(p, 'textDocument/rename')
  local tick = M.check_tick(b, p.expected_changedtick)
  local params = L.position_params(b, p.line, p.col, enc)
  params.newName = p.new_name
  local how = { tool = 'lsp_rename', what = 'the rename', client = client, enc = enc, buf = b, tick = tick, ticks = L.ticks() }
  function how.check(path, e)
    writes_only(client, path, e, p.new_name)
  end
  return L.request(p, client, 'textDocument/rename', params, function(result)
    if result == nil then
      M.fail('NO_MATCH', client.name .. ' found nothing to rename at line ' .. p.line .. ', column ' .. p.col .. '.', {
        hint = 'Put the position on the name itself (lsp_hover tells what is there).',
      })
    end
    return L.edit_preview(p, result, how)
  end)
end
