-- vimrelay's permission prompt in Neovim (README "Permissions": ask shows a prompt inside the editor).
--
-- Contract: `...` is (op, channel, id, lines, opts), run with one nvim_exec_lua per op; opts are
-- agent/editors/prompts.ts editorPromptOptions (deny_only, quiet_ms, arm_ms).
-- - 'open' shows `lines` at once in a centred floating window (relative 'editor', a border) over a
--   scratch buffer, without entering it: whatever the user is typing goes on where it was. Long
--   lines are cut into lines of the window's width (a window cannot scroll within one line), so
--   each buffer line is one screen row. The prompt takes keys (its window becomes the current one,
--   in Normal mode) only once no key has been typed for opts.quiet_ms (g:vimrelay_prompt_delay_ms
--   if longer), counted from when it showed, and only from Normal, Visual, Insert, Replace or Terminal mode (never in the middle of
--   a command line, an operator, or a prompt of Neovim's own): Insert, Replace and Terminal mode
--   are left for it (:stopinsert) and given back when it closes, with the cursor where it was
--   unless a tool moved it meanwhile; a Visual selection ends and is selected again (gv). A user
--   who goes into the window themselves (CTRL-W w) gives it keys the same way; one who leaves it
--   takes them back until they return.
--   Its keys (buffer-local, Normal and Visual mode): CTRL-G allow once, CTRL-T allow always in this
--   editor (the agent decides what "always" means for it), d deny, r deny with a reason (asked
--   with input()), q and <Esc> deny, as does closing the window; j, k, CTRL-D, CTRL-U, CTRL-F,
--   CTRL-B, G, gg scroll as in any window; the keys that start Insert mode do nothing. A key
--   answers only opts.arm_ms (or g:vimrelay_prompt_delay_ms, if longer) after the prompt took keys,
--   and allow only that long after its view last moved and once every row has been on screen (else a message says what to wait for); with
--   opts.deny_only the allow keys do nothing at all. The answer goes to `channel` as
--   rpcnotify(channel, 'vimrelay_ask', id, answer), and the window closes.
-- - 'close' takes prompt `id` down without an answer (the agent's deadline passed, or another
--   surface answered it first), ending an input() still waiting for its reason; opts.notice, if
--   not empty, is shown as a one-line message whether the prompt was still shown or not (its
--   user's own answer may have lost the race: they are told who answered first).
-- - 'state' returns the prompts shown, each {id, taking_keys, armed, rows, unseen}, for
--   :VimRelayStatus and the tests.
-- Nothing here blocks: while a prompt is open Neovim serves every other request (and tools run in
-- the user's window: core.lua's M.call). Works on Neovim 0.7 (no float `title` there).
local op, channel, id, lines, opts = ...

-- `api`, `uv`, `R` (_G.__vimrelay), now() and notice() come from lua/decision_ui.lua, before this.
R.asks = R.asks or {}

-- Visual, Visual-line and Visual-block mode, as nvim_get_mode() names them.
local VISUAL = { v = true, V = true, ['\22'] = true }
-- The modes a prompt may take keys from, and the command that gives each back.
local GIVE_BACK = { i = 'startinsert', ic = 'startinsert', ix = 'startinsert', R = 'startreplace', Rc = 'startreplace', Rx = 'startreplace', Rv = 'startreplace', t = 'startinsert' }

-- Gives the user back what taking keys took from them (their window, Visual or Insert mode).
local function give_back(ask)
  if not api.nvim_win_is_valid(ask.prev) then
    return
  end
  if api.nvim_get_current_win() ~= ask.prev then
    pcall(api.nvim_set_current_win, ask.prev)
  end
  if api.nvim_get_current_win() ~= ask.prev then
    return
  end
  if ask.visual then
    -- Typed ahead: a Visual mode started by :normal would end with the command.
    api.nvim_feedkeys('gv', 'n', false)
  elseif ask.back then
    local back = ask.back
    -- :stopinsert left the cursor one to the left; anywhere else, a tool moved it: leave it there.
    local row, col = unpack(api.nvim_win_get_cursor(ask.prev))
    if row == back.cursor[1] and col == math.max(0, back.cursor[2] - 1) then
      pcall(api.nvim_win_set_cursor, ask.prev, back.cursor)
      col = back.cursor[2]
    end
    local at_end = back.cmd == 'startinsert' and col >= #api.nvim_get_current_line() and col > 0
    vim.cmd(at_end and 'startinsert!' or back.cmd)
  end
end

-- Takes prompt `key` down: forgets it, closes its window and, when it had the user's keys, gives
-- them back.
local function finish(key)
  local ask = R.asks[key]
  if not ask then
    return nil
  end
  R.asks[key] = nil
  if ask.timer then
    ask.timer:stop()
    ask.timer:close()
  end
  local was_current = api.nvim_get_current_win() == ask.win
  if api.nvim_win_is_valid(ask.win) then
    pcall(api.nvim_win_close, ask.win, true)
  end
  if was_current and ask.prev then
    give_back(ask)
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

-- `line` cut into pieces of at most `width` display cells, never inside a character.
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

-- Notes the rows on screen now, and when the view last moved.
local function look(ask)
  if not api.nvim_win_is_valid(ask.win) then
    return
  end
  local top, bottom = vim.fn.line('w0', ask.win), vim.fn.line('w$', ask.win)
  if top ~= ask.top then
    ask.top = top
    ask.moved_at = now()
  end
  for row = top, bottom do
    if not ask.seen[row] then
      ask.seen[row] = true
      ask.unseen = ask.unseen - 1
    end
  end
end

-- The prompt has the user's keys from now on (`prev`: the window they came from).
local function taking(ask, prev)
  ask.prev = prev
  ask.took_at = now()
  ask.moved_at = ask.took_at
  if ask.timer then
    ask.timer:stop()
  end
end

-- Takes keys for prompt `key` when the user has stopped typing, in a mode it may take them from.
local function try_take(key)
  local ask = R.asks[key]
  if not ask or ask.took_at or ask.left or not api.nvim_win_is_valid(ask.win) then
    return
  end
  if now() - math.max(ask.shown_at, R.last_key or 0) < ask.quiet_ms then
    return
  end
  local mode = api.nvim_get_mode()
  local m = mode.mode
  if mode.blocking or not (m == 'n' or m == 'nt' or VISUAL[m] or GIVE_BACK[m]) then
    return
  end
  local prev = api.nvim_get_current_win()
  if VISUAL[m] then
    -- Visual mode would follow the user into the prompt and end there without recording the
    -- selection: end it here, which records it for gv when the prompt closes.
    vim.cmd('normal! \27')
    ask.visual = true
  elseif GIVE_BACK[m] then
    ask.back = { cmd = GIVE_BACK[m], cursor = api.nvim_win_get_cursor(prev) }
    vim.cmd('stopinsert')
  end
  taking(ask, prev)
  api.nvim_set_current_win(ask.win)
end

-- Whether prompt `ask`'s keys answer yet; says what to wait for when they do not.
local function armed(ask, allow)
  local t = now()
  if not ask.took_at or t - ask.took_at < ask.arm_ms then
    notice('vimrelay: read the prompt; its keys answer in a moment')
    return false
  end
  if not allow then
    return true
  end
  look(ask)
  if ask.unseen > 0 then
    notice(('vimrelay: scroll through all of it first (%d rows unseen)'):format(ask.unseen))
    return false
  end
  if t - ask.moved_at < ask.arm_ms then
    notice('vimrelay: allow answers a moment after the last scroll')
    return false
  end
  return true
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
  local win = api.nvim_open_win(buf, false, {
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
  local ask = {
    id = id,
    channel = channel,
    win = win,
    shown_at = now(),
    -- A user who reads slowly may make these longer, never shorter.
    quiet_ms = math.max(opts.quiet_ms, tonumber(vim.g.vimrelay_prompt_delay_ms) or 0),
    arm_ms = math.max(opts.arm_ms, tonumber(vim.g.vimrelay_prompt_delay_ms) or 0),
    seen = {},
    unseen = #shown,
    timer = uv.new_timer(),
  }
  R.asks[key] = ask
  look(ask)
  ask.timer:start(0, 50, vim.schedule_wrap(function()
    try_take(key)
  end))
  api.nvim_create_autocmd({ 'CursorMoved', 'WinScrolled' }, { buffer = buf, callback = function()
    look(ask)
  end })
  -- The user went into the prompt themselves, or out of it.
  api.nvim_create_autocmd('WinEnter', { buffer = buf, callback = function()
    if R.asks[key] and not ask.took_at then
      ask.left = nil
      taking(ask, vim.fn.win_getid(vim.fn.winnr('#')))
    end
  end })
  api.nvim_create_autocmd('WinLeave', { buffer = buf, callback = function()
    if R.asks[key] then
      ask.took_at, ask.left, ask.visual, ask.back = nil, true, nil, nil
    end
  end })
  -- No Insert mode in the prompt, whatever starts it.
  api.nvim_create_autocmd('InsertEnter', { buffer = buf, command = 'stopinsert' })

  local function on(lhs, fn)
    for _, mode in ipairs({ 'n', 'x' }) do
      api.nvim_buf_set_keymap(buf, mode, lhs, '', { callback = fn, noremap = true, nowait = true, silent = true })
    end
  end
  local function answers(value)
    return function()
      if armed(ask, false) then
        answer(key, value)
      end
    end
  end
  local function allows(value)
    return function()
      if not opts.deny_only and armed(ask, true) then
        answer(key, value)
      end
    end
  end
  on('<C-g>', allows({ kind = 'allow_once' }))
  on('<C-t>', allows({ kind = 'allow_always' }))
  on('d', answers({ kind = 'deny' }))
  on('q', answers({ kind = 'deny' }))
  on('<Esc>', answers({ kind = 'deny' }))
  on('r', function()
    if not R.asks[key] or ask.reading or not armed(ask, false) then
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
  for _, lhs in ipairs({ 'i', 'I', 'a', 'A', 'o', 'O', 's', 'S', 'c', 'C', 'R', 'gi', 'gI' }) do
    on(lhs, function() end)
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
  if opts and opts.notice and opts.notice ~= '' then
    notice(opts.notice)
  end
elseif op == 'state' then
  local out = {}
  local t = now()
  for _, ask in pairs(R.asks) do
    look(ask)
    out[#out + 1] = {
      id = ask.id,
      taking_keys = ask.took_at ~= nil,
      armed = ask.took_at ~= nil and t - ask.took_at >= ask.arm_ms and t - ask.moved_at >= ask.arm_ms,
      rows = #api.nvim_buf_get_lines(api.nvim_win_get_buf(ask.win), 0, -1, true),
      unseen = ask.unseen,
    }
  end
  return out
end
