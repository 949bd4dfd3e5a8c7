-- vimrelay: the logic behind the commands in plugin/vimrelay.lua.
local M = {}

--- The name list_editors shows: g:vimrelay_name, else the cwd's last component.
function M.current_name()
  local name = vim.g.vimrelay_name
  if type(name) == 'string' and name ~= '' then
    return name
  end
  return vim.fn.fnamemodify(vim.fn.getcwd(), ':t')
end

--- Sets (or with `clear`, removes) g:vimrelay_name; with neither, echoes the current name.
function M.name(name, clear)
  if clear then
    vim.g.vimrelay_name = nil
  elseif name ~= '' then
    vim.g.vimrelay_name = name
  end
  -- The agent hears of the new name at once (its core listens for this event).
  vim.cmd('doautocmd <nomodeline> User VimRelayName')
  vim.api.nvim_echo({ { 'vimrelay: this editor is named ' .. M.current_name() } }, false, {})
end

--- The address the agent can reach this editor on, or nil when it listens on none.
function M.address()
  local addr = vim.v.servername
  if addr == nil or addr == '' then
    return nil
  end
  return addr
end

--- :VimRelayStatus: where the agent can reach this editor and under which name, then what Vim's
--- :VimRelayStatus says too: which agent serves this machine, and whether it lists this editor.
function M.status()
  local addr = M.address()
  local lines
  if addr then
    lines = { { 'vimrelay: discoverable at ' .. addr .. ' as ' .. M.current_name() } }
  else
    lines = { { 'vimrelay: not listening on any socket; the agent cannot find this editor (see :checkhealth vimrelay)', 'WarningMsg' } }
  end
  for _, line in ipairs(require('vimrelay.agent').report()) do
    lines[#lines + 1] = { '\n  ' .. line }
  end
  vim.api.nvim_echo(lines, false, {})
end

return M
