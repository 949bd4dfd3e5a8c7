" vimrelay's decorations on Vim, shared by highlight_range, add_virtual_text, clear_decorations and
" get_state (the Neovim twins: agent/editors/nvim/lua/highlight_range.lua, add_virtual_text.lua,
" clear_decorations.lua, and util.lua's decoration helpers), with text properties (:h textprop) instead of extmarks. Each color has one global property type,
" vimrelay_<color>, highlighted with the VimRelay<Color> group; only those types are ever cleared.
" Every decoration gets a positive id of ours: a highlight is one property with that id; virtual
" text is one property per line of text ('text' with text_align after/above/below at column 0),
" whose ids Vim chooses (negative, per buffer), so they are remembered under ours. Decorations
" change neither the text nor the changedtick and are not undone; but Vim keeps properties with the
" line's text, so undoing a change to a decorated line restores that line without them. Virtual
" text needs Vim 9.0.0067 or later (prop_add() with 'text'); before, add_virtual_text answers
" UNSUPPORTED.

" Decoration color -> the standard group VimRelay<Color> links to by default: Diagnostic* where
" defined (by a colorscheme or an LSP plugin), else a group every Vim has.
let s:links = {
      \ 'info': ['DiagnosticInfo', 'Identifier'],
      \ 'hint': ['DiagnosticHint', 'Comment'],
      \ 'success': ['DiagnosticOk', 'MoreMsg'],
      \ 'warning': ['DiagnosticWarn', 'WarningMsg'],
      \ 'error': ['DiagnosticError', 'ErrorMsg'],
      \ }

let s:next_id = 1

" Our id of a virtual text -> {'buf': b, 'ids': [Vim's property ids], 'text': its text, 'position'}
" (prop_list() does not give a property's text).
let s:virtual = {}

" A new decoration id of ours (positive, unique in this Vim).
function! vimrelay#util#decorations#new_id() abort
  let id = s:next_id
  let s:next_id += 1
  return id
endfunction

" Remembers virtual text `id` (ours): Vim's property ids `vim_ids` in buffer b, its text and position.
function! vimrelay#util#decorations#remember(id, b, vim_ids, text, position) abort
  let s:virtual[a:id] = {'buf': a:b, 'ids': a:vim_ids, 'text': a:text, 'position': a:position}
endfunction

" Our property types defined so far (prop_list() and prop_remove() refuse unknown ones).
function! s:type_names() abort
  return filter(map(keys(s:links), '"vimrelay_" . v:val'), '!empty(prop_type_get(v:val))')
endfunction

function! s:group(color) abort
  return 'VimRelay' . toupper(a:color[0]) . a:color[1 :]
endfunction

" Defines every VimRelay<Color> group as a default link, so a user's own definition wins (Vim's
" :highlight clear, run by :colorscheme, keeps default links).
function! s:define_groups() abort
  for [color, links] in items(s:links)
    execute 'highlight default link ' . s:group(color) . ' ' . (hlexists(links[0]) ? links[0] : links[1])
  endfor
endfunction

" The property type of `color`, defining it and the highlight groups when needed.
function! vimrelay#util#decorations#prop_type(color) abort
  let name = 'vimrelay_' . a:color
  if empty(prop_type_get(name))
    call s:define_groups()
    call prop_type_add(name, {'highlight': s:group(a:color)})
  endif
  return name
endfunction

" The buffer, loaded, and its line count.
function! vimrelay#util#decorations#target(p) abort
  let b = vimrelay#util#resolve(a:p)
  call vimrelay#util#ensure_loaded(b)
  return [b, vimrelay#util#line_count(b)]
endfunction

" [byte column (1-based), position after clamping] of a {line, col} in buffer b of `line_count` lines.
function! vimrelay#util#decorations#locate(b, line_count, pos, name) abort
  if a:pos.line > a:line_count
    call vimrelay#util#fail('INVALID_ARGUMENT', a:name . '.line ' . a:pos.line . ' is past the end of the buffer, which has '
          \ . a:line_count . ' lines. Nothing was highlighted.', {'line_count': a:line_count, 'hint': 'Pass lines from 1 to ' . a:line_count
          \ . '; to reach the end of the last line, use {line = ' . a:line_count . ', col = 9999}.'})
  endif
  let text = getbufline(a:b, a:pos.line)[0]
  let col = min([a:pos.col, strchars(text) + 1])
  let byte = byteidxcomp(text, col - 1)
  return [(byte < 0 ? strlen(text) : byte) + 1, {'line': a:pos.line, 'col': col}]
endfunction

" Our virtual texts in buffer b, as [our id, [its properties]] (none when they are all gone:
" deleted with their lines, or undone away). Found by Vim's ids, not read off prop_list(): Vim
" 9.1 and later list a virtual text without its id.
function! s:virtual_in(b, names) abort
  let found = []
  for [id, entry] in items(s:virtual)
    if entry.buf == a:b
      let props = prop_list(1, {'bufnr': a:b, 'end_lnum': -1, 'types': a:names, 'ids': entry.ids})
      if !empty(props)
        call add(found, [str2nr(id), props])
      endif
    endif
  endfor
  return found
endfunction

" The highlights of ours in buffer b (positive ids; a virtual text's is negative, or not listed).
function! s:highlights_in(b, names) abort
  return filter(prop_list(1, {'bufnr': a:b, 'end_lnum': -1, 'types': a:names}), 'get(v:val, "id", 0) > 0')
endfunction

" Our ids of the decorations in buffer b.
function! s:ids_in(b) abort
  let names = s:type_names()
  if empty(names)
    return []
  endif
  let ids = {}
  for prop in s:highlights_in(a:b, names)
    let ids[prop.id] = 1
  endfor
  for [id, _] in s:virtual_in(a:b, names)
    let ids[id] = 1
  endfor
  return map(keys(ids), 'str2nr(v:val)')
endfunction

" Removes decoration `id` (ours) from buffer b; returns whether it was there.
function! vimrelay#util#decorations#remove(b, id) abort
  return index(s:ids_in(a:b), a:id) >= 0 ? s:remove_present(a:b, a:id) : 0
endfunction

" Removes decoration `id` (ours), which buffer b has; returns 1.
function! s:remove_present(b, id) abort
  let entry = get(s:virtual, a:id, {'buf': a:b, 'ids': [a:id]})
  for vim_id in entry.ids
    call prop_remove({'bufnr': a:b, 'id': vim_id, 'types': s:type_names(), 'both': 1, 'all': 1})
  endfor
  silent! call remove(s:virtual, a:id)
  return 1
endfunction

" Removes every decoration of buffer b (loaded only: unloading drops properties); returns how many.
function! vimrelay#util#decorations#clear(b) abort
  if !bufloaded(a:b)
    return 0
  endif
  let n = 0
  for id in s:ids_in(a:b)
    let n += s:remove_present(a:b, id)
  endfor
  return n
endfunction

" get_state's view of the decorations in buffer b (none unless loaded), by position then id:
" {id, buf, path, kind, start, end, text, position, color}, columns in characters, the end of a
" highlight exclusive, virtual text cut at `text_bytes`. A highlight spanning lines is one property
" listed on each of its lines: it starts on the one with 'start' set and ends on the one with 'end'.
function! vimrelay#util#decorations#list(b, text_bytes) abort
  let names = s:type_names()
  if empty(names) || !bufloaded(a:b)
    return []
  endif
  let path = vimrelay#util#buf_path(a:b)
  let found = {}
  for prop in s:highlights_in(a:b, names)
    if !has_key(found, prop.id)
      let found[prop.id] = {'id': prop.id, 'buf': a:b, 'path': path, 'kind': 'highlight', 'start': {'line': prop.lnum, 'col': 1},
            \ 'end': v:null, 'text': v:null, 'position': v:null, 'color': prop.type[len('vimrelay_') :]}
    endif
    let d = found[prop.id]
    let text = get(getbufline(a:b, prop.lnum), 0, '')
    if prop.start
      let d.start = {'line': prop.lnum, 'col': vimrelay#util#char_col(text, prop.col)}
    endif
    if prop.end
      let d.end = {'line': prop.lnum, 'col': vimrelay#util#char_col(text, prop.col + prop.length)}
    endif
  endfor
  for [id, props] in s:virtual_in(a:b, names)
    let entry = s:virtual[id]
    let found[id] = {'id': id, 'buf': a:b, 'path': path, 'kind': 'virtual_text', 'start': {'line': props[0].lnum, 'col': 1},
          \ 'end': v:null, 'text': vimrelay#util#cut(entry.text, a:text_bytes), 'position': entry.position, 'color': props[0].type[len('vimrelay_') :]}
  endfor
  return sort(values(found), function('s:by_position'))
endfunction

function! s:by_position(a, b) abort
  for [x, y] in [[a:a.start.line, a:b.start.line], [a:a.start.col, a:b.start.col], [a:a.id, a:b.id]]
    if x != y
      return x < y ? -1 : 1
    endif
  endfor
  return 0
endfunction
