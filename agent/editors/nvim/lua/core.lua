-- vimrelay core, installed into a running Neovim by the agent with one nvim_exec_lua per attach.
--
-- Contract: `...` is (tool_sources, channel). Updates the global table _G.__vimrelay in place (so
-- the set of subscribed channels survives a reinstall), compiles each tool chunk, subscribes the
-- channel to editor events and returns the editor's info. Every tool call is then ONE
-- nvim_exec_lua of `__vimrelay.call(name, params)`: nothing else runs inside Neovim between a
-- tool's changedtick guard and its edit. Tools signal failures with M.fail; call() turns them, and
-- any other Lua error (as EDITOR_ERROR), into {ok = false, error = {...}}.
-- Works on Neovim 0.7 and newer: features are detected, nothing here depends on a version.
local tool_sources, channel = ...

local M = _G.__vimrelay or {}
_G.__vimrelay = M
M.channels = M.channels or {}
M.tools = {}

local api = vim.api
local uv = vim.uv or vim.loop

-- Failures ----------------------------------------------------------------------------------------

local Failure = {}

--- Aborts the running tool with a tool error: `code` is a protocol error code, `details` extra keys
--- of the error body (e.g. hint, current_changedtick).
function M.fail(code, message, details)
  local e = details or {}
  e.code = code
  e.message = message
  error(setmetatable(e, Failure), 0)
end

--- Runs one tool. Returns {ok = true, data = ...} or {ok = false, error = {code, message, ...}}.
function M.call(name, params)
  local tool = M.tools[name]
  if not tool then
    return { ok = false, error = { code = 'UNSUPPORTED', message = 'This Neovim has no vimrelay tool named ' .. name .. '.' } }
  end
  local ok, result = pcall(tool, params)
  if ok then
    return { ok = true, data = result }
  end
  if getmetatable(result) == Failure then
    return { ok = false, error = setmetatable(result, nil) }
  end
  return { ok = false, error = { code = 'EDITOR_ERROR', message = tostring(result) } }
end

-- Text --------------------------------------------------------------------------------------------

--- Number of characters (code points) in a UTF-8 string: its bytes that are not continuation
--- bytes. Done by hand because vim.str_utfindex changed its signature in Neovim 0.11.
function M.char_len(s)
  local _, n = s:gsub('[^\128-\191]', '')
  return n
end

--- Splits text on "\n" (plain); "a\n" gives {"a", ""}.
function M.split_lines(text)
  local lines, init = {}, 1
  while true do
    local nl = text:find('\n', init, true)
    if not nl then
      lines[#lines + 1] = text:sub(init)
      return lines
    end
    lines[#lines + 1] = text:sub(init, nl - 1)
    init = nl + 1
  end
end

-- Buffers -----------------------------------------------------------------------------------------

--- `p` as an absolute, simplified path without a trailing slash; relative paths are taken from
--- `cwd` (default: the editor's cwd).
function M.absolute(p, cwd)
  if p:sub(1, 1) ~= '/' then
    p = (cwd or vim.fn.getcwd()) .. '/' .. p
  end
  p = vim.fn.simplify(p)
  if #p > 1 and p:sub(-1) == '/' then
    p = p:sub(1, -2)
  end
  return p
end

-- Buffer types whose name is not a file path.
local NOT_A_FILE = { terminal = true, quickfix = true, prompt = true, nofile = true }

--- The absolute path of a buffer's file, or vim.NIL when it has none.
function M.buf_path(b)
  local name = api.nvim_buf_get_name(b)
  if name == '' or NOT_A_FILE[vim.bo[b].buftype] then
    return vim.NIL
  end
  return name
end

--- The buffer whose name is the path `p` (absolute, or relative to the cwd), comparing normalized
--- absolute names first and real paths (symlinks resolved) second. Returns nil and the absolute
--- path when no buffer has it.
function M.find_by_path(p)
  local cwd = vim.fn.getcwd()
  local target = M.absolute(p, cwd)
  local bufs = api.nvim_list_bufs()
  for _, b in ipairs(bufs) do
    local name = api.nvim_buf_get_name(b)
    if name ~= '' and M.absolute(name, cwd) == target then
      return b
    end
  end
  local real = uv.fs_realpath(target)
  if real then
    for _, b in ipairs(bufs) do
      local name = api.nvim_buf_get_name(b)
      if name ~= '' and uv.fs_realpath(name) == real then
        return b
      end
    end
  end
  return nil, target
end

--- The buffer a tool argument names: nil = the current buffer, a number, or a path.
--- Fails with BUFFER_NOT_FOUND.
function M.resolve(ref)
  if ref == nil then
    return api.nvim_get_current_buf()
  end
  if type(ref) == 'number' then
    if not api.nvim_buf_is_valid(ref) then
      M.fail('BUFFER_NOT_FOUND', 'There is no buffer number ' .. ref .. '.')
    end
    return ref
  end
  local b, target = M.find_by_path(ref)
  if not b then
    M.fail('BUFFER_NOT_FOUND', 'No buffer has the path ' .. target .. '.', {
      path = target,
      hint = 'Open the file in the editor first, or call get_state_brief and pass a buffer number or path it lists.',
    })
  end
  return b
end

--- Loads a buffer that exists but is not loaded (reads its file; never prompts about swap files).
function M.ensure_loaded(b)
  if not api.nvim_buf_is_loaded(b) then
    vim.fn.bufload(b)
  end
end

--- Fails with STALE_CHANGEDTICK when `expected` is given and differs from the buffer's changedtick.
function M.check_tick(b, expected)
  local tick = api.nvim_buf_get_changedtick(b)
  if expected ~= nil and expected ~= tick then
    M.fail('STALE_CHANGEDTICK', 'The buffer changed: its changedtick is ' .. tick .. ', not ' .. expected .. '. Nothing was changed.', {
      current_changedtick = tick,
    })
  end
  return tick
end

--- Closes the buffer's current undo block. Called before and after an edit, so that the edit is an
--- undo step of its own: it joins neither the insert the user may be in the middle of, nor a change
--- made right after it by another API client. Setting 'undolevels', even to its own value, syncs
--- undo (:h undo-break); the local value is written back unchanged.
function M.break_undo(b)
  vim.bo[b].undolevels = vim.bo[b].undolevels
end

-- Editor info and events --------------------------------------------------------------------------

--- What the agent reports about this editor (the agent adds id, kind and version).
function M.info()
  local cwd = vim.fn.getcwd()
  local name = vim.g.vimrelay_name
  if type(name) ~= 'string' or name == '' then
    name = vim.fn.fnamemodify(cwd, ':t')
    if name == '' then
      name = cwd
    end
  end
  local current = api.nvim_get_current_buf()
  return {
    name = name,
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
api.nvim_create_autocmd({ 'DirChanged', 'BufEnter', 'BufFilePost', 'WinEnter', 'TabEnter' }, {
  group = group,
  callback = function()
    local ok, info = pcall(M.info)
    if ok then
      broadcast('vimrelay_info', info)
    end
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
M.channels[channel] = true

return M.info()
