" lsp_rename_apply, the twin of lua/lsp_rename_apply.lua: the second phase of lsp_rename with apply
" (agent/editors/tools/tool.ts CommitPhase). Makes the edit lsp_rename.vim kept under p.token, all
" or nothing: p.start_by, the position's buffer at p.expected_changedtick and unchanged since, every
" buffer that was loaded unchanged (its changedtick), and every other file (a buffer loaded since,
" or the file on disk) still the text the edit was computed on, all checked before anything
" changes. Then each file's buffer
" (added, loaded and listed when none holds it) gets its edits bottom-up as one undo step, and its
" client tells the server (vimrelay#util#lsp#changed); nothing is saved.

" STALE_CHANGEDTICK for `path`; `tick` is the position's buffer's, whichever file changed: the one
" the hint's next apply needs.
function! s:stale(path, tick) abort
  call vimrelay#util#fail('STALE_CHANGEDTICK', a:path . ' changed since the language server computed the rename; nothing was changed.',
        \ {'current_changedtick': a:tick, 'hint': 'Call lsp_rename again (read_buffer for the changedtick of the position''s buffer), then apply that.'})
endfunction

" Each file's buffer now (0 for none; a buffer wiped since is none), found once for the check and
" the edit.
function! s:buffer_of(f) abort
  return a:f.buf > 0 && bufexists(a:f.buf) ? a:f.buf : vimrelay#util#find_by_path(a:f.path)
endfunction

" Checks every file as the header says; `tick` is the position's buffer's. Returns their buffers.
function! s:check(kept, tick) abort
  let bufs = []
  for f in a:kept.files
    let b = s:buffer_of(f)
    call add(bufs, b)
    if b > 0 && bufloaded(b)
      call vimrelay#util#check_modifiable(b)
      let now = vimrelay#util#tick(b)
      if get(a:kept.ticks, b, now) != now || getbufline(b, 1, '$') !=# f.lines
        call s:stale(f.path, a:tick)
      endif
    elseif !filereadable(f.path) || readfile(f.path) !=# f.lines
      call s:stale(f.path, a:tick)
    endif
  endfor
  return bufs
endfunction

" The rename lsp_rename.vim kept under p.token, taken, after every check of the header (for this
" file and lsp_rename_propose.vim): [kept, each file's buffer now (0 for none)].
function! vimrelay#lsp_rename_apply#kept(p) abort
  call vimrelay#util#check_start_by(get(a:p, 'start_by', v:null))
  let kept = vimrelay#util#deferred#take(a:p.token)
  if kept is v:null
    call vimrelay#util#fail('EDITOR_ERROR', 'The editor no longer holds this rename (another call replaced it, or the editor restarted); nothing was changed.',
          \ {'hint': 'Call lsp_rename with apply again.'})
  endif
  let tick = vimrelay#util#check_tick(kept.buf, a:p.expected_changedtick)
  if tick != kept.tick
    call s:stale(vimrelay#util#buf_path(kept.buf), tick)
  endif
  return [kept, s:check(kept, tick)]
endfunction

function! vimrelay#lsp_rename_apply#run(p) abort
  let [kept, bufs] = vimrelay#lsp_rename_apply#kept(a:p)
  let i = 0
  for f in kept.files
    let b = bufs[i] > 0 ? bufs[i] : bufadd(f.path)
    call vimrelay#util#ensure_loaded(b)
    call setbufvar(b, '&buflisted', 1)
    call vimrelay#util#break_undo(b)
    for e in reverse(copy(f.edits))
      call vimrelay#util#set_text(b, e.sr + 1, e.sc, e.er + 1, e.ec, split(e.new, "\n", 1))
    endfor
    call vimrelay#util#end_edit(b)
    call vimrelay#util#lsp#changed(kept.client, kept.handle, b)
    let kept.out.files[i].buf = b
    let kept.out.files[i].changedtick = vimrelay#util#tick(b)
    let i += 1
  endfor
  let kept.out.applied = v:true
  return kept.out
endfunction
