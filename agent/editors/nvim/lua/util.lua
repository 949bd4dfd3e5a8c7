-- vimrelay's helpers, shared by every tool: failures, text, buffers, result budgets, state views,
-- columns and decorations, commands and running inside a buffer. Installed by core.lua before the
-- tools, into the same table: `...` is that table (M, one agent version's install; M.shared is
-- what every install shares). Nothing here runs on its own.
-- Works on Neovim 0.7 and newer: what differs between them is in compat.lua.
local M = ...

local api = vim.api
local uv = M.compat.uv

-- Failures ----------------------------------------------------------------------------------------

-- The metatable that marks a tool failure, kept in M.shared: every agent that attaches this Neovim
-- (this one again, or another on the machine) reinstalls these helpers, and a failure raised under
-- one install must still be one under the next. A call waiting on a prompt straddles installs:
-- when it was tied to each install, its TIMEOUT came back as EDITOR_ERROR "table: 0x...".
M.shared.Failure = M.shared.Failure or {}
local Failure = M.shared.Failure

--- Whether `e` (an error value) is a tool failure raised by M.fail.
function M.is_failure(e)
  return getmetatable(e) == Failure
end

--- Aborts the running tool with a tool error: `code` is a protocol error code, `details` extra keys
--- of the error body (e.g. hint, current_changedtick).
function M.fail(code, message, details)
  local e = details or {}
  e.code = code
  e.message = message
  error(setmetatable(e, Failure), 0)
end

-- Text --------------------------------------------------------------------------------------------

--- Number of characters (code points) in a UTF-8 string: its bytes that are not continuation
--- bytes. Done by hand because vim.str_utfindex changed its signature in Neovim 0.11.
function M.char_len(s)
  local _, n = s:gsub('[^\128-\191]', '')
  return n
end

local str_byte = string.byte

--- The bytes of `s` that are in no UTF-8 sequence (RFC 3629: no overlong form, surrogate or code
--- point past U+10FFFF). The agent reads each as U+FFFD, 3 bytes (connection.ts: WHATWG Encoding
--- replaces each maximal invalid subpart, of 1 to 3 bytes, with one U+FFFD, so counting 3 for
--- each is an upper bound).
local function bad_bytes(s)
  local bad, i, n = 0, 1, #s
  while i <= n do
    local c = str_byte(s, i)
    if c < 0x80 then
      i = i + 1
    else
      -- The sequence's length and the range of its second byte, by its first.
      local len, lo, hi = 0, 0x80, 0xBF
      if c >= 0xC2 and c <= 0xDF then
        len = 2
      elseif c >= 0xE0 and c <= 0xEF then
        len, lo, hi = 3, c == 0xE0 and 0xA0 or 0x80, c == 0xED and 0x9F or 0xBF
      elseif c >= 0xF0 and c <= 0xF4 then
        len, lo, hi = 4, c == 0xF0 and 0x90 or 0x80, c == 0xF4 and 0x8F or 0xBF
      end
      local j = 1
      while j < len do
        local b = str_byte(s, i + j) or 0
        if b < lo or b > hi then
          break
        end
        lo, hi, j = 0x80, 0xBF, j + 1
      end
      if len > 0 and j == len then
        i = i + len
      else
        bad, i = bad + 1, i + 1
      end
    end
  end
  return bad
end

--- The bytes `value` takes as JSON text, plus a separator: what every byte cap counts (M.budget,
--- read_buffer). cjson passes bytes that are not UTF-8 through, and the agent reads each as a
--- 3-byte U+FFFD; with `exact` (the params' `exact_sizes`) they are counted so. Without it they
--- count as one: looking for them would add some 40% to the Lua of every 1,000-line read, and the
--- agent asks again with `exact_sizes` only when an answer grew past the cap (nvim/editor.ts);
--- the lsp_* answers, which come later and cannot be asked again, always count so (lsp.lua L.budget).
function M.json_size(value, exact)
  return M.text_size(vim.json.encode(value), exact)
end

--- What M.json_size counts for JSON text already encoded: its bytes plus a separator. For the text
--- of an array it counts two more than M.json_size counts for its values, summed: the brackets,
--- and one separator fewer.
function M.text_size(text, exact)
  if exact then
    return #text + 2 * bad_bytes(text) + 1
  end
  return #text + 1
end

-- The metatable of a result one of whose fields is JSON text already encoded (M.spliced).
local Spliced = {}

--- The result `value` (a table, without `key`) with `key` set to the value whose JSON text is
--- `json`, for a tool that encoded it already to count its size: M.encode sends that text as it
--- is rather than encoding the value a second time.
function M.spliced(value, key, json)
  return setmetatable({ value = value, key = key, json = json }, Spliced)
end

--- A tool's result as the JSON text the agent parses (core.lua). Key order is not kept: JSON
--- objects have none (RFC 8259 section 4).
function M.encode(result)
  if getmetatable(result) ~= Spliced then
    return vim.json.encode(result)
  end
  local head = vim.json.encode(result.value)
  return head:sub(1, -2) .. (head == '{}' and '' or ',') .. vim.json.encode(result.key) .. ':' .. result.json .. '}'
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

--- A function telling whether buffer `b` holds one of the files `withheld` lists (absolute names or
--- real paths; the agent's never_read, agent/editors/call.ts `withheldPaths`), asked once per buffer.
function M.withheld_buffers(withheld)
  local files, known = {}, {}
  for _, path in ipairs(withheld or {}) do
    files[path] = true
  end
  return function(b)
    if next(files) == nil then
      return false
    end
    if known[b] == nil then
      local path = api.nvim_buf_is_valid(b) and M.buf_path(b) or vim.NIL
      known[b] = path ~= vim.NIL and (files[path] or files[uv.fs_realpath(path) or ''] or false) or false
    end
    return known[b]
  end
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

--- The buffer write_buffer writes for `ref` (a number, or a path that may have no buffer), whether
--- it was created (a path with neither buffer nor file: a new listed buffer of that name), and
--- whether it was added for a file on disk (a new listed buffer, not loaded yet). A path whose file
--- exists needs `expected`: refused before any buffer is made without one (write_buffer.lua).
function M.write_target(ref, expected)
  if type(ref) == 'number' then
    return M.resolve(ref), false, false
  end
  local b, path = M.find_by_path(ref)
  if b then
    return b, false, false
  end
  local stat = uv.fs_stat(path)
  if stat then
    if stat.type ~= 'file' then
      M.fail('INVALID_ARGUMENT', path .. ' is a ' .. stat.type .. ', not a file.')
    end
    if expected == nil then
      M.fail('INVALID_ARGUMENT', path .. ' exists on disk, so expected_changedtick is required. Nothing was changed.', {
        path = path,
        hint = 'Call open_file on the path, which gives its changedtick (read_buffer then shows its text), and pass that as expected_changedtick.',
      })
    end
    b = vim.fn.bufadd(path)
    vim.bo[b].buflisted = true
    return b, false, true
  end
  b = api.nvim_create_buf(true, false)
  api.nvim_buf_set_name(b, path)
  return b, true, false
end

--- Loads a buffer that exists but is not loaded (reads its file; never prompts about swap files).
--- Loading runs the user's autocommands and filetype plugins, as their opening it would; one that
--- fails once the text is in (an ftplugin's error, a tree-sitter parser it cannot find) does not
--- fail the tool: only a buffer that did not load does.
function M.ensure_loaded(b)
  if not api.nvim_buf_is_loaded(b) then
    local ok, err = pcall(vim.fn.bufload, b)
    if not ok and not api.nvim_buf_is_loaded(b) then
      error(err, 0)
    end
  end
end

--- Fails with EDITOR_ERROR, `nothing` ending the message (what did not happen), while the user is
--- in the command-line window (q:, q/): no window may show another buffer then. Vim refuses it
--- (E11); Neovim 0.7 would show the buffer in that window in place of the user's command history.
function M.refuse_in_cmdwin(nothing)
  local kind = vim.fn.getcmdwintype()
  if kind ~= '' then
    M.fail('EDITOR_ERROR', 'The user is in the command-line window (q' .. kind .. '), where no window can show another buffer (E11). ' .. nothing, {
      hint = 'Ask the user to leave the command-line window (:q or Ctrl-C there), then retry.',
    })
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

-- Fails with EDITOR_ERROR, naming the buffer, when its text cannot be changed: a terminal (its
-- text is the job's output), 'modifiable' off, or the proposal of a review (review.lua), which is
-- the user's alone to change while they decide: an edit of it would be accepted as theirs, unseen.
-- The editing tools call it before anything else, the changedtick check included (a terminal's
-- tick moves with its output: the wrong reason).
function M.check_modifiable(b)
  local name = M.buf_path(b)
  local which = 'Buffer ' .. b .. (name ~= vim.NIL and ' (' .. name .. ')' or '')
  local review = vim.b[b].vimrelay_review
  if review then
    M.fail('EDITOR_ERROR', which .. ' is the proposal of review ' .. review .. ', which only the user changes while they decide. Nothing was changed.', {
      hint = "Wait for the user's decision (review_status with that id), then read the buffer the review was about.",
    })
  end
  if vim.bo[b].buftype == 'terminal' then
    M.fail('EDITOR_ERROR', which .. ' is a terminal, whose text is its output: it cannot be edited. Nothing was changed.', {
      hint = 'To type into the terminal, use send_to_terminal.',
    })
  end
  if not vim.bo[b].modifiable then
    M.fail('EDITOR_ERROR', which .. " is not modifiable ('modifiable' is off). Nothing was changed.", {
      hint = "The user or a plugin turned 'modifiable' off. Only if the user wants it edited, turn it on (run_command "
        .. "`call setbufvar(" .. b .. ", '&modifiable', 1)`, :setlocal modifiable in its window), then retry.",
    })
  end
end

--- Closes the buffer's current undo block. Called before and after an edit, so that the edit is an
--- undo step of its own: it joins neither the insert the user may be in the middle of, nor a change
--- made right after it by another API client. Setting 'undolevels', even to its own value, syncs
--- undo (:h undo-break); the local value is written back unchanged.
function M.break_undo(b)
  vim.bo[b].undolevels = vim.bo[b].undolevels
end

-- Modes in which the user is typing text (nvim_get_mode, mode(1)); not the completion sub-modes,
-- where CTRL-G would end the completion.
local TYPING = { i = true, R = true, Rv = true }

-- Run as typed keys (<Cmd> looks again when it runs: in another mode, or another buffer, it does
-- nothing): CTRL-G u in Insert or Replace mode in buffer %d.
local RESTART_INSERT = '<Cmd>if bufnr("%%") == %d && index(["i", "R", "Rv"], mode(1)) >= 0'
  .. ' | call feedkeys(nr2char(7) .. "u", "ni") | endif<CR>'

--- Ends an edit of buffer b: closes its undo block (M.break_undo), and when the user is typing in
--- b, makes what they type next an undo step of its own, as CTRL-G u does (i_CTRL-G_u). Insert
--- mode saved the line for undo when the insert began and, on Neovim 0.7 (and Vim), not again
--- after a change made behind its back: a line break typed after the edit went unrecorded, and
--- undoing the edit then took the user's new line with it (Neovim 0.10+ saves again by itself
--- after every request). The keys go ahead of anything already typed.
function M.end_edit(b)
  M.break_undo(b)
  if TYPING[api.nvim_get_mode().mode] then
    api.nvim_feedkeys(api.nvim_replace_termcodes(RESTART_INSERT:format(b), true, false, true), 'ni', false)
  end
end

--- nvim_buf_set_text(b, sr, sc, er, ec, lines) (0-based rows, byte columns, end exclusive), keeping
--- on its text the cursor of every other window showing `b` that sits on the range's last line at
--- or after its end. Neovim moves the current window's cursor with the text, but another window's
--- (0.7.2 measured) only by lines when the edit spans lines or adds some: its byte column stayed
--- where it was, off by the change in how that line begins. Every other cursor Neovim keeps right.
function M.set_text(b, sr, sc, er, ec, lines)
  local current = api.nvim_get_current_win()
  local last = lines[#lines]
  local moved = {}
  if er > sr or #lines > 1 then
    for _, win in ipairs(vim.fn.win_findbuf(b)) do
      local at = api.nvim_win_get_cursor(win)
      if win ~= current and at[1] - 1 == er and at[2] >= ec then
        local start = #lines == 1 and sc or 0
        moved[#moved + 1] = { win, { sr + #lines, start + #last + at[2] - ec } }
      end
    end
  end
  api.nvim_buf_set_text(b, sr, sc, er, ec, lines)
  for _, m in ipairs(moved) do
    api.nvim_win_set_cursor(m[1], m[2])
  end
end

--- Whether loaded buffer `b` holds no text: no line at all (a 0-byte file read in, or every line
--- deleted), or one empty line written without an end-of-line. nvim_buf_get_lines shows {""} for
--- these and for a file that is one empty line ("\n") alike; wordcount() counts what would be
--- written, and is 0 only for the former.
function M.holds_no_text(b)
  return M.in_buffer(b, false, function()
    return vim.fn.wordcount().bytes == 0
  end)
end

-- Results: sizes, cut text, positions --------------------------------------------------------------

--- `s` cut to at most `max` bytes without splitting a character; second result: whether it was cut.
function M.cut(s, max)
  if #s <= max then
    return s, false
  end
  local stop = max
  -- Back off from continuation bytes (0x80-0xBF) to the start of the character at max + 1.
  while stop > 0 and s:byte(stop + 1) >= 0x80 and s:byte(stop + 1) < 0xC0 do
    stop = stop - 1
  end
  return s:sub(1, stop), true
end

--- The 1-based column, in characters, of the 0-based byte offset `byte` in `line`.
function M.char_col(line, byte)
  return M.char_len(line:sub(1, byte)) + 1
end

--- A byte budget for one result, counted as the JSON text of its items (M.json_size, `exact` as
--- there; a slight overestimate of what the agent sends: cjson also escapes "/"). `take(item)`
--- adds the item and returns true when it still fits, else returns false and adds nothing;
--- `take(item, true)` adds it regardless (for what a result cannot leave out).
function M.budget(max_bytes, exact)
  local used = 0
  local self = {}
  function self.take(item, force)
    local n = M.json_size(item, exact)
    if used + n > max_bytes and not force then
      return false
    end
    used = used + n
    return true
  end
  return self
end

-- State: what get_state_brief and get_state say about a buffer or a window ------------------------

--- Number, path, name, flags, line count and changedtick of a buffer (the last two null when it is
--- not loaded).
function M.buffer_summary(b)
  local loaded = api.nvim_buf_is_loaded(b)
  return {
    buf = b,
    path = M.buf_path(b),
    name = vim.fn.bufname(b),
    listed = vim.bo[b].buflisted,
    loaded = loaded,
    modified = vim.bo[b].modified,
    buftype = vim.bo[b].buftype,
    filetype = vim.bo[b].filetype,
    line_count = loaded and api.nvim_buf_line_count(b) or vim.NIL,
    changedtick = loaded and api.nvim_buf_get_changedtick(b) or vim.NIL,
  }
end

--- A window with its buffer, cursor (column in characters) and `context_lines` lines of context
--- each side of the cursor, each cut to `line_bytes` bytes (`lines_cut` says whether any was).
function M.window_view(win, role, context_lines, line_bytes)
  local b = api.nvim_win_get_buf(win)
  local cursor = api.nvim_win_get_cursor(win)
  local line, byte = cursor[1], cursor[2]
  local first = math.max(1, line - context_lines)
  local lines = api.nvim_buf_get_lines(b, first - 1, line + context_lines, false)
  local current = lines[line - first + 1] or ''
  local any_cut = false
  for i, l in ipairs(lines) do
    local was_cut
    lines[i], was_cut = M.cut(l, line_bytes)
    any_cut = any_cut or was_cut
  end
  return {
    win = win,
    role = role,
    buf = b,
    path = M.buf_path(b),
    cursor = { line = line, col = M.char_col(current, byte) },
    context = { start_line = first, lines = lines, lines_cut = any_cut },
  }
end

-- Columns and decorations: set_cursor, highlight_range, add_virtual_text, clear_decorations ------

--- The 0-based byte offset in `line` of its 1-based character column `col`; #line when `col` is
--- past the last character (the inverse of M.char_col).
function M.col_byte(line, col)
  local n = 0
  for i = 1, #line do
    local c = line:byte(i)
    if c < 0x80 or c >= 0xC0 then
      n = n + 1
      if n == col then
        return i - 1
      end
    end
  end
  return #line
end

--- The namespace of vimrelay's decorations: each is one extmark in it, carrying `hl_group`,
--- `virt_text` or `virt_lines` in a VimRelay<Color> group (see M.decoration_color). Only this
--- namespace is ever cleared.
M.decoration_ns = api.nvim_create_namespace('vimrelay')

-- Decoration color -> the standard group its VimRelay<Color> group links to. All exist in Neovim
-- 0.7 except DiagnosticOk (newer), for which success falls back to MoreMsg (green by default).
local DECORATION_LINKS = {
  info = 'DiagnosticInfo',
  hint = 'DiagnosticHint',
  success = 'DiagnosticOk',
  warning = 'DiagnosticWarn',
  error = 'DiagnosticError',
}

--- The highlight group of a decoration color ('warning' -> 'VimRelayWarning'), defined as a default
--- link: a user's own definition of the group wins, and :colorscheme (:hi clear) keeps the link.
function M.decoration_group(color)
  local link = assert(DECORATION_LINKS[color], 'unknown decoration color')
  if vim.fn.hlexists(link) == 0 then
    link = 'MoreMsg'
  end
  local group = 'VimRelay' .. color:sub(1, 1):upper() .. color:sub(2)
  api.nvim_set_hl(0, group, { link = link, default = true })
  return group
end

--- The decoration color of a highlight group ('VimRelayWarning' -> 'warning'), or nil when the
--- group is not one of ours.
function M.decoration_color(group)
  local name = type(group) == 'string' and group:match('^VimRelay(%u%l+)$')
  local color = name and name:lower()
  return color and DECORATION_LINKS[color] and color or nil
end

-- Commands, keys and terminals: run_command, send_keys, send_to_terminal -----------------------

--- The wall clock in epoch milliseconds (gettimeofday: the agent's clock, on the same machine).
function M.now_ms()
  local sec, usec = uv.gettimeofday()
  return sec * 1000 + math.floor(usec / 1000)
end

--- Fails with TIMEOUT, doing nothing, when the editor starts the call after `start_by` (the call's
--- deadline, epoch milliseconds): it was held up (busy, or at a prompt) past the deadline, the
--- caller has been answered TIMEOUT already, and a command, keystrokes or a save must not run
--- behind its back now.
function M.check_start_by(start_by)
  if start_by ~= nil and M.now_ms() > start_by then
    M.fail('TIMEOUT', 'The editor could only start this call after its deadline had passed, so nothing was done.', {
      hint = 'The editor was busy or waiting on a prompt. Once get_state_brief answers, retry if the call is still wanted.',
    })
  end
end

--- Calls fn(...) and interrupts it with CTRL-C when it still runs after `timeout_ms`: a timer fires
--- whenever the event loop runs (a prompt waiting for a key, :sleep, a Vimscript loop's break
--- check) and types CTRL-C, which sets got_int as the user's own CTRL-C would. `on_interrupt` runs
--- in the timer's fast context, before the CTRL-C: it may note state, not call the API. Returns
--- whether it interrupted, then pcall's first two results. From the CTRL-C until fn returns,
--- M.shared.interrupting counts it (every install's M.info looks): a request evaluated meanwhile
--- (Neovim serves requests while a prompt waits) would take the interrupt for itself if it ran any
--- Vimscript function, and the prompt would then read the CTRL-C as a plain key; M.info, the one
--- request agents send on their own, answers from what it last read then.
function M.with_interrupt(timeout_ms, on_interrupt, fn, ...)
  local interrupted = false
  local timer = uv.new_timer()
  timer:start(timeout_ms, 0, function()
    interrupted = true
    M.shared.interrupting = (M.shared.interrupting or 0) + 1
    on_interrupt()
    api.nvim_input('<C-c>')
  end)
  local ok, result = pcall(fn, ...)
  timer:stop()
  timer:close()
  if interrupted then
    M.shared.interrupting = M.shared.interrupting - 1
  end
  return interrupted, ok, result
end

-- Running inside a buffer: substitute, undo, redo, save_buffer --------------------------------------

-- The namespace of the extmark that carries a window's cursor through M.in_buffer's edit.
local cursor_ns = api.nvim_create_namespace('vimrelay_cursor')

--- Runs fn() with `b` as the current buffer (nvim_buf_call: in the current window when it shows
--- b, else in a window of the current tab that does, else in a hidden autocmd window) and returns
--- its result. With `keep_view`, that window's cursor and view are put back afterwards, following
--- the text the cursor was on through the edit (an extmark tracks it). Errors, M.fail's included,
--- reach the caller intact (nvim_buf_call itself would turn them into strings).
function M.in_buffer(b, keep_view, fn)
  local ok, result
  api.nvim_buf_call(b, function()
    local view, mark
    if keep_view then
      view = vim.fn.winsaveview()
      local line = api.nvim_buf_get_lines(b, view.lnum - 1, view.lnum, false)[1] or ''
      mark = api.nvim_buf_set_extmark(b, cursor_ns, view.lnum - 1, math.min(view.col, #line), {})
    end
    ok, result = pcall(fn)
    if view then
      local pos = api.nvim_buf_get_extmark_by_id(b, cursor_ns, mark, {})
      api.nvim_buf_del_extmark(b, cursor_ns, mark)
      if pos[1] then
        view.topline = math.max(1, view.topline + pos[1] + 1 - view.lnum)
        view.lnum, view.col = pos[1] + 1, pos[2]
      end
      vim.fn.winrestview(view)
    end
  end)
  if not ok then
    error(result, 0)
  end
  return result
end

