-- vimrelay core, installed into a running Neovim by the agent with one nvim_exec_lua per attach.
--
-- Contract: `...` is (util_source, tool_sources, channel). Updates the global table _G.__vimrelay
-- in place (so the set of subscribed channels survives a reinstall), installs the helpers
-- (util.lua) into it, compiles each tool chunk, subscribes the channel to editor events and
-- returns the editor's info. Every tool call is then ONE nvim_exec_lua of
-- `__vimrelay.call(impl, params)`: nothing else runs inside Neovim between a tool's changedtick
-- guard and its edit. Tools signal failures with M.fail (util.lua); call() turns them, and any
-- other Lua error (as EDITOR_ERROR), into {ok = false, error = {...}}.
-- Works on Neovim 0.7 and newer: features are detected, nothing here depends on a version.
local util_source, tool_sources, channel = ...

local M = _G.__vimrelay or {}
_G.__vimrelay = M
M.channels = M.channels or {}
M.tools = {}
assert(loadstring(util_source, '@vimrelay/util.lua'))(M)

local api = vim.api

-- The call dispatcher ----------------------------------------------------------------------------

-- Makes `win` the current window without autocommands: the user sees no window change.
local function switch_quietly(win)
  vim.cmd('noautocmd call nvim_set_current_win(' .. win .. ')')
end

-- When a permission prompt (ask.lua) is the current window: that prompt, and the window it came from.
local function current_prompt()
  local win = api.nvim_get_current_win()
  for _, ask in pairs(M.asks or {}) do
    if ask.win == win and api.nvim_win_is_valid(ask.prev) then
      return ask
    end
  end
end

--- Runs one tool. Returns {ok = true, json = <the data as JSON text>} or {ok = false, error =
--- {code, message, ...}}.
--- While a permission prompt is the current window, the tool runs in the window the prompt came
--- from, as if the prompt were not there; the prompt is current again afterwards, and goes back to
--- the window the tool left current when it closes.
function M.call(name, params)
  local tool = M.tools[name]
  if not tool then
    return { ok = false, error = { code = 'UNSUPPORTED', message = 'This Neovim has no vimrelay tool named ' .. name .. '.' } }
  end
  local prompt = current_prompt()
  if prompt then
    switch_quietly(prompt.prev)
  end
  local ok, result = pcall(tool, params)
  -- Told apart at once, before anything below can let another install in (see util.lua M.Failure).
  local failed = not ok and M.is_failure(result)
  if prompt and api.nvim_win_is_valid(prompt.win) then
    local now = api.nvim_get_current_win()
    if now ~= prompt.win then
      prompt.prev = now
      switch_quietly(prompt.win)
    end
  end
  if ok then
    -- One JSON string, parsed once by the agent: far cheaper than msgpack's one object per line.
    return { ok = true, json = vim.json.encode(result) }
  end
  if failed then
    return { ok = false, error = setmetatable(result, nil) }
  end
  return { ok = false, error = { code = 'EDITOR_ERROR', message = tostring(result) } }
end

-- Editor info and events --------------------------------------------------------------------------

--- What the agent reports about this editor (the agent adds id, kind and version).
--- While a watchdog's CTRL-C is on its way to a prompt (M.with_interrupt), the last info: any
--- Vimscript function evaluated now would take the interrupt for itself, and the prompt would read
--- the CTRL-C as a plain key and let its command go on. The agents' periodic refresh asks for this
--- during a prompt's wait.
function M.info()
  if (M.interrupting or 0) > 0 and M.last_info then
    return M.last_info
  end
  M.last_info = M.info_now()
  return M.last_info
end

--- The info, read now.
function M.info_now()
  local cwd = vim.fn.getcwd()
  local name = vim.g.vimrelay_name
  -- Chosen: the user named this editor (g:vimrelay_name, as :VimRelayName sets it).
  local chosen = type(name) == 'string' and name ~= ''
  if not chosen then
    name = vim.fn.fnamemodify(cwd, ':t')
    if name == '' then
      name = cwd
    end
  end
  local current = api.nvim_get_current_buf()
  return {
    name = name,
    chosen = chosen,
    cwd = cwd,
    current_file = vim.bo[current].buftype == '' and M.buf_path(current) or vim.NIL,
    pid = vim.fn.getpid(),
  }
end

-- Sends an event to every subscribed channel, forgetting channels that are gone.
local function broadcast(method, ...)
  for chan in pairs(M.channels) do
    if not pcall(vim.rpcnotify, chan, method, ...) then
      M.channels[chan] = nil
    end
  end
end

local group = api.nvim_create_augroup('vimrelay', { clear = true })
local function announce_info()
  local ok, info = pcall(M.info)
  if ok then
    broadcast('vimrelay_info', info)
  end
end
api.nvim_create_autocmd({ 'DirChanged', 'BufEnter', 'BufFilePost', 'WinEnter', 'TabEnter' }, { group = group, callback = announce_info })
-- :VimRelayName (plugin/nvim) renames the editor: `User VimRelayName` says so at once.
api.nvim_create_autocmd('User', { group = group, pattern = 'VimRelayName', callback = announce_info })
api.nvim_create_autocmd('VimLeavePre', {
  group = group,
  callback = function()
    broadcast('vimrelay_leave')
  end,
})

for name, source in pairs(tool_sources) do
  M.tools[name] = assert(loadstring(source, '@vimrelay/' .. name .. '.lua'))(M)
end
M.channels[channel] = true

return M.info()
