-- paths: the absolute file paths a tool call addresses, for the agent's permission policy (path
-- rules and never_read). Not a catalog tool: the agent calls it before a call runs.
-- params: addressing (agent/editors/tools/tool.ts `Addressing`: buffer, buffer_or_none,
-- window_buffer, current, path, buffers_or_loaded, diagnosed, none) and only the call's buffer,
-- buffers, path and window arguments. Returns {paths = {...}}: each addressed file's absolute
-- name and, when it differs, its real path (symlinks resolved). Buffer references resolve as the
-- tools resolve them (M.find_by_path): a path that names no buffer counts as itself (the file a
-- tool would open or create), and a number that names none fails with BUFFER_NOT_FOUND, as the
-- tool itself would, so that nobody is asked to allow a call that cannot run.
local M = ...
local api = vim.api
local uv = M.compat.uv

return function(p)
  local out, seen = {}, {}

  local function add(path)
    if type(path) ~= 'string' or path == '' then
      return
    end
    for _, x in ipairs({ path, uv.fs_realpath(path) }) do
      if not seen[x] then
        seen[x] = true
        out[#out + 1] = x
      end
    end
  end

  local function add_buf(b)
    if b and api.nvim_buf_is_valid(b) then
      add(M.buf_path(b))
    end
  end

  -- A buffer reference: a number, or a path (absolute or relative to the cwd).
  local function add_ref(ref)
    if type(ref) == 'number' then
      add_buf(M.resolve(ref))
    elseif type(ref) == 'string' then
      local b, target = M.find_by_path(ref)
      if b then
        add_buf(b)
      else
        add(target)
      end
    end
  end

  local how = p.addressing
  if how == 'path' then
    if type(p.path) == 'string' then
      add(M.absolute(p.path))
    end
  elseif how == 'buffers_or_loaded' then
    if type(p.buffers) == 'table' then
      for _, ref in ipairs(p.buffers) do
        add_ref(ref)
      end
    else
      for _, b in ipairs(api.nvim_list_bufs()) do
        if api.nvim_buf_is_loaded(b) then
          add_buf(b)
        end
      end
    end
  elseif how == 'buffer_or_none' then
    add_ref(p.buffer)
  elseif how == 'window_buffer' then
    if p.buffer ~= nil then
      add_ref(p.buffer)
    elseif type(p.window) == 'number' and api.nvim_win_is_valid(p.window) then
      add_buf(api.nvim_win_get_buf(p.window))
    else
      add_buf(api.nvim_get_current_buf())
    end
  elseif how == 'buffer' then
    if p.buffer ~= nil then
      add_ref(p.buffer)
    else
      add_buf(api.nvim_get_current_buf())
    end
  elseif how == 'current' then
    add_buf(api.nvim_get_current_buf())
  elseif how == 'diagnosed' then
    local done = {}
    for _, d in ipairs(vim.diagnostic and vim.diagnostic.get() or {}) do
      if not done[d.bufnr] then
        done[d.bufnr] = true
        add_buf(d.bufnr)
      end
    end
  elseif how ~= 'none' then
    M.fail('INVALID_ARGUMENT', 'paths: unknown addressing ' .. tostring(how) .. '.')
  end
  return { paths = out }
end
