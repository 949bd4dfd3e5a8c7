-- :checkhealth vimrelay
-- Neovim 0.7 has report_* in the `health` module; 0.8+ has vim.health.{start,ok,warn,error}.
local M = {}

local function reporter()
  local h = vim.health or require('health')
  return {
    start = h.start or h.report_start,
    ok = h.ok or h.report_ok,
    warn = h.warn or h.report_warn,
    error = h.error or h.report_error,
  }
end

function M.check()
  local r = reporter()
  local vimrelay = require('vimrelay')
  r.start('vimrelay')
  if vim.fn.has('nvim-0.7') == 1 then
    r.ok('Neovim ' .. tostring(vim.version().major) .. '.' .. tostring(vim.version().minor) .. ' is supported')
  else
    r.error('vimrelay needs Neovim 0.7 or newer')
  end
  local addr = vimrelay.address()
  if addr then
    r.ok('listening at ' .. addr .. ': the agent discovers this editor')
  else
    r.warn('not listening on any socket: the agent cannot find this editor', {
      'Start Neovim normally (it listens by default), or run :call serverstart()',
    })
  end
  r.ok('this editor is named "' .. vimrelay.current_name() .. '" in list_editors (:VimRelayName to change it)')
end

return M
