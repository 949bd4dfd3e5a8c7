-- paths: the absolute file paths a tool call addresses, for the agent's permission policy (path
-- rules and never_read). Not a catalog tool: the agent calls it before a call runs.
-- params: tool (a catalog tool name), args (only its buffer, buffers, path, window, all_buffers).
-- Returns {paths = {...}}: each addressed file's absolute name and, when it differs, its real path
-- (symlinks resolved). The table of which tool addresses what is in agent/editors/paths.ts; buffer
-- references resolve as the tools resolve them (M.find_by_path), but a reference that names no
-- buffer never fails here: a path counts as itself, a number as nothing.
local M = ...
local api = vim.api
local uv = vim.uv or vim.loop

-- Tools whose `buffer` defaults to the current buffer (exec and terminal tools have no `buffer`
-- and act on the current one).
local CURRENT_DEFAULT = {
  read_buffer = true,
  find_and_replace = true,
  apply_diff = true,
  substitute = true,
  undo = true,
  redo = true,
  save_buffer = true,
  highlight_range = true,
  add_virtual_text = true,
  clear_decorations = true,
  write_buffer = true,
  run_command = true,
  send_keys = true,
  send_to_terminal = true,
}

return function(p)
  local tool, args = p.tool, p.args or {}
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
      add_buf(ref)
    elseif type(ref) == 'string' then
      local b, target = M.find_by_path(ref)
      if b then
        add_buf(b)
      else
        add(target)
      end
    end
  end

  if tool == 'open_file' then
    if type(args.path) == 'string' then
      add(M.absolute(args.path))
    end
  elseif tool == 'grep_buffers' then
    if type(args.buffers) == 'table' then
      for _, ref in ipairs(args.buffers) do
        add_ref(ref)
      end
    else
      for _, b in ipairs(api.nvim_list_bufs()) do
        if api.nvim_buf_is_loaded(b) then
          add_buf(b)
        end
      end
    end
  elseif tool == 'get_diagnostics' then
    add_ref(args.buffer)
  elseif tool == 'set_cursor' then
    if args.buffer ~= nil then
      add_ref(args.buffer)
    elseif type(args.window) == 'number' and api.nvim_win_is_valid(args.window) then
      add_buf(api.nvim_win_get_buf(args.window))
    else
      add_buf(api.nvim_get_current_buf())
    end
  elseif CURRENT_DEFAULT[tool] and not (tool == 'clear_decorations' and args.all_buffers) then
    if args.buffer ~= nil then
      add_ref(args.buffer)
    else
      add_buf(api.nvim_get_current_buf())
    end
  end
  return { paths = out }
end
