" vimrelay's helpers for the lsp_* tools that edit on Vim (lsp_rename, lsp_code_actions, lsp_format),
" the twin of agent/editors/nvim/lua/lsp_edit.lua: a server's WorkspaceEdit as a preview of each
" file's edits, kept for the second phase with what it was computed on, then checked and made
" (lsp_edit_apply.vim) or proposed for a review (lsp_edit_propose.vim). A code action's server
" command runs after its edit, in the second phase, as a deferred answer.

" The changedticks of the loaded buffers now, by buffer number: an edit computed on this text
" applies to this text only.
function! vimrelay#util#lsp_edit#ticks() abort
  let ticks = {}
  for info in getbufinfo({'bufloaded': 1})
    let ticks[info.bufnr] = info.changedtick
  endfor
  return ticks
endfunction

" The preview of WorkspaceEdit `edit` (util/lsp.vim edit_files refuses one that creates, renames or
" deletes files), as lsp_edit.lua's L.edit_preview makes it: {server, applied, files, edit_count,
" truncated, withheld}. `how`: {tool, what, client, handle, b, tick, ticks, Check (optional:
" Check(path, e) fails the call for a byte edit it will not apply), command (optional: the Command a
" code action runs after its edit)}. With p.keep, every edit has passed Check and the edit is kept
" under the call's token (util/deferred.vim), with the text of each file it was computed on.
function! vimrelay#util#lsp_edit#preview(p, edit, how) abort
  let read = vimrelay#util#lsp#reader(a:how.client)
  let [files, kept, cnt, truncated, used] = [[], [], 0, v:false, 0]
  for f in vimrelay#util#lsp#edit_files(a:edit)
    let edits = vimrelay#util#lsp#byte_edits(read, f.uri, f.edits)
    " A file with no edits (a formatter with nothing to do) is no file the edit changes.
    if empty(edits)
      continue
    endif
    let b = read.buf(f.uri)
    let entry = extend(vimrelay#util#lsp#file(read, f.uri), {'buf': b > 0 ? b : v:null, 'changedtick': v:null, 'edits': []})
    if a:p.keep && has_key(a:how, 'Check')
      for e in edits
        call a:how.Check(entry.path, e)
      endfor
    endif
    " Every file is listed (the agent vets them all before an apply); edits while they fit.
    let used += vimrelay#util#json_size(entry)
    for e in edits
      let view = vimrelay#util#lsp#edit_view(read, f.uri, e)
      let size = vimrelay#util#json_size(view)
      if !truncated && used + size <= a:p.max_bytes
        let used += size
        call add(entry.edits, view)
      else
        let truncated = v:true
      endif
    endfor
    let cnt += len(edits)
    call add(files, entry)
    call add(kept, {'path': entry.path, 'buf': b, 'edits': edits, 'lines': read.all(f.uri)})
  endfor
  let out = {'server': a:how.client.name, 'applied': v:false, 'files': files, 'edit_count': cnt, 'truncated': truncated, 'withheld': 0}
  if a:p.keep
    call vimrelay#util#deferred#keep(a:p.answer_token, {'tool': a:how.tool, 'what': a:how.what, 'buf': a:how.b, 'tick': a:how.tick,
          \ 'ticks': a:how.ticks, 'files': kept, 'out': out, 'client': a:how.client, 'handle': a:how.handle, 'command': get(a:how, 'command', v:null)})
  endif
  return out
endfunction

" STALE_CHANGEDTICK for `path`; `tick` is the position's buffer's, whichever file changed: the one
" the hint's next apply needs.
function! s:stale(kept, path, tick) abort
  call vimrelay#util#fail('STALE_CHANGEDTICK', a:path . ' changed since the language server computed ' . a:kept.what . '; nothing was changed.',
        \ {'current_changedtick': a:tick, 'hint': 'Call ' . a:kept.tool . ' again (read_buffer for the changedtick of '
        \ . vimrelay#util#buf_path(a:kept.buf) . '), then apply that.'})
endfunction

" Each file's buffer now (0 for none; a buffer wiped since is none), found once for the check and
" the edit.
function! s:buffer_of(f) abort
  return a:f.buf > 0 && bufexists(a:f.buf) ? a:f.buf : vimrelay#util#find_by_path(a:f.path)
endfunction

" The edit vimrelay#util#lsp_edit#preview kept under p.token, taken, after every check the apply
" makes before it changes anything: p.start_by, the position's buffer at p.expected_changedtick and
" unchanged since, every buffer that was loaded unchanged (its changedtick), and every other file (a
" buffer loaded since, or the file on disk) still the text the edit was computed on. Returns
" [kept, each file's buffer now (0 for none)].
function! vimrelay#util#lsp_edit#kept(p) abort
  call vimrelay#util#check_start_by(get(a:p, 'start_by', v:null))
  let kept = vimrelay#util#deferred#take(a:p.token)
  if kept is v:null
    call vimrelay#util#fail('EDITOR_ERROR', 'The editor no longer holds this edit (another call replaced it, or the editor restarted); nothing was changed.',
          \ {'hint': 'Call the tool with apply again.'})
  endif
  let tick = vimrelay#util#check_tick(kept.buf, a:p.expected_changedtick)
  if tick != kept.tick
    call s:stale(kept, vimrelay#util#buf_path(kept.buf), tick)
  endif
  let bufs = []
  for f in kept.files
    let b = s:buffer_of(f)
    call add(bufs, b)
    if b > 0 && bufloaded(b)
      call vimrelay#util#check_modifiable(b)
      let now = vimrelay#util#tick(b)
      if get(kept.ticks, b, now) != now || getbufline(b, 1, '$') !=# f.lines
        call s:stale(kept, f.path, tick)
      endif
    elseif !filereadable(f.path) || readfile(f.path) !=# f.lines
      call s:stale(kept, f.path, tick)
    endif
  endfor
  return [kept, bufs]
endfunction

" The second phase of an lsp_* tool's apply (lsp_edit_apply.vim): makes the kept edit, all or
" nothing, everything checked first; each file's buffer (added, loaded and listed when none holds
" it) gets its edits bottom-up as one undo step, and the client tells the server
" (vimrelay#util#lsp#changed); nothing is saved. Then a code action's command runs, and the call's
" answer waits for it.
function! vimrelay#util#lsp_edit#apply(p) abort
  let [kept, bufs] = vimrelay#util#lsp_edit#kept(a:p)
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
  if kept.command isnot v:null
    return s:run_command(a:p, kept)
  endif
  return kept.out
endfunction

" Runs the kept code action's server command (workspace/executeCommand, LSP 3.17) as the call's
" deferred answer: the server runs it, and the language client makes the edits it sends
" (workspace/applyEdit) as for the user's own code actions. The answer then lists, besides the
" edit's own files, the buffers they changed (their changedticks now, no edits listed).
function! s:run_command(p, kept) abort
  let params = {'command': a:kept.command.command}
  if has_key(a:kept.command, 'arguments')
    let params.arguments = a:kept.command.arguments
  endif
  let state = {'kept': a:kept, 'before': vimrelay#util#lsp_edit#ticks(), 'OnError': function('s:command_failed')}
  return vimrelay#util#lsp#request(a:p, a:kept.buf, a:kept.client, 'workspace/executeCommand', params, function('s:commanded'), state)
endfunction

" The command's answer: the files it changed added to the apply's answer.
function! s:commanded(result, state) abort
  return s:changed(a:state)[0]
endfunction

" The apply's answer with the buffers the command changed, and their number.
function! s:changed(state) abort
  let [out, n] = [a:state.kept.out, 0]
  for [b, now] in items(vimrelay#util#lsp_edit#ticks())
    let b = str2nr(b)
    let path = vimrelay#util#buf_path(b)
    if get(a:state.before, b, -1) == now || path is v:null
      continue
    endif
    let n += 1
    let known = filter(copy(out.files), {_, f -> f.buf is b})
    if empty(known)
      call add(out.files, {'path': path, 'buf': b, 'changedtick': now, 'edits': []})
    else
      let known[0].changedtick = now
    endif
  endfor
  return [out, n]
endfunction

" The command's error answer: its edits until then are made (lsp_edit.lua run_command).
function! s:command_failed(error, state) abort
  let [out, n] = s:changed(a:state)
  let message = 'The command ' . a:state.kept.command.command . ' of ' . a:state.client.name . ' ended with an error: ' . get(a:error, 'message', get(a:error, 'code', ''))
  if n == 0 && empty(out.files)
    call vimrelay#util#fail('EDITOR_ERROR', message . '. It changed no buffer; the server may have done some of its work all the same (on disk too).',
          \ {'hint': 'Read the error, and look at what the command is for before you retry it; or make the change with other tools.'})
  endif
  let out.command_error = message
  return out
endfunction

" What the second phase would make of each file, for a review (lsp_edit_propose.vim): the kept edit
" checked as the apply checks it, each file's buffer added, loaded and listed when none holds it,
" and its lines with the edits made on a copy (a hidden scratch buffer) returned: {result: the
" preview (applied false), files: [{buf, path, base_tick, base, proposed, made}]}. Nothing else
" changes. A code action that runs a command is never reviewed (lsp_edit.lua L.propose_kept).
function! vimrelay#util#lsp_edit#propose(p) abort
  let [kept, bufs] = vimrelay#util#lsp_edit#kept(a:p)
  if kept.command isnot v:null
    call vimrelay#util#fail('UNSUPPORTED', 'A code action that runs a server command cannot be reviewed; nothing was changed.',
          \ {'hint': 'Apply it without review (it needs the exec permission), or choose an action without a command.'})
  endif
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

" Makes WorkspaceEdit `edit` that `client`'s server sent (workspace/applyEdit) at once, as a
" language client that takes such edits does: for ALE, which takes none, while a server command of
" ours runs (util/lsp/ale.vim). Each file's buffer (added, loaded and listed when none holds it)
" gets its edits bottom-up as one undo step, unsaved, and the server is told (`handle`: the
" command's request). Fails, changing nothing, when it would create, rename or delete files.
function! vimrelay#util#lsp_edit#apply_now(client, handle, edit) abort
  let read = vimrelay#util#lsp#reader(a:client)
  let files = map(vimrelay#util#lsp#edit_files(a:edit), {_, f -> [f.uri, vimrelay#util#lsp#byte_edits(read, f.uri, f.edits)]})
  for [uri, edits] in files
    let path = read.path(uri)
    let b = read.buf(uri)
    let b = b > 0 ? b : bufadd(path)
    call vimrelay#util#ensure_loaded(b)
    call setbufvar(b, '&buflisted', 1)
    call vimrelay#util#break_undo(b)
    for e in reverse(edits)
      call vimrelay#util#set_text(b, e.sr + 1, e.sc, e.er + 1, e.ec, split(e.new, "\n", 1))
    endfor
    call vimrelay#util#end_edit(b)
    call vimrelay#util#lsp#changed(a:client, a:handle, b)
  endfor
  call vimrelay#util#redraw()
endfunction
