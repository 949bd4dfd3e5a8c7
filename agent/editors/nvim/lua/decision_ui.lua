-- What the decision UIs share (lua/ask.lua, lua/review.lua), put before each of them as one chunk
-- (nvim/lua.ts): libuv, the table every install of vimrelay shares, when the user last typed a
-- key, and a notice that fits one screen line.
local api = vim.api
local R = _G.__vimrelay or {}
_G.__vimrelay = R

-- libuv's bindings: vim.uv (0.10+), vim.loop before (deprecated from 0.10 on). These chunks run
-- on their own, not inside an install, so they cannot ask lua/compat.lua.
local uv = vim.uv or vim.loop

local function now()
  return uv.hrtime() / 1e6
end

-- When the user last typed a key, for every prompt and review (one listener, whichever install
-- added it); until a key comes, when the listener began to listen.
if not R.keys_ns then
  R.keys_ns = api.nvim_create_namespace('vimrelay_keys')
  R.last_key = now()
  vim.on_key(function()
    R.last_key = now()
  end, R.keys_ns)
end

-- Shows `text` as a warning, kept out of the message history and cut to fit one screen line (a
-- longer one would stop at a hit-enter prompt).
local function notice(text)
  api.nvim_echo({ { vim.fn.strcharpart(text, 0, math.max(10, vim.o.columns - 15)), 'WarningMsg' } }, false, {})
end
