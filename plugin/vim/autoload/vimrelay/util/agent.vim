" What the vimrelay agent on this machine says of itself, for :VimRelayStatus (the twin of
" plugin/nvim/lua/vimrelay/agent.lua, which :checkhealth vimrelay uses in Neovim): the status file
" of `vimrelay agent` ($XDG_STATE_HOME/vimrelay/status.json) and of the newest `vimrelay serve`
" (serve.json), each only while its process still runs. Reads files; talks to nothing.

" The agent's state directory, as the agent derives it (XDG Base Directory spec).
function! vimrelay#util#agent#state_dir() abort
  let state = empty($XDG_STATE_HOME) ? expand('~/.local/state') : $XDG_STATE_HOME
  return state . '/vimrelay'
endfunction

" Whether process `pid` is alive: /proc where there is one, else `kill -0`.
function! s:alive(pid) abort
  if type(a:pid) != v:t_number || a:pid <= 0
    return v:false
  endif
  if isdirectory('/proc/self')
    return isdirectory('/proc/' . a:pid)
  endif
  call system('kill -0 ' . a:pid)
  return v:shell_error == 0
endfunction

function! s:read_json(path) abort
  if !filereadable(a:path)
    return {}
  endif
  try
    let value = json_decode(join(readfile(a:path), "\n"))
  catch
    return {}
  endtry
  return type(value) == v:t_dict ? value : {}
endfunction

" The agent's status ({} when none ever ran here), with `running` set from its process.
function! vimrelay#util#agent#agent() abort
  let status = s:read_json(vimrelay#util#agent#state_dir() . '/status.json')
  if !empty(status)
    let status.running = get(status, 'state', '') !=# 'stopped' && s:alive(get(status, 'pid', 0))
  endif
  return status
endfunction

" The newest `vimrelay serve` still running, or {}.
function! vimrelay#util#agent#serve() abort
  let status = s:read_json(vimrelay#util#agent#state_dir() . '/serve.json')
  return !empty(status) && s:alive(get(status, 'pid', 0)) ? status : {}
endfunction

" The process that holds the Vim socket ({pid, role, relay}, vim-holder.json) while it runs, or {}.
function! vimrelay#util#agent#holder() abort
  let holder = s:read_json(vimrelay#util#agent#state_dir() . '/vim-holder.json')
  return !empty(holder) && s:alive(get(holder, 'pid', 0)) ? holder : {}
endfunction

" Whether `status` lists this Vim (by its pid).
function! vimrelay#util#agent#lists_me(status) abort
  for e in get(a:status, 'editors', [])
    if get(e, 'pid', 0) == getpid()
      return v:true
    endif
  endfor
  return v:false
endfunction

" The lines :VimRelayStatus shows about the agent side: which process serves this machine's
" editors (a connected agent and its relay, or a local `serve`), whether it lists this Vim, and
" under each problem a line saying what to do. Short lines: Vim cuts a message at the screen's width.
function! vimrelay#util#agent#report() abort
  let lines = []
  let serve = vimrelay#util#agent#serve()
  if !empty(serve)
    call add(lines, 'serve: pid ' . serve.pid . ' serves this machine''s editors locally, over ' . (serve.transport ==# 'http' ? serve.url : 'stdio'))
  endif
  let agent = vimrelay#util#agent#agent()
  if empty(agent)
    if empty(serve)
      call add(lines, 'agent: none has run for this user')
      call add(lines, '  do: vimrelay pair <relay>, then vimrelay agent (or vimrelay service install)')
    endif
  elseif !agent.running
    call add(lines, 'agent: not running (pid ' . agent.pid . ' is gone)')
    call add(lines, '  do: vimrelay agent (or vimrelay service install)')
  elseif agent.state ==# 'connected'
    call add(lines, 'agent: pid ' . agent.pid . ', connected to ' . agent.relay_url . (type(get(agent, 'device', v:null)) == v:t_string ? ' as ' . agent.device : ''))
  elseif agent.state ==# 'rejected'
    call add(lines, 'agent: the relay at ' . agent.relay_url . ' refused this machine')
    call add(lines, '  do: vimrelay pair ' . agent.relay_url)
  else
    call add(lines, 'agent: pid ' . agent.pid . ', not connected to ' . agent.relay_url . ' (' . agent.state . '); it keeps retrying')
    if type(get(agent, 'reason', v:null)) == v:t_string
      call add(lines, '  why: ' . agent.reason)
    endif
  endif
  " Vims go to whichever process holds the Vim socket: serve yields it to a running agent.
  let holder = vimrelay#util#agent#holder()
  if !empty(holder)
    let relay = type(get(holder, 'relay', v:null)) == v:t_string ? holder.relay : 'a relay'
    call add(lines, 'vims: served by ' . (get(holder, 'role', '') ==# 'serve' ? 'serve' : 'the agent of ' . relay) . ' (pid ' . holder.pid . ')')
    if get(holder, 'role', '') ==# 'serve' && !empty(agent) && agent.running
      call add(lines, '  the agent (pid ' . agent.pid . ') does not see this Vim until serve yields (seconds)')
    endif
  endif
  let serving = !empty(holder) && get(holder, 'role', '') ==# 'serve' && !empty(serve) ? serve : !empty(agent) && agent.running ? agent : serve
  if !empty(serving)
    call add(lines, vimrelay#util#agent#lists_me(serving) ? 'this Vim: listed' : 'this Vim: not listed yet')
  endif
  return lines
endfunction
