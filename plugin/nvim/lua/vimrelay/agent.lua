-- What the vimrelay agent on this machine says of itself, for :checkhealth and :VimRelayStatus:
-- its status file ($XDG_STATE_HOME/vimrelay/status.json, written by `vimrelay agent`) and that of
-- the newest `vimrelay serve` (serve.json), each read only if its process still runs. Reads files;
-- talks to nothing. Works on Neovim 0.7 and newer.
local M = {}

local uv = vim.uv or vim.loop

--- The agent's state directory, as the agent derives it (XDG Base Directory spec).
function M.state_dir()
  local state = vim.env.XDG_STATE_HOME
  if state == nil or state == '' then
    state = (vim.env.HOME or vim.fn.expand('~')) .. '/.local/state'
  end
  return state .. '/vimrelay'
end

--- Whether process `pid` is alive (signal 0 only checks).
local function alive(pid)
  return type(pid) == 'number' and pid > 0 and uv.kill(pid, 0) == 0
end

local function read_json(path)
  local ok, lines = pcall(vim.fn.readfile, path)
  if not ok or #lines == 0 then
    return nil
  end
  local decoded_ok, value = pcall(vim.fn.json_decode, table.concat(lines, '\n'))
  if decoded_ok and type(value) == 'table' then
    return value
  end
  return nil
end

--- The agent's status: nil when none ever ran here; `running` false when its process is gone.
function M.agent()
  local status = read_json(M.state_dir() .. '/status.json')
  if not status then
    return nil
  end
  status.running = status.state ~= 'stopped' and alive(status.pid)
  return status
end

--- The newest `vimrelay serve` still running, or nil.
function M.serve()
  local status = read_json(M.state_dir() .. '/serve.json')
  if status and alive(status.pid) then
    return status
  end
  return nil
end

--- Whether `status` lists this editor (by its pid).
function M.lists_me(status)
  local me = vim.fn.getpid()
  for _, e in ipairs(status and status.editors or {}) do
    if e.pid == me then
      return true
    end
  end
  return false
end

--- The lines :VimRelayStatus shows about the agent side, as Vim's does (the twin of
--- plugin/vim/autoload/vimrelay/util/agent.vim `report`): which process serves this machine's
--- editors (a connected agent and its relay, or a local `serve`), whether it lists this editor, and
--- under each problem a line saying what to do.
function M.report()
  local lines = {}
  local serve = M.serve()
  if serve then
    lines[#lines + 1] = 'serve: pid ' .. serve.pid .. " serves this machine's editors locally, over " .. (serve.transport == 'http' and tostring(serve.url) or 'stdio')
  end
  local agent = M.agent()
  if not agent then
    if not serve then
      lines[#lines + 1] = 'agent: none has run for this user'
      lines[#lines + 1] = '  do: vimrelay pair <relay>, then vimrelay agent (or vimrelay service install)'
    end
  elseif not agent.running then
    lines[#lines + 1] = 'agent: not running (pid ' .. tostring(agent.pid) .. ' is gone)'
    lines[#lines + 1] = '  do: vimrelay agent (or vimrelay service install)'
  elseif agent.state == 'connected' then
    lines[#lines + 1] = 'agent: pid ' .. agent.pid .. ', connected to ' .. tostring(agent.relay_url) .. (type(agent.device) == 'string' and (' as ' .. agent.device) or '')
  elseif agent.state == 'rejected' then
    lines[#lines + 1] = 'agent: the relay at ' .. tostring(agent.relay_url) .. ' refused this machine'
    lines[#lines + 1] = '  do: vimrelay pair ' .. tostring(agent.relay_url)
  else
    lines[#lines + 1] = 'agent: pid ' .. agent.pid .. ', not connected to ' .. tostring(agent.relay_url) .. ' (' .. tostring(agent.state) .. '); it keeps retrying'
    if type(agent.reason) == 'string' then
      lines[#lines + 1] = '  why: ' .. agent.reason
    end
  end
  local serving = (agent and agent.running) and agent or serve
  if serving then
    lines[#lines + 1] = M.lists_me(serving) and 'this Neovim: listed' or 'this Neovim: not listed yet'
  end
  return lines
end

--- Whether discovery finds `address` (v:servername): a socket under one of `dirs` at most three
--- levels down, with a path component below the directory that starts with "nvim" (as
--- agent/editors/nvim/discovery.ts scans).
function M.watched(address, dirs)
  for _, dir in ipairs(dirs or {}) do
    local prefix = dir:gsub('/+$', '') .. '/'
    if address:sub(1, #prefix) == prefix then
      local below = address:sub(#prefix + 1)
      local _, depth = below:gsub('/', '')
      if depth < 3 and ('/' .. below):find('/nvim') then
        return true
      end
    end
  end
  return false
end

return M
