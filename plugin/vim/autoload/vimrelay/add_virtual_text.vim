" add_virtual_text on Vim: same contract as the Neovim tool (agent/editors/nvim/lua/add_virtual_text.lua),
" with text properties of vimrelay's own (util/decorations.vim): one property per line of text.
" Virtual text needs Vim 9.0.0067 or later (prop_add() with 'text'); before, it answers UNSUPPORTED.

function! vimrelay#add_virtual_text#run(p) abort
  if !vimrelay#util#compat#has_virtual_text()
    call vimrelay#util#fail('UNSUPPORTED', 'This Vim cannot show virtual text (it needs 9.0.0067 or later).',
          \ {'hint': 'Use highlight_range, or a newer Vim or a Neovim editor.'})
  endif
  let [b, line_count] = vimrelay#util#decorations#target(a:p)
  if a:p.line > line_count
    call vimrelay#util#fail('INVALID_ARGUMENT', 'Line ' . a:p.line . ' is past the end of the buffer, which has ' . line_count
          \ . ' lines. Nothing was added.', {'line_count': line_count, 'hint': 'Pass a line from 1 to ' . line_count . '.'})
  endif
  let type = vimrelay#util#decorations#prop_type(a:p.color)
  let lines = a:p.position ==# 'eol' ? [a:p.text] : split(substitute(a:p.text, '\r\n', '\n', 'g'), "\n", 1)
  let align = a:p.position ==# 'eol' ? 'after' : a:p.position
  let id = vimrelay#util#decorations#new_id()
  let ids = []
  for text in lines
    " An empty 'text' is not shown as a line; a space is.
    let vim_id = prop_add(a:p.line, 0, {'bufnr': b, 'type': type, 'text': empty(text) ? ' ' : text, 'text_align': align})
    call add(ids, vim_id)
  endfor
  call vimrelay#util#decorations#remember(id, b, ids, join(lines, "\n"), a:p.position)
  return {'id': id, 'buf': b, 'path': vimrelay#util#buf_path(b), 'line': a:p.line, 'position': a:p.position, 'color': a:p.color}
endfunction
