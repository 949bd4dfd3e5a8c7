" get_diagnostics on Vim: Vim has no diagnostics of its own, and reading those of a plugin (ALE's
" ale#engine#GetLoclist(), vim-lsp's) is not done yet, so the tool always answers UNSUPPORTED, with
" a hint that says which diagnostics plugin is loaded and where to see its diagnostics instead.

function! vimrelay#diagnostics#get(p) abort
  let plugin = exists('g:loaded_ale') || exists('*ale#engine#GetLoclist') ? 'ALE'
        \ : exists('g:lsp_loaded') || exists('*lsp#enable') ? 'vim-lsp' : ''
  if empty(plugin)
    let hint = 'Vim keeps no diagnostics itself and no diagnostics plugin is loaded. Use a Neovim editor '
          \ . 'for diagnostics, or run the linter with run_command (e.g. ":make") and read the quickfix '
          \ . 'list with run_command ("clist").'
  else
    let hint = plugin . ' is loaded, but vimrelay does not read its diagnostics yet. Read them through '
          \ . 'run_command (e.g. "llist" or "clist"), or use a Neovim editor.'
  endif
  call vimrelay#util#fail('UNSUPPORTED', 'get_diagnostics is not available on Vim yet.', {'hint': hint})
endfunction
