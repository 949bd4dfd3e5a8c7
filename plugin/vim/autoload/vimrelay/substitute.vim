" substitute on Vim: the same contract as the Neovim tool (agent/editors/nvim/lua/substitute.lua).
" params: buffer (number | path | null), pattern, replacement, global, ignore_case, start_line,
" end_line (default: the whole buffer), expected_changedtick (optional).
" The pattern never goes through Ex parsing: it is made the last search pattern and :s is given an
" empty one, under :keeppatterns; the user's last search pattern and v:hlsearch are put back after.
" The replacement is delimited by a character it does not contain (the schema refuses \=, raw line
" breaks and a trailing lone backslash); a "~" in it is literal and \n is a line break. A dry run
" with the n flag counts the matches exactly (its \= expression only counts, in the sandbox); then
" the real :s runs, as one undo step, even when the count is 0, so that Vim's "last substitute
" string" (for the user's & and :&&) is the replacement, not the counter. Both run in a hidden popup
" window showing the buffer, without folds (util/hidden.vim), so no window's view changes and closed folds cannot
" widen the range; 'gdefault', 'edcompatible' and 'magic' are neutralized for the call.

" Candidate delimiters of the replacement: single-byte, not alphanumeric, '\', '"' or '|' (:h :s).
let s:delimiters = '/#@!,;:.%+=-_^*~<>?'

" Global options set for the call.
let s:neutral = {'gdefault': 0, 'edcompatible': 0, 'magic': 1}

function! s:delimiter(replacement) abort
  for d in split(s:delimiters, '\zs')
    if stridx(a:replacement, d) < 0
      return d
    endif
  endfor
  call vimrelay#util#fail('INVALID_ARGUMENT', 'The replacement contains every character that could delimit it (' . s:delimiters . ').',
        \ {'hint': 'Split the change into several substitute calls, or use find_and_replace.'})
endfunction

" The replacement with two surprising escapes made plain (:h sub-replace-special): "~" (Vim's
" previous replacement) becomes a literal "~", \n (a NUL) becomes \r (a line break). Escaped pairs
" are taken whole, so an escaped \~ or \\n stays as it is.
function! s:plain(replacement) abort
  return substitute(a:replacement, '\\\=.', '\=get({"~": "\\~", "\\n": "\\r"}, submatch(0), submatch(0))', 'g')
endfunction

function! s:message(exception) abort
  return substitute(a:exception, '^Vim\%((\a\+)\)\=:', '', '')
endfunction

function! vimrelay#substitute#run(p) abort
  let b = vimrelay#util#resolve(a:p)
  call vimrelay#util#ensure_loaded(b)
  call vimrelay#util#check_modifiable(b)
  call vimrelay#util#check_tick(b, get(a:p, 'expected_changedtick', v:null))
  let n = vimrelay#util#line_count(b)
  let first = get(a:p, 'start_line', v:null) is v:null ? 1 : a:p.start_line
  let last = get(a:p, 'end_line', v:null) is v:null ? n : a:p.end_line
  if first > last || last > n
    call vimrelay#util#fail('INVALID_ARGUMENT', 'The range ' . first . '..' . last . " is not within the buffer's " . n
          \ . ' lines (1..' . n . '). Nothing was changed.', {'total_lines': n,
          \ 'hint': 'Pass start_line <= end_line <= total_lines, or leave them out for the whole buffer.'})
  endif
  try
    call match('', a:p.pattern)
  catch
    call vimrelay#util#fail('INVALID_ARGUMENT', 'The pattern is not a valid Vim regular expression: ' . s:message(v:exception),
          \ {'hint': 'Fix the pattern (Vim regex, magic: \( \) group, \| alternates, \{n,m} counts), then retry.'})
  endtry
  let replacement = s:plain(a:p.replacement)
  let d = s:delimiter(replacement)
  let range = first . ',' . last
  let flags = (a:p.global ? 'g' : '') . (a:p.ignore_case ? 'i' : 'I') . 'e'
  let saved_pattern = getreg('/')
  let saved_hlsearch = v:hlsearch
  let saved_options = {}
  for [name, value] in items(s:neutral)
    if exists('+' . name) && eval('&' . name) != value
      let saved_options[name] = eval('&' . name)
      execute 'let &' . name . ' = ' . value
    endif
  endfor
  " The dry run's \= expression counts into it; a global, as it runs in another script's function.
  let g:vimrelay_substitute_count = [0]
  let failure = ''
  try
    call setreg('/', a:p.pattern)
    call vimrelay#util#hidden#execute(b, 'silent keeppatterns ' . range . 's//\=map(g:vimrelay_substitute_count, "v:val + 1")/' . flags . 'n')
    call vimrelay#util#break_undo(b)
    try
      call vimrelay#util#hidden#execute(b, 'silent keeppatterns ' . range . 's' . d . d . replacement . d . flags)
    catch /^vimrelay-fail$/
      throw v:exception
    catch
      let failure = s:message(v:exception)
    endtry
    call vimrelay#util#end_edit(b)
  finally
    for [name, value] in items(saved_options)
      execute 'let &' . name . ' = ' . value
    endfor
    call setreg('/', saved_pattern)
    let v:hlsearch = saved_hlsearch
    let replaced = g:vimrelay_substitute_count[0]
    unlet g:vimrelay_substitute_count
  endtry
  if !empty(failure)
    call vimrelay#util#fail('EDITOR_ERROR', failure)
  endif
  return {'buf': b, 'path': vimrelay#util#buf_path(b), 'count': replaced, 'changedtick': vimrelay#util#tick(b),
        \ 'total_lines': vimrelay#util#line_count(b)}
endfunction
