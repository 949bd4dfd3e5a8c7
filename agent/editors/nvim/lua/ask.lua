-- vimrelay's permission prompt in Neovim (README "Permissions": ask shows a prompt inside the editor).
--
-- Contract: `...` is (op, channel, id, lines, opts), run with one nvim_exec_lua per op.
-- - 'open' shows `lines` in a centred floating window (relative 'editor', a border) over a scratch
--   buffer and enters it. Long lines wrap (cut into lines of the window's width: a window cannot
--   scroll within one line); a prompt taller than the screen scrolls with the usual
--   keys (j, k, Ctrl-D, Ctrl-U, Ctrl-F, Ctrl-B, G, gg; in Insert mode too). Buffer-local maps
--   (Normal, Insert and Visual mode) answer: o allow once, a allow always in this editor (the
--   agent decides what "always" means for it), d deny, r deny with a reason (asked with input()),
--   q and <Esc> deny, as does closing the window. o and a take effect only once the prompt's last
--   line has been on screen (else a message says to scroll to the end), so an allow never covers
--   text the user has not been shown; with opts.deny_only they do nothing at all. The answer goes
--   to `channel` as rpcnotify(channel, 'vimrelay_ask', id, answer), and the window closes.
-- - 'close' takes prompt `id` down without an answer (the agent's deadline passed), ending an
--   input() still waiting for its reason.
-- Either way, when the prompt was the current window, the window that was current before comes
-- back, with its mode: Insert mode carries
-- over, and a Visual selection is selected again (gv). Nothing here blocks: while a prompt is open
-- Neovim serves every other request (and tools run in the user's window: core.lua's M.call).
-- Works on Neovim 0.7 (no float `title` there).
local op, channel, id, lines, opts = ...

local api = vim.api
local SCROLL_FIRST = 'vimrelay: scroll to the end of the prompt first (G): allow covers only what you were shown'
local R = _G.__vimrelay or {}
_G.__vimrelay = R
R.asks = R.asks or {}

-- Visual, Visual-line and Visual-block mode, as nvim_get_mode() names them.
local VISUAL = { v = true, V = true, ['\22'] = true }

-- Takes prompt `key` down: forgets it, closes its window and, when the user was in it, goes back to
-- the window it came from.
local function finish(key)
  local ask = R.asks[key]
  if not ask then
    return nil
  end
  R.asks[key] = nil
  local was_current = api.nvim_get_current_win() == ask.win
  if api.nvim_win_is_valid(ask.win) then
    pcall(api.nvim_win_close, ask.win, true)
  end
  if not was_current then
    return ask
  end
  if api.nvim_win_is_valid(ask.prev) and api.nvim_get_current_win() ~= ask.prev then
    pcall(api.nvim_set_current_win, ask.prev)
  end
  -- The prompt ended the user's Visual mode (see open): select the same text again (typed ahead:
  -- a Visual mode started by :normal would end with the command).
  if ask.visual and api.nvim_get_current_win() == ask.prev then
    api.nvim_feedkeys('gv', 'n', false)
  end
  return ask
end

-- Sends `answer` for prompt `key` (once) and takes the prompt down.
local function answer(key, value)
  local ask = finish(key)
  if ask then
    pcall(vim.rpcnotify, ask.channel, 'vimrelay_ask', ask.id, value)
  end
end

-- UTF-8 characters of a string, one at a time.
local CHAR = '[%z\1-\127\194-\244][\128-\191]*'

-- `line` cut into pieces of at most `width` display cells, never inside a character. A window
-- cannot scroll within one line, so a line taller than the prompt would have an end nobody can
-- bring on screen: the prompt holds such a line as several.
local function pieces(line, width)
  if vim.fn.strdisplaywidth(line) <= width then
    return { line }
  end
  local out, cur, w = {}, {}, 0
  for ch in line:gmatch(CHAR) do
    local cw = ch == '\t' and (8 - w % 8) or (ch:byte() < 128 and 1 or vim.fn.strdisplaywidth(ch))
    if w + cw > width and #cur > 0 then
      out[#out + 1] = table.concat(cur)
      cur, w = {}, 0
      if ch == '\t' then
        cw = 8
      end
    end
    cur[#cur + 1] = ch
    w = w + cw
  end
  if #cur > 0 then
    out[#out + 1] = table.concat(cur)
  end
  return out
end

local function open()
  local key = channel .. ':' .. id
  local width = 20
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  width = math.min(width, math.max(20, vim.o.columns - 4))
  local shown = {}
  for _, l in ipairs(lines) do
    for _, p in ipairs(pieces(l, width)) do
      shown[#shown + 1] = p
    end
  end
  local height = math.min(#shown, math.max(1, vim.o.lines - 4))

  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_lines(buf, 0, -1, true, shown)
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  local prev = api.nvim_get_current_win()
  -- Visual mode would follow the user into the prompt and end there without recording the
  -- selection: end it here, which records it for gv when the prompt closes.
  local visual = VISUAL[api.nvim_get_mode().mode] or false
  if visual then
    vim.cmd('normal! \27')
  end
  local win = api.nvim_open_win(buf, true, {
    relative = 'editor',
    row = math.max(0, math.floor((vim.o.lines - height) / 2) - 1),
    col = math.max(0, math.floor((vim.o.columns - width) / 2) - 1),
    width = width,
    height = height,
    style = 'minimal',
    border = 'rounded',
    zindex = 250,
  })
  vim.wo[win].wrap = true
  local ask = { id = id, channel = channel, win = win, prev = prev, visual = visual, seen_end = false }
  R.asks[key] = ask
  -- Whether the last line is (or has been) on screen: only then may the user allow.
  local function look()
    if api.nvim_win_is_valid(win) and vim.fn.line('w$', win) >= vim.fn.line('$', win) then
      ask.seen_end = true
    end
  end
  look()
  api.nvim_create_autocmd({ 'CursorMoved', 'CursorMovedI', 'WinScrolled' }, { buffer = buf, callback = look })

  local function on(lhs, fn)
    for _, mode in ipairs({ 'n', 'i', 'x' }) do
      api.nvim_buf_set_keymap(buf, mode, lhs, '', { callback = fn, noremap = true, nowait = true, silent = true })
    end
  end
  local function answers(value)
    return function()
      answer(key, value)
    end
  end
  local function allows(value)
    return function()
      if opts.deny_only then
        return
      end
      look()
      if not ask.seen_end then
        api.nvim_echo({ { SCROLL_FIRST, 'WarningMsg' } }, true, {})
        return
      end
      answer(key, value)
    end
  end
  on('o', allows({ kind = 'allow_once' }))
  on('a', allows({ kind = 'allow_always' }))
  on('d', answers({ kind = 'deny' }))
  on('q', answers({ kind = 'deny' }))
  on('<Esc>', answers({ kind = 'deny' }))
  on('r', function()
    local ask = R.asks[key]
    if not ask or ask.reading then
      return
    end
    ask.reading = true
    local ok, reason = pcall(vim.fn.input, 'Reason for denying: ')
    if R.asks[key] then
      local value = { kind = 'deny' }
      if ok and reason ~= '' then
        value.reason = reason
      end
      answer(key, value)
    end
  end)
  -- Scrolling in Insert mode (Normal and Visual mode scroll as they always do).
  for _, lhs in ipairs({ 'j', 'k', 'G', 'gg', '<C-d>', '<C-u>', '<C-f>', '<C-b>' }) do
    local keys = api.nvim_replace_termcodes(lhs, true, false, true)
    api.nvim_buf_set_keymap(buf, 'i', lhs, '', {
      noremap = true,
      silent = true,
      callback = function()
        vim.cmd('normal! ' .. keys)
        look()
      end,
    })
  end
  -- Leaving by closing the window (:q, <C-w>c) is a deny too.
  api.nvim_create_autocmd('WinClosed', {
    pattern = tostring(win),
    once = true,
    callback = function()
      if R.asks[key] then
        vim.schedule(function()
          answer(key, { kind = 'deny' })
        end)
      end
    end,
  })
end

if op == 'open' then
  open()
elseif op == 'close' then
  local ask = finish(channel .. ':' .. id)
  -- An input() still waiting for the reason: cancel it (its answer is no longer wanted).
  if ask and ask.reading and api.nvim_get_mode().mode:sub(1, 1) == 'c' then
    api.nvim_input('<C-c>')
  end
end
