" lsp_code_actions, the twin of lua/lsp_code_actions.lua: the code actions the buffer's language
" server (util/lsp.vim) offers for a position or a range, with the client's diagnostics on its
" lines, as a deferred answer; each with the id lsp_code_actions.lua makes (the same rules: `x` when
" applying runs a server command, `e` when it only edits, a hash of kind, title and command, `.n` for
" the n-th alike, the title). With p.id, that action, resolved when the server resolves actions
" lazily and it has no edit yet (codeAction/resolve), and its edit as a preview
" (util/lsp_edit.vim), kept with its command for lsp_edit_apply.vim when p.keep.

" The Command action `a` runs (itself when it is a bare Command), or v:null.
function! s:command_of(a) abort
  let command = get(a:a, 'command', v:null)
  return type(command) == v:t_string ? a:a : type(command) == v:t_dict ? command : v:null
endfunction

" What the listing shows of action `a`, with its id; `seen` counts the ids made so far.
function! s:entry(a, seen, p) abort
  let command = s:command_of(a:a)
  let kind = type(get(a:a, 'kind', v:null)) == v:t_string ? a:a.kind : v:null
  let full = type(get(a:a, 'title', v:null)) == v:t_string ? a:a.title : ''
  let title = vimrelay#util#cut(full, a:p.title_bytes)
  let key = (command is v:null ? 'e' : 'x') . sha256(join([kind is v:null ? '' : kind, full, command is v:null ? '' : command.command], "\n"))[: 7]
  let a:seen[key] = get(a:seen, key, 0) + 1
  if a:seen[key] > 1
    let key .= '.' . a:seen[key]
  endif
  let disabled = get(a:a, 'disabled', v:null)
  return {'id': key . ':' . title, 'title': title, 'kind': kind, 'preferred': get(a:a, 'isPreferred', v:false) is v:true ? v:true : v:false,
        \ 'command': command is v:null ? v:null : command.command, 'disabled': type(disabled) == v:t_dict ? string(get(disabled, 'reason', '')) : v:null}
endfunction

function! s:shape(result, state) abort
  let p = a:state.p
  let [seen, actions, found] = [{}, [], v:null]
  for a in a:result is v:null ? [] : a:result
    let shown = s:entry(a, seen, p)
    call add(actions, shown)
    if shown.id ==# get(p, 'id', '')
      let found = {'action': a, 'shown': shown}
    endif
  endfor
  let name = a:state.client.name
  if !has_key(p, 'id')
    return {'server': name, 'actions': actions[: p.max_actions - 1], 'applied': v:false, 'files': [], 'edit_count': 0,
          \ 'truncated': len(actions) > p.max_actions ? v:true : v:false, 'withheld': 0}
  endif
  if found is v:null
    call vimrelay#util#fail('NO_MATCH', name . ' offers no action with that id here now (the text or its diagnostics changed, or the id was not one it listed).',
          \ {'hint': 'Call lsp_code_actions without id for the actions offered now, then pass one of their ids unchanged.'})
  endif
  if found.shown.disabled isnot v:null
    call vimrelay#util#fail('EDITOR_ERROR', name . ' offers this action disabled: ' . found.shown.disabled . '. Nothing was changed.',
          \ {'hint': 'Do what the reason says first, or choose another action.'})
  endif
  let a:state.found = found
  let a = found.action
  if type(get(a, 'command', v:null)) != v:t_string && !has_key(a, 'edit') && vimrelay#util#lsp#resolves(a:state.client, a)
    return vimrelay#util#lsp#next('codeAction/resolve', a, function('s:resolved'))
  endif
  return s:finish(a, a:state)
endfunction

function! s:resolved(result, state) abort
  return s:finish(a:result is v:null ? a:state.found.action : a:result, a:state)
endfunction

" The action as it will be applied: its edit and command.
function! s:finish(a, state) abort
  let command = s:command_of(a:a)
  if command is v:null
    let command = s:command_of(a:state.found.action)
  elseif a:state.found.shown.command is v:null
    call vimrelay#util#fail('EDITOR_ERROR', 'Resolved, this action turned out to run a server command (' . command.command . '), which its id did not say; nothing was changed.',
          \ {'hint': 'Make its edits with other tools, or ask the user to apply it in the editor.'})
  endif
  let how = {'tool': 'lsp_code_actions', 'what': 'the code action', 'client': a:state.client, 'handle': a:state.handle, 'b': a:state.b,
        \ 'tick': a:state.tick, 'ticks': a:state.ticks, 'command': command}
  let edit = get(a:a, 'edit', {})
  let out = vimrelay#util#lsp_edit#preview(a:state.p, type(edit) == v:t_dict ? edit : {}, how)
  let out.actions = [a:state.found.shown]
  return out
endfunction

function! vimrelay#lsp_code_actions#run(p) abort
  let [b, client] = vimrelay#util#lsp#target(a:p)
  let tick = vimrelay#util#check_tick(b, get(a:p, 'expected_changedtick', v:null))
  let range = vimrelay#util#lsp#range_params(client, b, a:p.line, a:p.col, get(a:p, 'end_line', v:null), get(a:p, 'end_col', v:null))
  " triggerKind 1: Invoked, as the user's own request is (LSP 3.17 "CodeActionTriggerKind").
  let context = {'diagnostics': vimrelay#util#lsp#context_diagnostics(client, b, range), 'triggerKind': 1}
  if has_key(a:p, 'kinds')
    let context.only = a:p.kinds
  endif
  let params = {'textDocument': {'uri': vimrelay#util#lsp#uri(client, b)}, 'range': range, 'context': context}
  let state = {'p': a:p, 'b': b, 'tick': tick, 'ticks': vimrelay#util#lsp_edit#ticks()}
  return vimrelay#util#lsp#request(a:p, b, client, 'textDocument/codeAction', params, function('s:shape'), state)
endfunction
