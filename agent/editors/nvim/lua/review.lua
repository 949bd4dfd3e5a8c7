-- vimrelay's reviews in Neovim (README "Reviews"): a proposed edit shown as a diff in a tab of its
-- own, which the user accepts (changed or not) or rejects.
--
-- Contract: `...` is (op, channel, id, spec), run with one nvim_exec_lua per op.
-- - 'open' takes review `id`: spec = {buf (the real buffer), header (lines), proposed (lines),
--   quiet_ms}. The review comes to the front only while the user is not typing: in Normal mode with
--   no key for spec.quiet_ms (vimrelay hears keys from its first prompt or review on); until then a
--   one-line float at the top right says that a review waits (the message line is no place for it:
--   Insert mode's "-- INSERT --" takes it over at once), and :VimRelayReview brings the oldest
--   waiting one to the front at once.
--   At the front it is a new tab: the real buffer on the left and, on the right, the proposal in a
--   scratch buffer named vimrelay://review/<id> (editable: take a change back with `do` or
--   :diffget, type), both in diff mode, the header in a window above them. Nothing in the user's
--   own tabs changes. In that tab, ZA or :VimRelayAccept sends the proposal as it stands, and ZR
--   (asking for a reason) or :VimRelayReject [reason] rejects it, as rpcnotify(channel,
--   'vimrelay_review', id, {kind = 'accept', lines} | {kind = 'reject', reason?}); the header then
--   says the decision went to the agent, and further keys do nothing. Closing the tab, or the
--   proposal's window, before deciding is a reject with the reason "closed".
-- - 'close' takes review `id` down (the agent has settled it): its tab closes (the window the user
--   came from is current again when the review's tab was), or it stops waiting to come to the front;
--   spec.message, if any, is shown as a one-line notice.
-- - 'expire' keeps its tab but says in the header that it expired: its keys do nothing any more.
-- - 'state' returns every review this Neovim holds: {id, shown, decided, expired}.
-- Works on Neovim 0.7 and newer.
local op, channel, id, spec = ...

-- `api`, `uv`, `R` (_G.__vimrelay), now() and notice() come from lua/decision_ui.lua, before this.
R.reviews = R.reviews or {}
R.review_order = R.review_order or 0

-- The notice that `review` waits: a float at the top right of the screen, never focused, which the
-- user's keys go past; it stays until the review comes to the front or closes.
local WAITING = ' vimrelay: a review waits for you: :VimRelayReview '

local function open_notice(review)
  local buf = api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = 'wipe'
  api.nvim_buf_set_lines(buf, 0, -1, true, { WAITING })
  local ok, win = pcall(api.nvim_open_win, buf, false, {
    relative = 'editor',
    row = 0,
    col = vim.o.columns,
    anchor = 'NE',
    width = math.min(vim.fn.strdisplaywidth(WAITING), vim.o.columns),
    height = 1,
    style = 'minimal',
    focusable = false,
    zindex = 200,
    noautocmd = true,
  })
  if ok then
    vim.wo[win].winhighlight = 'Normal:WarningMsg'
    review.notice_win = win
  else
    notice(WAITING)
  end
end

local function close_notice(review)
  if review.notice_win and api.nvim_win_is_valid(review.notice_win) then
    api.nvim_win_close(review.notice_win, true)
  end
  review.notice_win = nil
end

-- Sets the header's text (not modifiable for the user).
local function set_header(review, lines)
  if review.header_buf and api.nvim_buf_is_valid(review.header_buf) then
    vim.bo[review.header_buf].modifiable = true
    api.nvim_buf_set_lines(review.header_buf, 0, -1, true, lines)
    vim.bo[review.header_buf].modifiable = false
  end
end

-- Sends the user's decision on `review` (once) and says so in its header.
local function decide(review, answer)
  if review.decided or review.expired or not R.reviews[review.key] then
    notice(review.expired and 'vimrelay: this review expired: nothing will be applied; close its tab' or 'vimrelay: this review is decided already')
    return
  end
  if api.nvim_get_chan_info(review.channel).id == nil then
    notice('vimrelay: the agent that asked for this review has gone: close its tab')
    return
  end
  review.decided = true
  set_header(review, { 'vimrelay: ' .. (answer.kind == 'accept' and 'accepted' or 'rejected') .. ': the agent is making it so…' })
  pcall(vim.rpcnotify, review.channel, 'vimrelay_review', review.id, answer)
end

local function accept(review)
  if not api.nvim_buf_is_valid(review.prop_buf) then
    return
  end
  decide(review, { kind = 'accept', lines = api.nvim_buf_get_lines(review.prop_buf, 0, -1, true) })
end

local function reject(review, reason)
  local answer = { kind = 'reject' }
  if reason and reason ~= '' then
    answer.reason = reason
  end
  decide(review, answer)
end

-- The review the current tab shows, if any.
local function current_review()
  local tab = api.nvim_get_current_tabpage()
  for _, review in pairs(R.reviews) do
    if review.tab == tab then
      return review
    end
  end
end

-- Brings `review` to the front: its tab, made now (see the header).
local function show(review)
  review.shown = true
  if review.timer then
    review.timer:stop()
  end
  close_notice(review)
  local s = review.spec
  review.prev_win = api.nvim_get_current_win()
  -- Not :tab sbuffer, which 'switchbuf' may send to a window of the user's.
  vim.cmd('keepalt tab split')
  vim.cmd('keepalt buffer ' .. s.buf)
  review.tab = api.nvim_get_current_tabpage()
  api.nvim_tabpage_set_var(review.tab, 'vimrelay_review', review.id)
  local real_win = api.nvim_get_current_win()
  vim.cmd('rightbelow vnew')
  local prop_win = api.nvim_get_current_win()
  local prop = api.nvim_get_current_buf()
  review.prop_buf = prop
  vim.bo[prop].buftype = 'nofile'
  vim.bo[prop].bufhidden = 'wipe'
  vim.bo[prop].swapfile = false
  pcall(api.nvim_buf_set_name, prop, 'vimrelay://review/' .. review.id)
  -- The user's alone to change: no tool edits it (util.lua check_modifiable).
  vim.b[prop].vimrelay_review = review.id
  api.nvim_buf_set_lines(prop, 0, -1, true, s.proposed)
  vim.bo[prop].modified = false
  vim.bo[prop].filetype = vim.bo[s.buf].filetype
  for _, win in ipairs({ real_win, prop_win }) do
    api.nvim_win_call(win, function()
      vim.cmd('diffthis')
    end)
  end
  vim.cmd('topleft new')
  local header = api.nvim_get_current_buf()
  review.header_buf = header
  vim.bo[header].buftype = 'nofile'
  vim.bo[header].bufhidden = 'wipe'
  vim.bo[header].swapfile = false
  api.nvim_buf_set_lines(header, 0, -1, true, s.header)
  vim.bo[header].modifiable = false
  local rows = 0
  for _, line in ipairs(s.header) do
    rows = rows + math.max(1, math.ceil(vim.fn.strdisplaywidth(line) / math.max(1, vim.o.columns)))
  end
  api.nvim_win_set_height(0, rows)
  vim.wo.winfixheight = true
  vim.wo.wrap = true
  api.nvim_set_current_win(prop_win)
  local key = review.key
  for _, b in ipairs({ prop, header }) do
    api.nvim_buf_set_keymap(b, 'n', 'ZA', '', { noremap = true, nowait = true, callback = function()
      accept(R.reviews[key] or review)
    end })
    api.nvim_buf_set_keymap(b, 'n', 'ZR', '', { noremap = true, nowait = true, callback = function()
      local ok, reason = pcall(vim.fn.input, 'Reason for rejecting: ')
      if ok then
        reject(R.reviews[key] or review, reason)
      end
    end })
  end
  -- The proposal going away before a decision (its tab or window closed) rejects it.
  api.nvim_create_autocmd('BufWipeout', { buffer = prop, once = true, callback = function()
    local r = R.reviews[key]
    if r and r.expired then
      R.reviews[key] = nil
    elseif r and not r.decided then
      vim.schedule(function()
        reject(r, 'closed')
      end)
    end
  end })
end

-- Brings `review` to the front once the user is in Normal mode and has stopped typing.
local function try_show(key)
  local review = R.reviews[key]
  if not review or review.shown then
    return
  end
  local mode = api.nvim_get_mode()
  if mode.blocking or mode.mode ~= 'n' or vim.fn.getcmdwintype() ~= '' then
    return
  end
  if now() - (R.last_key or 0) < review.spec.quiet_ms then
    return
  end
  show(review)
end

-- The commands, defined (again) by each op, so that they call this version of the code.
R.review_commands = {
  go = function()
    local oldest
    for _, review in pairs(R.reviews) do
      if not review.shown and (not oldest or review.order < oldest.order) then
        oldest = review
      end
    end
    if oldest then
      show(oldest)
    else
      notice('vimrelay: no review waits')
    end
  end,
  accept = function()
    local review = current_review()
    if review then
      accept(review)
    else
      notice('vimrelay: this tab is no review')
    end
  end,
  reject = function(reason)
    local review = current_review()
    if review then
      reject(review, reason)
    else
      notice('vimrelay: this tab is no review')
    end
  end,
}
if not R.review_commands_made then
  R.review_commands_made = true
  api.nvim_create_user_command('VimRelayReview', function()
    R.review_commands.go()
  end, { desc = 'vimrelay: bring the oldest waiting review to the front' })
  api.nvim_create_user_command('VimRelayAccept', function()
    R.review_commands.accept()
  end, { desc = 'vimrelay: accept the review in this tab, as it stands' })
  api.nvim_create_user_command('VimRelayReject', function(c)
    R.review_commands.reject(c.args)
  end, { nargs = '?', desc = 'vimrelay: reject the review in this tab, with a reason' })
end

-- Takes review `key` down: its tab closes, or it stops waiting.
local function finish(key, message)
  local review = R.reviews[key]
  if not review then
    return
  end
  R.reviews[key] = nil
  if review.timer then
    review.timer:stop()
    review.timer:close()
  end
  close_notice(review)
  if review.tab and api.nvim_tabpage_is_valid(review.tab) then
    local was_current = api.nvim_get_current_tabpage() == review.tab
    for _, win in ipairs(api.nvim_tabpage_list_wins(review.tab)) do
      pcall(api.nvim_win_call, win, function()
        vim.cmd('diffoff')
      end)
    end
    if #api.nvim_list_tabpages() > 1 then
      -- With !, a changed buffer shown nowhere else becomes hidden rather than stop the close.
      vim.cmd('tabclose! ' .. api.nvim_tabpage_get_number(review.tab))
    end
    if was_current and review.prev_win and api.nvim_win_is_valid(review.prev_win) then
      api.nvim_set_current_win(review.prev_win)
    end
  end
  if message and message ~= '' then
    notice(message)
  end
end

local key = channel .. ':' .. tostring(id)
if op == 'open' then
  R.review_order = R.review_order + 1
  local review = { key = key, id = id, channel = channel, spec = spec, order = R.review_order }
  R.reviews[key] = review
  try_show(key)
  if not review.shown then
    review.timer = uv.new_timer()
    review.timer:start(100, 100, vim.schedule_wrap(function()
      try_show(key)
    end))
    open_notice(review)
  end
elseif op == 'close' then
  finish(key, spec and spec.message)
elseif op == 'expire' then
  local review = R.reviews[key]
  if review then
    review.expired = true
    set_header(review, { 'vimrelay: this review expired: nothing will be applied. Close this tab (:tabclose).' })
  end
elseif op == 'state' then
  local out = {}
  for _, review in pairs(R.reviews) do
    out[#out + 1] = { id = review.id, shown = review.shown == true, decided = review.decided == true, expired = review.expired == true }
  end
  return out
end
