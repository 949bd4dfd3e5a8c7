" send_to_terminal on Vim: same contract as the Neovim tool
" (agent/editors/nvim/lua/send_to_terminal.lua), through term_sendkeys(). The terminal is picked
" by buffer number, by name or title (term_gettitle()) exactly, else as a plain substring that must
" pick out exactly one; absent: the current buffer when it is a terminal, else the only one.
" Trailing CR/LF are stripped from the text; submit adds one carriage return (the Enter key).
" Failures list the terminals, at most max_listed of them. Needs +terminal (else UNSUPPORTED).

function! s:describe(b) abort
  return {'buf': a:b, 'name': bufname(a:b), 'title': term_gettitle(a:b),
        \ 'running': term_getstatus(a:b) =~# 'running' ? v:true : v:false}
endfunction

" The id of the channel of terminal b's job.
function! s:channel_of(b) abort
  return ch_info(job_getchannel(term_getjob(a:b))).id
endfunction

function! vimrelay#send_to_terminal#run(p) abort
  if !has('terminal')
    call vimrelay#util#fail('UNSUPPORTED', 'This Vim was built without +terminal.',
          \ {'hint': 'Use a Vim built with +terminal, or a Neovim editor.'})
  endif
  call vimrelay#util#check_start_by(get(a:p, 'start_by', v:null))
  let all = map(sort(term_list(), 'n'), 's:describe(v:val)')
  let choose = 'Pass `terminal` as one of the listed buffer numbers.'
  if empty(all)
    call vimrelay#util#fail('BUFFER_NOT_FOUND', 'This editor has no terminal buffer.', {'terminals_total': 0,
          \ 'hint': 'Open one with run_command (e.g. "terminal ++hidden" or "split | terminal"), or ask the user to, then retry.'})
  endif
  let ref = get(a:p, 'terminal', v:null)
  if ref is v:null
    let found = filter(copy(all), 'v:val.buf == bufnr("%")')
    if empty(found) && len(all) > 1
      call s:refuse(all, a:p, 'MULTIPLE_MATCHES', len(all) . ' terminals are open and the current buffer is none of them.', choose)
    endif
    let term = empty(found) ? all[0] : found[0]
  elseif type(ref) == v:t_number
    let found = filter(copy(all), 'v:val.buf == ref')
    if empty(found)
      call s:refuse(all, a:p, 'BUFFER_NOT_FOUND', bufexists(ref) ? 'Buffer ' . ref . ' is not a terminal.'
            \ : 'There is no buffer ' . ref . '.', choose)
    endif
    let term = found[0]
  else
    let found = filter(copy(all), 'v:val.name ==# ref || v:val.title ==# ref')
    if empty(found)
      let found = filter(copy(all), 'stridx(v:val.name, ref) >= 0 || stridx(v:val.title, ref) >= 0')
    endif
    if empty(found)
      call s:refuse(all, a:p, 'BUFFER_NOT_FOUND', "No terminal's name or title contains \"" . ref . '".', choose)
    elseif len(found) > 1
      call s:refuse(all, a:p, 'MULTIPLE_MATCHES', len(found) . ' terminals match "' . ref . '".', choose)
    endif
    let term = found[0]
  endif
  if !term.running
    call s:refuse(all, a:p, 'INVALID_ARGUMENT', 'The job of terminal ' . term.buf . ' has exited; it cannot take input.',
          \ 'Pick a running terminal from the list, or open a new one with run_command (e.g. "terminal ++hidden").')
  endif
  let text = substitute(a:p.text, '[\r\n]\+$', '', '')
  if get(a:p, 'submit', v:false)
    let text .= "\r"
  endif
  if !empty(text)
    call term_sendkeys(term.buf, text)
  endif
  return {'buf': term.buf, 'name': term.name, 'channel': s:channel_of(term.buf), 'bytes': strlen(text),
        \ 'submitted': get(a:p, 'submit', v:false) ? v:true : v:false}
endfunction

" Fails with `code`, listing at most max_listed terminals.
function! s:refuse(all, p, code, message, hint) abort
  call vimrelay#util#fail(a:code, a:message, {'terminals': a:all[: a:p.max_listed - 1],
        \ 'terminals_total': len(a:all), 'hint': a:hint})
endfunction
