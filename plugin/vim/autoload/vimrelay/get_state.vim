" get_state on Vim: get_state_brief's result (vimrelay#get_state_brief#run, given params.brief_max_bytes)
" with its windows replaced by every window, plus tabs, lowercase marks, the visual selection, a
" diagnostics summary (vimrelay#util#diagnostics#summary: null when neither ALE nor vim-lsp is loaded)
" and vimrelay's decorations (vimrelay#util#decorations#list). Same contract as the Neovim tool
" (agent/editors/nvim/lua/get_state.lua): each list stops at its cap (max_windows, max_tabs,
" max_folds, max_marks, max_decorations, max_diagnostic_buffers) or when the result would pass
" params.max_bytes of JSON (the active and alternate windows are never left out), and says so in
" its *_truncated flag. Lines are 1-based, columns 1-based characters. Vim's popup windows are not
" windows of a tab page and are not listed, unless one is the current window (a focused terminal
" popup): that one is `floating`. The summary leaves out the buffers of the files params.withheld
" lists (the agent's never_read).

" Appends `item` to `list` when both the cap and the budget ({used, max}) allow; returns whether it did.
function! s:add(list, cap, budget, item) abort
  let size = vimrelay#util#json_size(a:item)
  if len(a:list) >= a:cap || a:budget.used + size > a:budget.max
    return 0
  endif
  let a:budget.used += size
  call add(a:list, a:item)
  return 1
endfunction

" Effective indent settings of buffer b (0 shiftwidth and negative softtabstop resolved).
function! s:indent(b) abort
  let ts = getbufvar(a:b, '&tabstop')
  let sw = getbufvar(a:b, '&shiftwidth')
  let sw = sw == 0 ? ts : sw
  let sts = getbufvar(a:b, '&softtabstop')
  return {'expandtab': getbufvar(a:b, '&expandtab') ? v:true : v:false, 'tabstop': ts, 'shiftwidth': sw,
        \ 'softtabstop': sts < 0 ? sw : sts}
endfunction

" The current window's visible lines (line('w$') can come before line('w0') in Ex mode, where
" nothing is shown: then only w0 counts) and closed folds: at most `max` of them, and whether there
" were more. :folddoclosed finds the lines in closed folds at C speed (a buffer without any costs
" next to nothing); the cursor and the jumplist are left as they were. Run through win_execute(),
" into s:scan.
function! s:scan_view(max) abort
  let top = line('w0')
  let s:scan = {'top': top, 'bottom': max([top, line('w$')]), 'folds': [], 'more': v:false}
  if &foldenable
    let view = winsaveview()
    execute 'keepjumps folddoclosed call s:fold_at(' . a:max . ')'
    call winrestview(view)
  endif
endfunction

" Notes the closed fold that starts on the cursor line, if one does (:folddoclosed visits every
" line of a closed fold; nested ones are inside a closed one and not listed).
function! s:fold_at(max) abort
  let l = line('.')
  if s:scan.more || foldclosed(l) != l
    return
  elseif len(s:scan.folds) == a:max
    let s:scan.more = v:true
  else
    call add(s:scan.folds, {'start_line': l, 'end_line': foldclosedend(l)})
  endif
endfunction

function! s:window_state(win, role, tab, p) abort
  let w = vimrelay#util#window_view(a:win, a:role, a:p)
  call win_execute(a:win, 'call s:scan_view(' . a:p.max_folds . ')')
  let floating = win_gettype(a:win) ==# 'popup' ? v:true : v:false
  return extend(w, {'tab': a:tab, 'floating': floating, 'width': winwidth(a:win), 'height': winheight(a:win),
        \ 'top_line': max([1, s:scan.top]), 'bottom_line': max([1, s:scan.bottom]),
        \ 'folds': s:scan.folds, 'folds_truncated': s:scan.more, 'indent': s:indent(w.buf)})
endfunction

" [windows (active, alternate, then by tab), windows cut, tabs, tabs cut].
function! s:windows_and_tabs(brief_windows, p, budget) abort
  let tab_of = {}
  let order = []
  let tabs = []
  let tabs_cut = v:false
  for info in gettabinfo()
    for win in info.windows
      let tab_of[win] = info.tabnr
      call add(order, win)
    endfor
    let tab = {'tab': info.tabnr, 'current': info.tabnr == tabpagenr() ? v:true : v:false, 'windows': info.windows}
    if !s:add(tabs, a:p.max_tabs, a:budget, tab)
      let tabs_cut = v:true
    endif
  endfor

  let windows = []
  let seen = {}
  for w in a:brief_windows
    " (A focused popup window is in no tab's list: it counts as the current tab's.)
    let state = s:window_state(w.win, w.role, get(tab_of, w.win, tabpagenr()), a:p)
    let a:budget.used += vimrelay#util#json_size(state)
    call add(windows, state)
    let seen[w.win] = 1
  endfor
  let windows_cut = v:false
  for win in order
    if !has_key(seen, win) && !s:add(windows, a:p.max_windows, a:budget, s:window_state(win, 'other', tab_of[win], a:p))
      let windows_cut = v:true
      break
    endif
  endfor
  return [windows, windows_cut, tabs, tabs_cut]
endfunction

" mode() -> selection kind, for the visual and select modes.
let s:selection_kinds = {'v': 'char', 'V': 'line', "\<C-v>": 'block', 's': 'char', 'S': 'line', "\<C-s>": 'block'}

" The visual selection, start before end, in characters; v:null in other modes.
function! s:selection() abort
  let kind = get(s:selection_kinds, mode(), '')
  if empty(kind)
    return v:null
  endif
  let b = bufnr('%')
  let [from, to] = [getpos('v'), getpos('.')]
  let [a, z] = [[from[1], from[2]], [to[1], to[2]]]
  if z[0] < a[0] || (z[0] == a[0] && z[1] < a[1])
    let [a, z] = [z, a]
  endif
  return {'kind': kind, 'buf': b, 'path': vimrelay#util#buf_path(b), 'start': s:position(b, a), 'end': s:position(b, z)}
endfunction

" {line, col} in characters of a [line, 1-based byte] in buffer b.
function! s:position(b, pos) abort
  return {'line': a:pos[0], 'col': vimrelay#util#char_col(get(getbufline(a:b, a:pos[0]), 0, ''), a:pos[1])}
endfunction

" [lowercase marks of loaded buffers by buffer and letter, whether cut].
function! s:marks(p, budget) abort
  let list = []
  for info in getbufinfo({'bufloaded': 1})
    let b = info.bufnr
    for m in sort(filter(getmarklist(b), 'v:val.mark =~# "^''[a-z]$"'), {x, y -> x.mark ># y.mark ? 1 : -1})
      let item = {'mark': m.mark[1], 'buf': b, 'path': vimrelay#util#buf_path(b)}
      call extend(item, s:position(b, m.pos[1 : 2]))
      if !s:add(list, a:p.max_marks, a:budget, item)
        return [list, v:true]
      endif
    endfor
  endfor
  return [list, v:false]
endfunction

" [our decorations in loaded buffers, by buffer and position, whether cut].
function! s:decorations(p, budget) abort
  let list = []
  for info in getbufinfo({'bufloaded': 1})
    for item in vimrelay#util#decorations#list(info.bufnr, a:p.decoration_text_bytes)
      if !s:add(list, a:p.max_decorations, a:budget, item)
        return [list, v:true]
      endif
    endfor
  endfor
  return [list, v:false]
endfunction

function! vimrelay#get_state#run(p) abort
  let state = vimrelay#get_state_brief#run(extend(copy(a:p), {'max_bytes': a:p.brief_max_bytes}))
  let brief_windows = remove(state, 'windows')
  let budget = {'used': vimrelay#util#json_size(state), 'max': a:p.max_bytes}
  let state.selection = s:selection()
  let budget.used += vimrelay#util#json_size(state.selection)
  let [state.windows, state.windows_truncated, state.tabs, state.tabs_truncated] = s:windows_and_tabs(brief_windows, a:p, budget)
  let state.diagnostics = vimrelay#util#diagnostics#summary(a:p.max_diagnostic_buffers, budget, get(a:p, 'withheld', []))
  let [state.marks, state.marks_truncated] = s:marks(a:p, budget)
  let [state.decorations, state.decorations_truncated] = s:decorations(a:p, budget)
  " The reviews this Vim holds (autoload/vimrelay/review.vim), oldest first: few, and never cut.
  let state.reviews = map(vimrelay#review#held(), {_, r -> {'id': r.id, 'buf': r.buf, 'path': vimrelay#util#buf_path(r.buf), 'shown': r.shown}})
  return state
endfunction
