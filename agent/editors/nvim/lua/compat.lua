-- What differs between the Neovims vimrelay supports (0.7 and newer), in one place, each found by
-- what the running Neovim has, never by its version: the tools and helpers call these and read the
-- same on every Neovim. Installed by core.lua first of the helpers, into the install's table:
-- `...` is that table (M); these live in M.compat. Nothing runs on its own.
local M = ...
local C = {}
M.compat = C

--- libuv's bindings: vim.uv (0.10+), vim.loop before (still there, deprecated, in 0.10+).
C.uv = vim.uv or vim.loop

--- The language-server clients attached to buffer b, as a list: vim.lsp.get_clients (0.10+), else
--- vim.lsp.buf_get_clients (0.7+; deprecated from 0.10 on, it warns).
function C.buf_clients(b)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = b })
  end
  local list = {}
  for _, c in pairs(vim.lsp.buf_get_clients(b)) do
    list[#list + 1] = c
  end
  return list
end

-- The method `name` of a client's class (0.11+), or nil for a client of closures.
local function class_method(client, name)
  local mt = getmetatable(client)
  local class = mt and type(mt.__index) == 'table' and mt.__index or nil
  local method = class and rawget(class, name)
  return type(method) == 'function' and method or nil
end

--- Calls client method `name` with the arguments: `client:name(...)` where the client is an
--- object of a class (0.11+: calling with a dot is deprecated and warns), `client.name(...)` for a
--- client of per-client closures (before; 0.10's must be called with a dot).
function C.invoke(client, name, ...)
  local method = class_method(client, name)
  if method then
    return method(client, ...)
  end
  return client[name](...)
end

--- Whether `client` tracks dynamic registrations (client/registerCapability, 0.10+) and says its
--- server implements `method` for buffer b; nil where it does not track them.
function C.registered(client, method, b)
  if not (client.dynamic_capabilities or client.registrations) then
    return nil
  end
  local supports = class_method(client, 'supports_method')
  if supports then
    return supports(client, method, b) and true or false
  end
  return client.supports_method(method, { bufnr = b }) and true or false
end

--- The LSP Diagnostic a vim.diagnostic item was made from, when this Neovim keeps it whole in
--- user_data.lsp (0.10+); nil where it keeps only some of its fields there (no range: 0.7 to 0.9),
--- and the caller rebuilds it from the item.
function C.lsp_diagnostic(d)
  local lsp = type(d.user_data) == 'table' and d.user_data.lsp or nil
  if type(lsp) == 'table' and type(lsp.range) == 'table' and type(lsp.message) == 'string' then
    return lsp
  end
  return nil
end

--- The position encoding the client uses with its server: 'utf-8', 'utf-16' or 'utf-32' (0.11+
--- negotiate it, and many servers choose UTF-8; before, what the server announced or UTF-16).
function C.encoding(client)
  return client.offset_encoding or 'utf-16'
end

return C
