-- vimrelay's helpers for the lsp_* tools that edit (lsp_rename, lsp_code_actions, lsp_format): a
-- server's WorkspaceEdit as a preview of each file's edits, kept for the second phase (tools/tool.ts
-- CommitPhase) with what it was computed on, then checked and made (lsp_edit_apply.lua) or proposed
-- for a review (lsp_edit_propose.lua). A code action's server command runs after its edit, in the
-- second phase, as a deferred answer. Installed by core.lua after lsp.lua, into the same table:
-- `...` is that table (M); these live in M.lsp. Nothing runs on its own.
local M = ...
local L = M.lsp
local api = vim.api

--- The changedticks of the loaded buffers now, by buffer: an edit computed on this text applies to
--- this text only.
function L.ticks()
  local ticks = {}
  for _, buf in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(buf) then
      ticks[buf] = api.nvim_buf_get_changedtick(buf)
    end
  end
  return ticks
end

--- The preview of WorkspaceEdit `edit` (lsp.lua L.edit_files refuses one that creates, renames or
--- deletes files): every file, and per file its edits (range, old and new text) while the byte
--- budget lasts (edit_count counts them all), as {server, applied = false, files, edit_count,
--- truncated, withheld = 0}. `how` says what it is: {tool (its name, for hints), what (`the
--- rename`...), client, enc, buf and tick (the position's buffer and its changedtick then), ticks
--- (L.ticks() when the request was sent), check(path, e) (optional: fails the call for a byte edit
--- it will not apply), command (optional: the Command a code action runs after its edit)}. With
--- p.keep (the call will apply it), `how.check` has passed every edit and the edit is kept under the
--- call's token (core.lua M.keep), with the text of each file it was computed on.
function L.edit_preview(p, edit, how)
  local read, budget = L.reader(), L.budget(p)
  local files, kept, count, truncated = {}, {}, 0, false
  for _, f in ipairs(L.edit_files(edit)) do
    local edits = L.byte_edits(read, f.uri, f.edits or {}, how.enc)
    -- A file with no edits (a formatter with nothing to do) is no file the edit changes.
    local entry = #edits > 0 and L.file(read, f.uri) or nil
    if entry then
      if p.keep and how.check then
        for _, e in ipairs(edits) do
          how.check(entry.path, e)
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
  end
  local out = { server = how.client.name, applied = false, files = files, edit_count = count, truncated = truncated, withheld = 0 }
  if p.keep then
    M.keep(p.answer_token, {
      tool = how.tool,
      what = how.what,
      client_id = how.client.id,
      buf = how.buf,
      tick = how.tick,
      ticks = how.ticks,
      files = kept,
      command = how.command,
      out = out,
    })
  end
  return out
end

-- STALE_CHANGEDTICK for `path`: it changed since the server computed the edit. `tick` is the
-- position's buffer's, whichever file changed: the one the hint's next apply needs.
local function stale(kept, path, tick)
  M.fail('STALE_CHANGEDTICK', path .. ' changed since the language server computed ' .. kept.what .. '; nothing was changed.', {
    current_changedtick = tick,
    hint = 'Call ' .. kept.tool .. ' again (read_buffer for the changedtick of ' .. M.buf_path(kept.buf) .. '), then apply that.',
  })
end

-- Whether two lists of lines are the same.
local function same_lines(a, b)
  if #a ~= #b then
    return false
  end
  for i = 1, #a do
    if a[i] ~= b[i] then
      return false
    end
  end
  return true
end

--- The edit L.edit_preview kept under p.token, taken, after every check the apply makes before it
--- changes anything: p.start_by, the position's buffer at p.expected_changedtick and unchanged
--- since, every buffer that was loaded unchanged (its changedtick), and every other file (a buffer
--- loaded since, or the file on disk) still the text the edit was computed on. Returns it and each
--- file's buffer now (nil for none).
function L.kept_edit(p)
  M.check_start_by(p.start_by)
  local kept = M.take(p.token)
  if not kept then
    M.fail('EDITOR_ERROR', 'The editor no longer holds this edit (another call replaced it, or the editor restarted); nothing was changed.', {
      hint = 'Call the tool with apply again.',
    })
  end
  local tick = M.check_tick(kept.buf, p.expected_changedtick)
  if tick ~= kept.tick then
    stale(kept, M.buf_path(kept.buf), tick)
  end
  -- Each file's buffer now, found once for the check and the edit (a buffer wiped since is none).
  local bufs = {}
  for i, f in ipairs(kept.files) do
    local b = (f.buf and api.nvim_buf_is_valid(f.buf)) and f.buf or M.find_by_path(f.path)
    bufs[i] = b
    if b and api.nvim_buf_is_loaded(b) then
      M.check_modifiable(b)
      local now = api.nvim_buf_get_changedtick(b)
      if (kept.ticks[b] or now) ~= now or not same_lines(api.nvim_buf_get_lines(b, 0, -1, false), f.lines) then
        stale(kept, f.path, tick)
      end
    else
      local ok, lines = pcall(vim.fn.readfile, f.path)
      if not ok or not same_lines(lines, f.lines) then
        stale(kept, f.path, tick)
      end
    end
  end
  return kept, bufs
end

-- The buffers of files whose changedtick is not what `ticks` (L.ticks()) says, loaded since
-- included, as result files with no edits listed.
local function changed_since(ticks)
  local files = {}
  for b, now in pairs(L.ticks()) do
    if ticks[b] ~= now and M.buf_path(b) ~= vim.NIL then
      files[#files + 1] = { path = M.buf_path(b), buf = b, changedtick = now, edits = {} }
    end
  end
  table.sort(files, function(x, y)
    return x.buf < y.buf
  end)
  return files
end

-- Runs the kept code action's server command (workspace/executeCommand, LSP 3.17) as the call's
-- deferred answer: the server runs it, and the editor's language client makes the edits it sends
-- (workspace/applyEdit) as for the user's own code actions. `out` then lists, besides the edit's
-- own files, the buffers they changed (their changedticks now, edits not listed).
local function run_command(p, kept)
  local client = vim.lsp.get_client_by_id(kept.client_id)
  if not client then
    M.fail('EDITOR_ERROR', 'The language server that offered this action has stopped; its command did not run.', {
      hint = 'Restart it in the editor (e.g. :LspRestart), then list the actions again.',
    })
  end
  local before = L.ticks()
  local name = tostring(kept.command.command)
  local params = { command = kept.command.command, arguments = kept.command.arguments }
  -- The apply's answer, with the buffers the command changed; their number.
  local function changed()
    local out, n = kept.out, 0
    for _, f in ipairs(changed_since(before)) do
      local known = false
      for _, entry in ipairs(out.files) do
        if entry.buf == f.buf then
          entry.changedtick, known = f.changedtick, true
        end
      end
      if not known then
        out.files[#out.files + 1] = f
      end
      n = n + 1
    end
    return out, n
  end
  return L.request(p, client, 'workspace/executeCommand', params, function()
    return (changed())
  end, function(err)
    local out, n = changed()
    local message = 'The command ' .. name .. ' of ' .. client.name .. ' ended with an error: ' .. tostring(err.message or err.code)
    if n == 0 and #out.files == 0 then
      M.fail('EDITOR_ERROR', message .. '. It changed no buffer; the server may have done some of its work all the same (on disk too).', {
        hint = 'Read the error, and look at what the command is for before you retry it; or make the change with other tools.',
      })
    end
    -- Its edits until then are made (a server that asks the editor something it cannot answer
    -- after its edits, as typescript-language-server asks to rename what it extracted, fails so).
    out.command_error = message
    return out
  end)
end

--- The second phase of an lsp_* tool's apply (lsp_edit_apply.lua): makes the kept edit, all or
--- nothing, everything checked first (L.kept_edit); each file's buffer (added and loaded when none
--- holds it, and listed) gets its edits, bottom-up, as one undo step; nothing is saved. Then a code
--- action's command runs, and the call's answer waits for it.
function L.apply_kept(p)
  local kept, bufs = L.kept_edit(p)
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
  if kept.command then
    return run_command(p, kept)
  end
  return kept.out
end

--- What the second phase would make of each file, for a review (lsp_edit_propose.lua): the kept
--- edit checked as L.apply_kept checks it, each file's buffer added, loaded and listed when none
--- holds it (as the apply would), and its lines with the edits made on a copy returned:
--- {result = the preview (applied false), files = {{buf, path, base_tick, base, proposed, made}}}.
--- Nothing else changes. A code action that runs a command is never reviewed (its catalog entry
--- refuses `review` for it, and its class, exec, is never `review`): refused here too.
function L.propose_kept(p)
  local kept, bufs = L.kept_edit(p)
  if kept.command then
    M.fail('UNSUPPORTED', 'A code action that runs a server command cannot be reviewed; nothing was changed.', {
      hint = 'Apply it without review (it needs the exec permission), or choose an action without a command.',
    })
  end
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

return L
