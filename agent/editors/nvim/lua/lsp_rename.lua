-- lsp_rename: the edits the buffer's language server (lsp.lua) would make to rename the symbol at a
-- position, as a deferred answer: every file, and per file its edits (range, old and new text)
-- while the byte budget lasts (edit_count counts them all). With p.keep (the call will apply it),
-- the edit is kept under the call's token (core.lua M.keep) with what lsp_rename_apply.lua checks
-- first: the ticks of the buffers loaded now, and the text of each file the edit was computed on.
-- An edit to be applied writes the new name and nothing else: one that would put in other text (a
-- server adding code, or a prefix such as TypeScript's `area: ` for a shorthand property) fails
-- the call before anything is kept.
local M = ...
local L = M.lsp
local api = vim.api

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
  -- Buffers as the server will see them: an edit computed on this text applies to this text only.
  local ticks = {}
  for _, buf in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(buf) then
      ticks[buf] = api.nvim_buf_get_changedtick(buf)
    end
  end
  return L.request(p, client, 'textDocument/rename', params, function(result)
    if result == nil then
      M.fail('NO_MATCH', client.name .. ' found nothing to rename at line ' .. p.line .. ', column ' .. p.col .. '.', {
        hint = 'Put the position on the name itself (lsp_hover tells what is there).',
      })
    end
    local read, budget = L.reader(), L.budget(p)
    local files, kept, count, truncated = {}, {}, 0, false
    for _, f in ipairs(L.edit_files(result)) do
      local edits = L.byte_edits(read, f.uri, f.edits, enc)
      local entry = L.file(read, f.uri)
      if p.keep then
        for _, e in ipairs(edits) do
          writes_only(client, entry.path, e, p.new_name)
        end
      end
      entry.buf, entry.changedtick, entry.edits = read.buf(f.uri) or vim.NIL, vim.NIL, {}
      -- Every file is listed (the agent vets them all before an apply); edits while they fit.
      budget.take(entry, true)
      for _, e in ipairs(edits) do
        local view = L.edit_view(read, f.uri, e)
        if not truncated and budget.take(view) then
          entry.edits[#entry.edits + 1] = view
        else
          truncated = true
        end
      end
      count = count + #edits
      files[#files + 1] = entry
      kept[#kept + 1] = { path = entry.path, buf = read.buf(f.uri), edits = edits, lines = read.all(f.uri) }
    end
    local out = { server = client.name, applied = false, files = files, edit_count = count, truncated = truncated, withheld = 0 }
    if p.keep then
      M.keep(p.answer_token, { buf = b, tick = tick, ticks = ticks, files = kept, out = out })
    end
    return out
  end)
end
