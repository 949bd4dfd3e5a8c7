" lsp_rename_propose, the twin of lua/lsp_rename_propose.lua: lsp_rename with apply, under review.
" The kept edit is checked as lsp_rename_apply.vim checks it, each file's buffer is added, loaded
" and listed when none holds it, and its lines with the edits made on a copy (a hidden scratch
" buffer) are returned: {result: the preview (applied false), files: [{buf, path, base_tick, base,
" proposed, made}]}. Nothing else changes.
function! vimrelay#lsp_rename_propose#run(p) abort
  let [kept, bufs] = vimrelay#lsp_rename_apply#kept(a:p)
  let files = []
  let i = 0
  for f in kept.files
    let made = bufs[i] <= 0
    let b = made ? bufadd(f.path) : bufs[i]
    call setbufvar(b, '&buflisted', 1)
    call vimrelay#util#ensure_loaded(b)
    let base = getbufline(b, 1, '$')
    let ignored = &eventignore
    set eventignore=all
    let copy = bufadd('')
    try
      call setbufvar(copy, '&buftype', 'nofile')
      call setbufvar(copy, '&swapfile', 0)
      call bufload(copy)
      call setbufline(copy, 1, base)
      for e in reverse(copy(f.edits))
        call vimrelay#util#set_text(copy, e.sr + 1, e.sc, e.er + 1, e.ec, split(e.new, "\n", 1))
      endfor
      let proposed = getbufline(copy, 1, '$')
    finally
      execute 'bwipeout!' copy
      let &eventignore = ignored
    endtry
    let kept.out.files[i].buf = b
    let kept.out.files[i].changedtick = vimrelay#util#tick(b)
    call add(files, {'buf': b, 'path': vimrelay#util#buf_path(b), 'base_tick': vimrelay#util#tick(b), 'base': base,
          \ 'proposed': proposed, 'made': made ? v:true : v:false})
    let i += 1
  endfor
  return {'result': kept.out, 'files': files}
endfunction
