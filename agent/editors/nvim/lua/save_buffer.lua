-- save_buffer: :update in one buffer (writes its file when it has unsaved changes), never forced.
-- params: buffer (number | path | nil), expected_changedtick (optional), start_by (the deadline, epoch ms).
-- Refuses a buffer without a file. 'confirm' is off during the write, so that a read-only buffer or
-- file is an error rather than a dialog; the Vim message becomes EDITOR_ERROR with a hint. The
-- write runs the user's autocommands (BufWritePre may change the text), so `modified` and the
-- changedtick are read afterwards. A file changed on disk since it was read still makes Vim ask
-- the user (no option turns that question off without forcing); the tool's TIMEOUT hint covers it.
local M = ...
local api = vim.api

-- Vim's message without the "Vim(update):" prefix.
local function vim_message(err)
  return (tostring(err):gsub('^Vim%(%a+%):', ''))
end

-- What to do about a failed write, from its message.
local function hint_for(message, path)
  local dir = vim.fn.fnamemodify(path, ':h')
  if vim.fn.isdirectory(dir) == 0 then
    return 'The directory ' .. dir .. ' does not exist. Ask the user to create it (or do so with run_command, e.g. :call mkdir(...)), then retry.'
  end
  if message:find('E45', 1, true) or message:find('E505', 1, true) or message:find('read%-only') then
    return 'The buffer or its file is read-only, and vimrelay never forces a write. Ask the user whether and how to save it.'
  end
  return 'The editor could not write the file; read the message, fix the cause (or ask the user), then retry.'
end

return function(p)
  M.check_start_by(p.start_by)
  local b = M.resolve(p.buffer)
  local path = M.buf_path(b)
  if path == vim.NIL then
    M.fail('INVALID_ARGUMENT', 'Buffer ' .. b .. ' has no file to save to (it is unnamed, or its buftype is "' .. vim.bo[b].buftype .. '").', {
      hint = 'To save this text to a file, call write_buffer with the file\'s path, then save_buffer with that path.',
    })
  end
  M.check_tick(b, p.expected_changedtick)

  local written = false
  if api.nvim_buf_is_loaded(b) and vim.bo[b].modified then
    local wrote = false
    local autocmd = api.nvim_create_autocmd('BufWritePost', {
      buffer = b,
      once = true,
      callback = function()
        wrote = true
      end,
    })
    local confirm = vim.o.confirm
    vim.o.confirm = false
    local ok, err = pcall(M.in_buffer, b, false, function()
      vim.cmd('silent update')
    end)
    vim.o.confirm = confirm
    pcall(api.nvim_del_autocmd, autocmd)
    if not ok then
      local message = vim_message(err)
      M.fail('EDITOR_ERROR', 'The buffer was not saved: ' .. message, { hint = hint_for(message, path) })
    end
    -- A BufWriteCmd (netrw, plugins) writes without BufWritePost, and resets 'modified'.
    written = wrote or not vim.bo[b].modified
    if not written then
      M.fail('EDITOR_ERROR', 'The buffer was not saved, and the editor gave no error (a question about the write may have been declined).', {
        hint = 'Ask the user to look at the editor, then call get_state_brief to see whether the buffer is still modified.',
      })
    end
  end
  return {
    buf = b,
    path = path,
    written = written,
    modified = vim.bo[b].modified,
    changedtick = api.nvim_buf_get_changedtick(b),
  }
end
