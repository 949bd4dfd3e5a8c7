" highlight_range on Vim: same contract as the Neovim tool (agent/editors/nvim/lua/highlight_range.lua),
" with a text property of vimrelay's own (util/decorations.vim) instead of an extmark.

function! vimrelay#highlight_range#run(p) abort
  let [b, line_count] = vimrelay#util#decorations#target(a:p)
  let [start_byte, start] = vimrelay#util#decorations#locate(b, line_count, a:p.start, 'start')
  let [end_byte, stop] = vimrelay#util#decorations#locate(b, line_count, a:p.end, 'end')
  if stop.line < start.line || (stop.line == start.line && end_byte <= start_byte)
    call vimrelay#util#fail('INVALID_ARGUMENT', 'The range is empty: end (' . stop.line . ':' . stop.col
          \ . ', after clamping) does not come after start (' . start.line . ':' . start.col . '). Nothing was highlighted.',
          \ {'hint': 'end is exclusive: to highlight one character at {line, col}, pass end = {line, col + 1}.'})
  endif
  let id = vimrelay#util#decorations#new_id()
  call prop_add(start.line, start_byte, {'bufnr': b, 'type': vimrelay#util#decorations#prop_type(a:p.color), 'id': id,
        \ 'end_lnum': stop.line, 'end_col': end_byte})
  return {'id': id, 'buf': b, 'path': vimrelay#util#buf_path(b), 'start': start, 'end': stop, 'color': a:p.color}
endfunction
