-- lsp_code_actions: the code actions the buffer's language server (lsp.lua) offers for a position or
-- a range, with the diagnostics on its lines (textDocument/codeAction, LSP 3.17), as a deferred
-- answer: each with an id made here, its title, kind, whether it is preferred, the command it runs
-- and why it is disabled. With p.id, the action of that id: resolved when the server resolves
-- actions lazily (codeAction/resolve) and it has no edit yet, and its edit as a preview
-- (lsp_edit.lua L.edit_preview), kept with its command for lsp_edit_apply.lua when p.keep.
--
-- An id is `<e|x><8 hex digits>[.<n>]:<title>`: `x` when applying it runs a server command (its
-- catalog entry takes the exec permission from that), `e` when it only edits; the digits a hash of
-- its kind, title and command; `.n` for the n-th of actions alike. It is made again from the
-- server's answer at each call, and an id that names no action offered now is NO_MATCH: so the
-- title a prompt shows, and whether the action runs a command, are the action's own.
local M = ...
local L = M.lsp

-- What the listing shows of action `a` (a CodeAction, or a bare Command), with its id; `seen`
-- counts the ids made so far, for actions alike.
local function entry(a, seen, p)
  local command = type(a.command) == 'string' and a or (type(a.command) == 'table' and a.command or nil)
  local kind = type(a.kind) == 'string' and a.kind or nil
  local title = (M.cut(type(a.title) == 'string' and a.title or '', p.title_bytes))
  local key = (command and 'x' or 'e') .. vim.fn.sha256(table.concat({ kind or '', a.title or '', command and command.command or '' }, '\n')):sub(1, 8)
  seen[key] = (seen[key] or 0) + 1
  if seen[key] > 1 then
    key = key .. '.' .. seen[key]
  end
  return {
    id = key .. ':' .. title,
    title = title,
    kind = kind or vim.NIL,
    preferred = a.isPreferred == true,
    command = command and command.command or vim.NIL,
    disabled = type(a.disabled) == 'table' and tostring(a.disabled.reason) or vim.NIL,
  }, command
end

-- Whether `client` resolves code actions lazily (CodeActionOptions.resolveProvider).
local function resolves(client)
  local options = (client.server_capabilities or {}).codeActionProvider
  return type(options) == 'table' and options.resolveProvider == true
end

return function(p)
  local b, client, enc = L.target(p, 'textDocument/codeAction')
  local tick = M.check_tick(b, p.expected_changedtick)
  local range = L.range_params(b, p.line, p.col, p.end_line, p.end_col, enc)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(b) },
    range = range,
    -- triggerKind 1: Invoked, as the user's own request is (LSP 3.17 "CodeActionTriggerKind").
    context = { diagnostics = L.context_diagnostics(b, range, enc), only = p.kinds, triggerKind = 1 },
  }
  local how = { tool = 'lsp_code_actions', what = 'the code action', client = client, enc = enc, buf = b, tick = tick, ticks = L.ticks() }
  return L.request(p, client, 'textDocument/codeAction', params, function(result)
    local seen, actions, found = {}, {}, nil
    for _, a in ipairs(result or {}) do
      local shown, command = entry(a, seen, p)
      actions[#actions + 1] = shown
      if shown.id == p.id then
        found = { action = a, shown = shown, command = command }
      end
    end
    local listing = { server = client.name, applied = false, files = {}, edit_count = 0, truncated = false, withheld = 0 }
    if p.id == nil then
      listing.actions = { unpack(actions, 1, math.min(#actions, p.max_actions)) }
      listing.truncated = #actions > p.max_actions
      return listing
    end
    if not found then
      M.fail('NO_MATCH', client.name .. ' offers no action with that id here now (the text or its diagnostics changed, or the id was not one it listed).', {
        hint = 'Call lsp_code_actions without id for the actions offered now, then pass one of their ids unchanged.',
      })
    end
    if found.shown.disabled ~= vim.NIL then
      M.fail('EDITOR_ERROR', client.name .. ' offers this action disabled: ' .. found.shown.disabled .. '. Nothing was changed.', {
        hint = 'Do what the reason says first, or choose another action.',
      })
    end
    -- The action as it will be applied: its edit and command.
    local function finish(a)
      local command = type(a.command) == 'table' and a.command or found.command
      if command and not found.command then
        M.fail('EDITOR_ERROR', 'Resolved, this action turned out to run a server command (' .. tostring(command.command) .. '), which its id did not say; nothing was changed.', {
          hint = 'Make its edits with other tools, or ask the user to apply it in the editor.',
        })
      end
      how.command = command
      local out = L.edit_preview(p, type(a.edit) == 'table' and a.edit or {}, how)
      out.actions = { found.shown }
      return out
    end
    local a = found.action
    if type(a.command) ~= 'string' and a.edit == nil and resolves(client) then
      return L.next('codeAction/resolve', a, function(resolved)
        return finish(resolved or a)
      end)
    end
    return finish(a)
  end)
end
