-- :checkhealth vimrelay: checks, for real, what the agent needs to serve this editor: a supported
-- Neovim; an agent running for this user (its status file, and its process alive); whether it is
-- connected, and to which relay, or a `vimrelay serve` serving locally; whether it lists this
-- editor; and whether this editor's socket is where the agent looks. Each problem comes with what
-- to do. Neovim 0.7 has report_* in the `health` module; 0.8+ has vim.health.{start,ok,warn,error}.
local M = {}

local function reporter()
  local h = vim.health or require('health')
  return {
    start = h.start or h.report_start,
    ok = h.ok or h.report_ok,
    warn = h.warn or h.report_warn,
    error = h.error or h.report_error,
    info = h.info or h.report_info,
  }
end

--- Reports on the agent and any local `serve`; returns the status of the one that serves (its
--- editors and the directories it watches), or nil.
local function check_agent(r, agent, serve)
  local status = agent.agent()
  if serve then
    local how = serve.transport == 'http' and ('over HTTP at ' .. tostring(serve.url)) or 'over stdio'
    r.ok('vimrelay serve (pid ' .. serve.pid .. ') serves this machine\'s editors locally, ' .. how)
  end
  if not status then
    if not serve then
      r.error('no vimrelay agent has run for this user (no ' .. agent.state_dir() .. '/status.json)', {
        'Run `vimrelay agent` (after `vimrelay pair <relay>`), or `vimrelay service install` to run it at login',
      })
    end
    return serve
  end
  if not status.running then
    local say = serve and r.warn or r.error
    say('the vimrelay agent is not running (pid ' .. tostring(status.pid) .. ' is gone; it was ' .. tostring(status.state) .. ')', {
      'Start it: `vimrelay agent`, or `vimrelay service install` to keep it running at login',
    })
    return serve
  end
  local where = 'the relay at ' .. tostring(status.relay_url)
  if status.state == 'connected' then
    r.ok('the vimrelay agent (pid ' .. status.pid .. ') is connected to ' .. where .. (status.device ~= vim.NIL and status.device and (' as ' .. status.device) or ''))
  elseif status.state == 'rejected' then
    r.error('the relay refused this machine\'s agent: ' .. tostring(status.reason), { 'Pair this machine again: `vimrelay pair ' .. tostring(status.relay_url) .. '`' })
  else
    r.warn('the vimrelay agent (pid ' .. status.pid .. ') is not connected to ' .. where .. ' (' .. tostring(status.state) .. (status.reason ~= vim.NIL and status.reason and (': ' .. status.reason) or '') .. ')', {
      'It keeps retrying; check that the relay is reachable from this machine',
    })
  end
  return status
end

function M.check()
  local r = reporter()
  local vimrelay = require('vimrelay')
  local agent = require('vimrelay.agent')
  r.start('vimrelay')
  if vim.fn.has('nvim-0.7') == 1 then
    r.ok('Neovim ' .. tostring(vim.version().major) .. '.' .. tostring(vim.version().minor) .. ' is supported')
  else
    r.error('vimrelay needs Neovim 0.7 or newer')
  end

  local serving = check_agent(r, agent, agent.serve())

  local addr = vimrelay.address()
  if not addr then
    r.error('this editor listens on no socket: the agent cannot find it', {
      'Start Neovim normally (it listens by default), or run :call serverstart()',
    })
  elseif serving and serving.watching and not agent.watched(addr, serving.watching) then
    r.warn('this editor listens at ' .. addr .. ', where the agent does not look (' .. table.concat(serving.watching, ', ') .. ')', {
      'Start Neovim with --listen in one of those directories (a name starting with "nvim"), or attach it with the connect_editor tool',
    })
  else
    r.ok('this editor listens at ' .. addr)
  end

  if serving then
    if agent.lists_me(serving) then
      r.ok('the agent lists this editor, named "' .. vimrelay.current_name() .. '" (:VimRelayName to change it)')
    else
      r.warn('the agent does not list this editor yet', {
        'It finds a new editor at once where it watches (within 30 s elsewhere); run :checkhealth vimrelay again, and see the agent\'s log (' .. agent.state_dir() .. '/agent.log)',
      })
    end
  else
    r.info('this editor is named "' .. vimrelay.current_name() .. '" in list_editors (:VimRelayName to change it)')
  end
end

return M
