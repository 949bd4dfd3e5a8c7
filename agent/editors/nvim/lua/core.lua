-- vimrelay core, installed into a running Neovim by the agent with one nvim_exec_lua per attach.
--
-- Contract: `...` is (helper_sources, tool_sources, channel, key). `key` names this agent's
-- version of the Lua (agent/editors/nvim/lua.ts INSTALL_KEY). The install is the table
-- _G.__vimrelay.installs[key] (M below), made anew: the helpers (helper_sources: {name, source}
-- pairs in order, util.lua first) are installed into it, each tool chunk compiled with it. What
-- every agent attached to this Neovim must share, whatever its version, lives in _G.__vimrelay
-- itself (M.shared), updated in place so that it survives a reinstall: the subscribed channels,
-- deferred answers still owed and what was kept for them, the permission prompts (ask.lua),
-- the failure marker and the watchdog's count (util.lua). Two agents of different versions (one
-- upgraded while the other still runs) thus each run their own tools, and see the same prompts.
-- The latest install is also _G.__vimrelay.latest. Installs whose agents have all gone are
-- dropped (below). Subscribes the channel to editor events and returns the editor's info. Every
-- tool call is then ONE nvim_exec_lua of
-- `__vimrelay.installs[key].call(impl, params, channel)`: nothing else runs inside Neovim between
-- a tool's changedtick guard and its edit.
-- Tools signal failures with M.fail (util.lua); call() turns them, and any other Lua error (as
-- EDITOR_ERROR), into {ok = false, error = {...}}. A tool that must wait (a language server's
-- answer) returns M.defer(...) instead, and its answer comes later (below, "Deferred answers").
-- Works on Neovim 0.7 and newer: what differs between them is in compat.lua, the first helper.
local helper_sources, tool_sources, channel, key = ...

local S = _G.__vimrelay or {}
_G.__vimrelay = S
S.installs = S.installs or {}
S.channels = S.channels or {}
local M = { shared = S, tools = {} }
S.installs[key] = M
S.latest = M
for _, helper in ipairs(helper_sources) do
  assert(loadstring(helper[2], '@vimrelay/' .. helper[1] .. '.lua'))(M)
end

local api = vim.api

-- The call dispatcher ----------------------------------------------------------------------------

-- Makes `win` the current window without autocommands: the user sees no window change.
local function switch_quietly(win)
  vim.cmd('noautocmd call nvim_set_current_win(' .. win .. ')')
end

-- When a permission prompt (ask.lua) is the current window: that prompt, and the window it came from.
local function current_prompt()
  local win = api.nvim_get_current_win()
  for _, ask in pairs(S.asks or {}) do
    if ask.win == win and ask.prev and api.nvim_win_is_valid(ask.prev) then
      return ask
    end
  end
end

-- A tool's pcall results as the answer the agent reads. `failed`: the error is a tool failure
-- (util.lua M.shared.Failure), told apart by the caller right after its pcall, before anything
-- can let another install in.
local function outcome(ok, result, failed)
  if ok then
    -- One JSON string, parsed once by the agent: far cheaper than msgpack's one object per line.
    return { ok = true, json = M.encode(result) }
  end
  if failed then
    return { ok = false, error = setmetatable(result, nil) }
  end
  return { ok = false, error = { code = 'EDITOR_ERROR', message = tostring(result) } }
end

-- What M.defer returns, and the channel of the call running now (where its answer goes).
local LATER = {}
local calling_channel
-- M.call's common body, below.
local run

-- The paths `expect.params` addresses (lua/paths.lua) when they are not exactly `expect.paths`
-- (in any order), else nil.
local function paths_changed(expect)
  local got = M.tools.paths(expect.params).paths
  local want, have = {}, {}
  for _, path in ipairs(expect.paths) do
    want[path] = true
  end
  local same = true
  for _, path in ipairs(got) do
    have[path] = true
    same = same and want[path] == true
  end
  for _, path in ipairs(expect.paths) do
    same = same and have[path] == true
  end
  if not same then
    return got
  end
end

--- Runs one tool. Returns {ok = true, json = <the data as JSON text>} or {ok = false, error =
--- {code, message, ...}}, or {ok = true, pending = true} when the tool deferred its answer.
--- `expect` ({params, paths}, optional): the files the agent's policy judged the call by; when the
--- call addresses others now (lua/paths.lua over `params`), nothing runs and the answer is
--- {ok = false, paths_changed = true, paths = <what it addresses>}.
--- While a permission prompt is the current window, the tool runs in the window the prompt came
--- from, as if the prompt were not there; the prompt is current again afterwards, and goes back to
--- the window the tool left current when it closes.
function M.call(name, params, chan, expect)
  local tool = M.tools[name]
  if not tool then
    return { ok = false, error = { code = 'UNSUPPORTED', message = 'This Neovim has no vimrelay tool named ' .. name .. '.' } }
  end
  return run(function()
    calling_channel = chan
    local ok, result = pcall(tool, params)
    calling_channel = nil
    return ok, result
  end, expect)
end

--- Runs edit tool `name` on a copy of its buffer, for a review (lua/propose.lua M.propose, with
--- `opts`): the buffer does not change. Answers as M.call does, the data being what M.propose returns.
function M.propose_call(name, params, opts, expect)
  local tool = M.tools[name]
  if not tool then
    return { ok = false, error = { code = 'UNSUPPORTED', message = 'This Neovim has no vimrelay tool named ' .. name .. '.' } }
  end
  return run(function()
    return pcall(M.propose, tool, params, opts)
  end, expect)
end

-- M.call's body around `attempt` (which pcalls the tool): the expected paths, the prompt's window.
function run(attempt, expect)
  local prompt = current_prompt()
  if prompt then
    switch_quietly(prompt.prev)
  end
  local changed = expect and paths_changed(expect)
  local ok, result, failed
  if not changed then
    ok, result = attempt()
    -- Told apart at once, before anything below can let another install in (util.lua Failure).
    failed = not ok and M.is_failure(result)
  end
  if prompt and api.nvim_win_is_valid(prompt.win) then
    local now = api.nvim_get_current_win()
    if now ~= prompt.win then
      prompt.prev = now
      switch_quietly(prompt.win)
    end
  end
  if changed then
    return { ok = false, paths_changed = true, paths = changed }
  end
  if ok and result == LATER then
    return { ok = true, pending = true }
  end
  return outcome(ok, result, failed)
end

-- Deferred answers (PROTOCOL.md "Deferred answers") ---------------------------------------------
-- A tool that must wait returns M.defer(p, cancel) at once, p.answer_token being the token the
-- agent gave the call; the call answers {ok = true, pending = true}. Later, M.settle(token, fn, ...)
-- sends the outcome of fn(...) (its data, or the failure it raises) to the channel that made the
-- call, as the notification vimrelay_answer(token, outcome). When the agent stops waiting (the
-- deadline, a cancellation) it calls M.cancel(token): `cancel` runs (e.g. $/cancelRequest) and a
-- later M.settle of that token sends nothing. M.keep keeps a value under a token for a second
-- phase (tools/tool.ts CommitPhase), M.take takes it; M.cancel drops it. An answer owed to a
-- channel that has closed (the agent went away) is cancelled the same way: while answers are
-- owed, the editor looks every OWED_WATCH_MS, as Neovim has no event for a closed channel.

S.deferred = S.deferred or {} -- token -> {channel, cancel}
S.kept = S.kept or {} -- token -> value
S.kept_order = S.kept_order or {} -- tokens, oldest first
local KEPT_MAX = 16
local OWED_WATCH_MS = 200

--- Cancels the answers owed to channels that have closed; stops looking once none are owed.
local function cancel_unheard()
  for token, d in pairs(S.deferred) do
    if d.channel and api.nvim_get_chan_info(d.channel).id == nil then
      M.cancel(token)
    end
  end
  if next(S.deferred) == nil and S.owed_watch then
    S.owed_watch:close()
    S.owed_watch = nil
  end
end

--- Defers the answer of the running call; returns what the tool returns.
function M.defer(p, cancel)
  S.deferred[p.answer_token] = { channel = calling_channel, cancel = cancel }
  if not S.owed_watch then
    S.owed_watch = M.compat.uv.new_timer()
    S.owed_watch:start(OWED_WATCH_MS, OWED_WATCH_MS, vim.schedule_wrap(cancel_unheard))
  end
  return LATER
end

--- Sends the deferred answer `token`: the outcome of fn(...). Nothing when nobody waits for it.
function M.settle(token, fn, ...)
  local d = S.deferred[token]
  if not d then
    return
  end
  S.deferred[token] = nil
  local ok, result = pcall(fn, ...)
  pcall(vim.rpcnotify, d.channel, 'vimrelay_answer', token, outcome(ok, result, not ok and M.is_failure(result)))
end

--- Nobody waits for `token` any more: its cancel function runs, what was kept for it goes.
function M.cancel(token)
  local d = S.deferred[token]
  S.deferred[token] = nil
  S.kept[token] = nil
  if d and d.cancel then
    pcall(d.cancel)
  end
  return true
end

--- Keeps `value` for the second phase of call `token`; the oldest of more than KEPT_MAX goes.
function M.keep(token, value)
  S.kept[token] = value
  table.insert(S.kept_order, token)
  while #S.kept_order > KEPT_MAX do
    S.kept[table.remove(S.kept_order, 1)] = nil
  end
end

--- What M.keep kept for `token` (once), or nil.
function M.take(token)
  local value = S.kept[token]
  S.kept[token] = nil
  return value
end

-- Editor info and events --------------------------------------------------------------------------

--- What the agent reports about this editor (the agent adds id, kind and version).
--- While a watchdog's CTRL-C is on its way to a prompt (M.with_interrupt), the last info: any
--- Vimscript function evaluated now would take the interrupt for itself, and the prompt would read
--- the CTRL-C as a plain key and let its command go on. The agents' periodic refresh asks for this
--- during a prompt's wait.
function M.info()
  if (S.interrupting or 0) > 0 and S.last_info then
    return S.last_info
  end
  S.last_info = M.info_now()
  return S.last_info
end

-- The window the user's file is in: the current one, unless it floats (a prompt of ours, which
-- puts the user in it, a picker, an entered hover), whose file is the window's it was entered
-- from (`winnr('#')`, :h CTRL-W_p), as Vim's popups are never current.
local function user_window()
  local win = api.nvim_get_current_win()
  if api.nvim_win_get_config(win).relative == '' then
    return win
  end
  local previous = vim.fn.win_getid(vim.fn.winnr('#'))
  if previous ~= 0 and api.nvim_win_is_valid(previous) and api.nvim_win_get_config(previous).relative == '' then
    return previous
  end
  return win
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
  local current = api.nvim_win_get_buf(user_window())
  return {
    name = name,
    chosen = chosen,
    cwd = cwd,
    current_file = vim.bo[current].buftype == '' and M.buf_path(current) or vim.NIL,
    pid = vim.fn.getpid(),
    ui = #api.nvim_list_uis() > 0,
  }
end

-- Sends an event to every subscribed channel, forgetting channels that are gone.
local function broadcast(method, ...)
  for chan in pairs(S.channels) do
    if not pcall(vim.rpcnotify, chan, method, ...) then
      S.channels[chan] = nil
    end
  end
end

local group = api.nvim_create_augroup('vimrelay', { clear = true })
-- Whether an announcement waits for the editor to be back in the user's windows.
local announce_pending = false
-- Announces the info now, unless the current window is the autocommand window: there (bufload of
-- a hidden buffer, nvim_buf_call) a hidden buffer is current for a moment, and nothing announces
-- the user's own buffer coming back. What is current then is announced once the call or command
-- under way has ended (vim.schedule), one announcement for any number of such events.
local function announce_info()
  if (S.interrupting or 0) == 0 and vim.fn.win_gettype() == 'autocmd' then
    if not announce_pending then
      announce_pending = true
      vim.schedule(function()
        announce_pending = false
        announce_info()
      end)
    end
    return
  end
  local ok, info = pcall(M.info)
  if ok then
    broadcast('vimrelay_info', info)
  end
end
api.nvim_create_autocmd({ 'DirChanged', 'BufEnter', 'BufFilePost', 'WinEnter', 'TabEnter' }, { group = group, callback = announce_info })
-- :VimRelayName (plugin/nvim) renames the editor: `User VimRelayName` says so at once.
api.nvim_create_autocmd('User', { group = group, pattern = 'VimRelayName', callback = announce_info })
-- A UI attached or gone: UILeave runs while the UI is still listed, hence after it (vim.schedule).
api.nvim_create_autocmd({ 'UIEnter', 'UILeave' }, {
  group = group,
  callback = function()
    vim.schedule(announce_info)
  end,
})
api.nvim_create_autocmd('VimLeavePre', {
  group = group,
  callback = function()
    broadcast('vimrelay_leave')
  end,
})

for name, source in pairs(tool_sources) do
  M.tools[name] = assert(loadstring(source, '@vimrelay/' .. name .. '.lua'))(M)
end
S.channels[channel] = true

-- Installs no attached agent uses any more go (an upgrade would otherwise leave one behind in a
-- Neovim that runs for weeks): S.install_of says which install each channel made; an install is
-- kept while one of its channels is open. An install that does not record its channels (an older
-- agent's, M.records_channels unset) is never taken away from under it.
M.records_channels = true
S.install_of = S.install_of or {} -- channel -> key
S.install_of[channel] = key
local used = { [key] = true }
for chan, k in pairs(S.install_of) do
  if api.nvim_get_chan_info(chan).id == nil then
    S.install_of[chan] = nil
  else
    used[k] = true
  end
end
for k, install in pairs(S.installs) do
  if install.records_channels and not used[k] then
    S.installs[k] = nil
  end
end

return M.info()
