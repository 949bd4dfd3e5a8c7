" Helpers shared by vimrelay's tools: failures, buffer references, changedticks, undo steps, sizes.
" Columns in results are 1-based characters (code points); Vim's own columns are bytes. A composing
" character is a code point of its own, as in Neovim: convert with byteidxcomp(), charidx(…, 1),
" strchars(), strcharpart() (never byteidx() or a charidx() without countcc, which skip them).

let s:failure = {}

" Aborts the running tool with a tool error (a protocol error code, a message, extra keys such as
" hint). vimrelay#call turns it into {'ok': v:false, 'error': ...}.
function! vimrelay#util#fail(code, message, ...) abort
  let s:failure = extend({'code': a:code, 'message': a:message}, a:0 ? a:1 : {})
  throw 'vimrelay-fail'
endfunction

" The error of the last vimrelay#util#fail.
function! vimrelay#util#failure() abort
  return s:failure
endfunction

" Buffer types whose name is not a file path.
let s:not_a_file = ['terminal', 'quickfix', 'prompt', 'nofile', 'popup']

" `path` made absolute (relative ones are taken from the cwd), simplified, no trailing slash.
function! vimrelay#util#absolute(path) abort
  let p = a:path =~# '^/' ? a:path : getcwd() . '/' . a:path
  let p = simplify(p)
  return len(p) > 1 && p =~# '/$' ? p[: -2] : p
endfunction

" The absolute path of a buffer's file, or v:null when it has none.
function! vimrelay#util#buf_path(b) abort
  let name = bufname(a:b)
  if empty(name) || index(s:not_a_file, getbufvar(a:b, '&buftype')) >= 0
    return v:null
  endif
  return vimrelay#util#absolute(fnamemodify(name, ':p'))
endfunction

" The buffer whose name is `path`, by normalized absolute name then by real path; 0 when none.
function! vimrelay#util#find_by_path(path) abort
  let target = vimrelay#util#absolute(a:path)
  let bufs = map(getbufinfo(), 'v:val.bufnr')
  for b in bufs
    if !empty(bufname(b)) && vimrelay#util#absolute(fnamemodify(bufname(b), ':p')) ==# target
      return b
    endif
  endfor
  if filereadable(target) || isdirectory(target)
    let real = resolve(target)
    for b in bufs
      if !empty(bufname(b)) && resolve(vimrelay#util#absolute(fnamemodify(bufname(b), ':p'))) ==# real
        return b
      endif
    endfor
  endif
  return 0
endfunction

" The buffer a tool argument names: absent = the current buffer, a number, or a path.
function! vimrelay#util#resolve(params) abort
  let ref = get(a:params, 'buffer', v:null)
  if ref is v:null
    return bufnr('%')
  elseif type(ref) == v:t_number
    if !bufexists(ref)
      call vimrelay#util#fail('BUFFER_NOT_FOUND', 'There is no buffer number ' . ref . '.')
    endif
    return ref
  endif
  let b = vimrelay#util#find_by_path(ref)
  if b == 0
    let target = vimrelay#util#absolute(ref)
    call vimrelay#util#fail('BUFFER_NOT_FOUND', 'No buffer has the path ' . target . '.', {'path': target,
          \ 'hint': 'Open the file in the editor first, or call get_state_brief and pass a buffer number or path it lists.'})
  endif
  return b
endfunction

" The buffer write_buffer writes for `ref` (a number, or a path that may have no buffer), whether
" it was created (a path with neither buffer nor file), and whether it was added for a file on
" disk (a new listed buffer, not loaded yet). A path whose file exists needs `expected`: refused
" before any buffer is made without one (write_buffer.vim).
function! vimrelay#util#write_target(ref, expected) abort
  if type(a:ref) == v:t_number
    return [vimrelay#util#resolve({'buffer': a:ref}), v:false, v:false]
  endif
  let b = vimrelay#util#find_by_path(a:ref)
  if b != 0
    return [b, v:false, v:false]
  endif
  let path = vimrelay#util#absolute(a:ref)
  if isdirectory(path)
    call vimrelay#util#fail('INVALID_ARGUMENT', path . ' is a directory, not a file.')
  endif
  let exists = filereadable(path) || !empty(getftype(path))
  if exists && a:expected is v:null
    call vimrelay#util#fail('INVALID_ARGUMENT', path . ' exists on disk, so expected_changedtick is required. Nothing was changed.',
          \ {'path': path, 'hint': 'Call open_file on the path, which gives its changedtick (read_buffer then shows its text), '
          \ . 'and pass that as expected_changedtick.'})
  endif
  let b = bufadd(path)
  call setbufvar(b, '&buflisted', 1)
  return [b, exists ? v:false : v:true, exists]
endfunction

" Loads buffer b when it is not loaded, silently (Vim would leave the file's "3L, 17B" in the
" user's :messages). Loading runs the user's autocommands and filetype plugins, as their opening it
" would; one that fails once the text is in does not fail the tool: only a buffer that did not load
" does.
function! vimrelay#util#ensure_loaded(b) abort
  if !bufloaded(a:b)
    try
      silent call bufload(a:b)
    catch
      if !bufloaded(a:b)
        throw v:exception
      endif
    endtry
  endif
endfunction

function! vimrelay#util#tick(b) abort
  return getbufvar(a:b, 'changedtick')
endfunction

" Fails with EDITOR_ERROR, `nothing` ending the message (what did not happen), while the user is
" in the command-line window (q:, q/): no window may show another buffer then (E11), as in util.lua.
function! vimrelay#util#refuse_in_cmdwin(nothing) abort
  let kind = getcmdwintype()
  if !empty(kind)
    call vimrelay#util#fail('EDITOR_ERROR', 'The user is in the command-line window (q' . kind . '), where no window can show another buffer (E11). '
          \ . a:nothing, {'hint': 'Ask the user to leave the command-line window (:q or Ctrl-C there), then retry.'})
  endif
endfunction

" Fails with STALE_CHANGEDTICK when `expected` is given (not v:null) and is not the changedtick.
function! vimrelay#util#check_tick(b, expected) abort
  let tick = vimrelay#util#tick(a:b)
  if a:expected isnot v:null && a:expected != tick
    call vimrelay#util#fail('STALE_CHANGEDTICK', 'The buffer changed: its changedtick is ' . tick . ', not '
          \ . a:expected . '. Nothing was changed.', {'current_changedtick': tick})
  endif
  return tick
endfunction

" Fails with EDITOR_ERROR, naming the buffer, when its text cannot be changed: a terminal (its text
" is the job's output), 'modifiable' off, or the proposal of a review (review.vim), which is the
" user's alone to change while they decide: an edit of it would be accepted as theirs, unseen. The
" editing tools call it before anything else, the changedtick check included (a terminal's tick
" moves with its output: the wrong reason).
function! vimrelay#util#check_modifiable(b) abort
  let path = vimrelay#util#buf_path(a:b)
  let which = 'Buffer ' . a:b . (path is v:null ? '' : ' (' . path . ')')
  let review = getbufvar(a:b, 'vimrelay_review', '')
  if !empty(review)
    call vimrelay#util#fail('EDITOR_ERROR', which . ' is the proposal of review ' . review . ', which only the user changes while they decide. Nothing was changed.',
          \ {'hint': "Wait for the user's decision (review_status with that id), then read the buffer the review was about."})
  endif
  if getbufvar(a:b, '&buftype') ==# 'terminal'
    call vimrelay#util#fail('EDITOR_ERROR', which . ' is a terminal, whose text is its output: it cannot be edited. Nothing was changed.',
          \ {'hint': 'To type into the terminal, use send_to_terminal.'})
  endif
  if !getbufvar(a:b, '&modifiable')
    call vimrelay#util#fail('EDITOR_ERROR', which . " is not modifiable ('modifiable' is off). Nothing was changed.",
          \ {'hint': "The user or a plugin turned 'modifiable' off. Only if the user wants it edited, turn it on (run_command "
          \ . "`call setbufvar(" . a:b . ", '&modifiable', 1)`, :setlocal modifiable in its window), then retry."})
  endif
endfunction

" Closes the buffer's undo block, so that an edit between two calls is an undo step of its own:
" setting 'undolevels', even to its own value, syncs undo (:h undo-break).
function! vimrelay#util#break_undo(b) abort
  call setbufvar(a:b, '&undolevels', getbufvar(a:b, '&undolevels'))
endfunction

" Ends an edit of buffer b: closes its undo block (break_undo), and when the user is typing in b
" (Insert or Replace mode; not a completion sub-mode, where CTRL-G would end the completion),
" makes what they type next an undo step of its own, as CTRL-G u does (i_CTRL-G_u). Insert mode
" saved the line for undo when the insert began and not again after a change made behind its back:
" a line break typed after the edit went unrecorded, and undoing the edit then took the user's new
" line with it. The keys go ahead of anything already typed, as a <Cmd> that looks again when it
" runs: in another mode, or another buffer, it does nothing.
function! vimrelay#util#end_edit(b) abort
  call vimrelay#util#break_undo(a:b)
  if index(['i', 'R', 'Rv'], mode(1)) >= 0
    call feedkeys("\<Cmd>if bufnr('%') == " . a:b . " && index(['i', 'R', 'Rv'], mode(1)) >= 0"
          \ . " | call feedkeys(nr2char(7) .. 'u', 'ni') | endif\<CR>", 'ni')
  endif
endfunction

" Whether loaded buffer b holds no text: no line at all (a 0-byte file read in, or every line
" deleted), or one empty line written without an end-of-line. getbufline() shows [''] for these and
" for a file that is one empty line ("\n") alike; wordcount() counts what would be written, and is 0
" only for the former. wordcount() reads the current buffer, so another one is asked in a hidden popup.
function! vimrelay#util#holds_no_text(b) abort
  if a:b == bufnr('%')
    return wordcount().bytes == 0
  endif
  return vimrelay#util#hidden#execute(a:b, 'echon wordcount().bytes') ==# '0'
endfunction

" The number of lines of a loaded buffer.
function! vimrelay#util#line_count(b) abort
  return getbufinfo(a:b)[0].linecount
endfunction

" Replaces lines first..last (1-based, inclusive) of buffer b with `lines` (a list, maybe empty
" only when the buffer keeps other lines). Fails with EDITOR_ERROR when Vim refuses.
function! vimrelay#util#set_lines(b, first, last, lines) abort
  let old = a:last - a:first + 1
  let n = len(a:lines)
  let failed = 0
  if n > 0
    let failed = setbufline(a:b, a:first, a:lines[: min([n, old]) - 1])
  endif
  if !failed && n > old
    let failed = appendbufline(a:b, a:first + old - 1, a:lines[old :])
  elseif !failed && n < old
    let failed = deletebufline(a:b, a:first + n, a:last)
  endif
  if failed
    call vimrelay#util#fail('EDITOR_ERROR', 'Vim refused to change buffer ' . a:b . '.')
  endif
endfunction

" Replaces the text of buffer b from line `first`, 0-based byte `start` to line `last`, byte `end`
" (exclusive) with `lines` (at least one; the first joins the text before the range, the last the
" text after it), as Neovim's nvim_buf_set_text, cursors included: the cursor of each window
" showing b keeps its place on its text. Before the range it stays; after it on its last line, it
" moves with the text that follows; on a later line, its line moves by the lines added or removed.
" Inside the range its column stays, and on the range's last line its line moves as the later ones.
" Fails as set_lines.
function! vimrelay#util#set_text(b, first, start, last, end, lines) abort
  let replacement = copy(a:lines)
  let replacement[0] = strpart(get(getbufline(a:b, a:first), 0, ''), 0, a:start) . replacement[0]
  let replacement[-1] .= strpart(get(getbufline(a:b, a:last), 0, ''), a:end)
  let added = len(a:lines) - (a:last - a:first + 1)
  let cursors = []
  for win in win_findbuf(a:b)
    let [lnum, byte] = getcurpos(win)[1 : 2]
    let byte -= 1
    if lnum > a:last || (lnum == a:last && (a:first < a:last || byte >= a:start))
      if lnum == a:last && byte > a:end
        let byte += (len(a:lines) == 1 ? a:start : 0) + strlen(a:lines[-1]) - a:end
      endif
      let lnum += added
    endif
    call add(cursors, [win, lnum, byte])
  endfor
  call vimrelay#util#set_lines(a:b, a:first, a:last, replacement)
  for [win, lnum, byte] in cursors
    if getcurpos(win)[1 : 2] != [lnum, byte + 1]
      call win_execute(win, 'call cursor(' . lnum . ', ' . (byte + 1) . ')')
    endif
  endfor
endfunction

" Bytes the value takes as JSON once the agent has it, plus a separator. A NL of a line's text is a
" NUL (:h NL-used-for-Nul), which the agent sends as "\u0000" (agent/editors/vim/nul.ts): each NL
" counts so, 4 bytes more than json_encode() writes it, also in strings that are not a line's
" (an upper bound there). For a List of strings it counts two more than for its items, summed: the
" brackets, and one separator fewer.
function! vimrelay#util#json_size(value) abort
  let json = json_encode(a:value)
  if stridx(json, '\n') < 0
    return strlen(json) + 1
  endif
  return strlen(json) + 4 * count(type(a:value) == v:t_string ? a:value : string(a:value), "\n") + 1
endfunction

" `s` cut to at most `max` bytes without splitting a character.
function! vimrelay#util#cut(s, max) abort
  if strlen(a:s) <= a:max
    return a:s
  endif
  return strpart(a:s, 0, byteidxcomp(a:s, charidx(a:s, a:max, 1)))
endfunction

" The 1-based character column of the 1-based byte column `col` in `line`.
function! vimrelay#util#char_col(line, col) abort
  return strchars(strpart(a:line, 0, a:col - 1)) + 1
endfunction

" The window summary get_state_brief and get_state give: cursor (in characters) and context lines.
function! vimrelay#util#window_view(win, role, p) abort
  let b = winbufnr(a:win)
  let pos = getcurpos(a:win)
  let line = pos[1]
  let first = max([1, line - a:p.context_lines])
  let lines = getbufline(b, first, line + a:p.context_lines)
  let current = get(lines, line - first, '')
  let any_cut = v:false
  let cut = []
  for l in lines
    let c = vimrelay#util#cut(l, a:p.context_line_bytes)
    let any_cut = any_cut || c !=# l
    call add(cut, c)
  endfor
  return {'win': a:win, 'role': a:role, 'buf': b, 'path': vimrelay#util#buf_path(b),
        \ 'cursor': {'line': line, 'col': vimrelay#util#char_col(current, pos[2])},
        \ 'context': {'start_line': first, 'lines': cut, 'lines_cut': any_cut ? v:true : v:false}}
endfunction

" Fails with TIMEOUT, doing nothing, when the call starts after `start_by` (the call's deadline,
" epoch milliseconds), as util.lua's M.check_start_by: the caller has been answered TIMEOUT
" already. Used by the tools that must not act behind its back (commands, keys, terminal, save).
function! vimrelay#util#check_start_by(start_by) abort
  if a:start_by isnot v:null && vimrelay#util#compat#now_ms() > a:start_by
    call vimrelay#util#fail('TIMEOUT', 'The editor could only start this call after its deadline had passed, so nothing was done.',
          \ {'hint': 'The editor was busy or waiting on a prompt. Once get_state_brief answers, retry if the call is still wanted.'})
  endif
endfunction

" Shows what a call changed at once: Vim redraws by itself only after a key, never after a channel
" call. :redraw draws the screen (and the command line, when the user is typing one) but leaves the
" terminal's cursor where it drew last; after a timer's callback, Vim puts it back on the window's
" cursor, so an empty one follows. Nothing at a hit-enter or more prompt (mode r...), whose message
" a redraw would wipe: Vim redraws after the user's key there anyway.
function! vimrelay#util#redraw() abort
  if mode(1) =~# '^r'
    return
  endif
  redraw
  call timer_start(0, {-> 0})
endfunction
