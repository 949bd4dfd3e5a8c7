" send_keys on Vim: same contract as the Neovim tool (agent/editors/nvim/lua/send_keys.lua).
" The keys run under the CTRL-C watchdog (util/interrupt.vim): keys still waiting after
" `timeout_ms`, typically on a prompt, are interrupted and the call fails with TIMEOUT. A call Vim
" could only start after its deadline (start_by) does nothing.

" Keys in Vim key notation ("dd<Esc>", "<C-w>v", "<C-\><C-N>") as the bytes they stand for, as
" the Neovim tool's nvim_replace_termcodes reads them: each <...> as a string's "\<...>" reads it
" (:h expr-quote), a name Vim does not know left as typed, every other character as it is.
function! s:termcodes(keys) abort
  return substitute(a:keys, '<[^<>[:space:]"]\+>', '\=s:key(submatch(0))', 'g')
endfunction

" One <...> name as its bytes, or as typed when Vim does not know it ("\<foo>" reads as "<foo>").
" It holds no '"' and ends in '>': what is evaluated is one string literal, and nothing else.
function! s:key(name) abort
  let key = eval('"\' . a:name . '"')
  return key =~# '^<.' ? a:name : key
endfunction

function! vimrelay#send_keys#run(p) abort
  call vimrelay#util#check_start_by(get(a:p, 'start_by', v:null))
  " A terminal window in Terminal-Job mode gives every key to its job, <Esc> too: CTRL-\ CTRL-N
  " leaves it for Terminal-Normal mode first (:h t_CTRL-\_CTRL-N), as Neovim's window is left.
  let leave_job = mode() ==# 't'
  let sent = (leave_job ? '<C-\><C-n>' : '') . '<Esc>' . a:p.keys
  let previous = v:errmsg
  let v:errmsg = ''
  let watch = vimrelay#util#interrupt#watch(a:p.timeout_ms)
  " m: mappings apply; t: as if typed (history, undo, abbreviations); x: execute now, ending an
  " unfinished command or insert when the keys run out, as :normal does.
  " Inside a try (as every tool call is), an error the keys cause is thrown: it ends the keys, as
  " an error does in a mapping, and is reported as errmsg.
  try
    call feedkeys(s:termcodes(sent), 'mtx')
  catch
    let v:errmsg = substitute(v:exception, '^Vim\%((\a\+)\)\=:', '', '')
  finally
    call vimrelay#util#interrupt#stop(watch)
  endtry
  " Not `errmsg`: unscoped, that name is v:errmsg itself (a Vi-compatible alias).
  let error = watch.fired ? '' : v:errmsg
  if empty(error)
    let v:errmsg = previous
  endif
  if watch.fired
    call vimrelay#util#fail('TIMEOUT', 'The keys still ran after ' . a:p.timeout_ms . ' ms and were interrupted with CTRL-C.', {
          \ 'sent': sent, 'mode': mode(1), 'hint': 'They probably reached a prompt that waits for input (such as input()). '
          \ . 'The keys before it took effect: check with get_state_brief. Send the answer with the keys, use run_command for Ex commands, or raise timeout_ms.'})
  endif
  let b = bufnr('%')
  let pos = getcurpos()
  return {'sent': sent, 'mode': mode(1), 'buf': b, 'path': vimrelay#util#buf_path(b),
        \ 'cursor': {'line': pos[1], 'col': vimrelay#util#char_col(getline(pos[1]), pos[2])},
        \ 'errmsg': empty(error) ? v:null : vimrelay#util#cut(error, a:p.error_bytes)}
endfunction
