// substitute on a real Neovim: Vim :s semantics with an exact count, ranges that folds cannot
// widen, patterns and replacements that cannot break out of the command, the user's search state
// and cursor left alone, the changedtick guard and one undo step.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { changedtick, type EditorFixture, resetLines, startEditor } from './support.ts';

describe('substitute', () => {
  let f: EditorFixture;
  let buf: number;
  const reset = (lines: string[]): Promise<number> => resetLines(f.nvim, buf, lines);
  const tick = (): Promise<number> => changedtick(f.nvim, buf);
  beforeAll(async () => {
    f = await startEditor();
    buf = await f.nvim.lua<number>('return vim.api.nvim_get_current_buf()');
  });
  beforeEach(() => f.nvim.lua('vim.cmd("stopinsert | set noignorecase nosmartcase nogdefault | normal! zE")'));
  afterAll(() => f.stop());

  it('replaces the first match of each line, or every match with g, counting exactly', async () => {
    await reset(['héllo héllo', 'x', 'héllo — 日本語 héllo héllo']);
    const data = await f.ok('substitute', { pattern: 'héllo', replacement: 'ｶﾀｶﾅ' });
    expect(data).toMatchObject({ buf, path: null, count: 2, total_lines: 3 });
    expect(data.changedtick).toBe(await tick());
    expect(await f.lines()).toEqual(['ｶﾀｶﾅ héllo', 'x', 'ｶﾀｶﾅ — 日本語 héllo héllo']);
    expect(await f.ok('substitute', { pattern: 'héllo', replacement: '🎉', flags: ['g'] })).toMatchObject({ count: 3 });
    expect(await f.lines()).toEqual(['ｶﾀｶﾅ 🎉', 'x', 'ｶﾀｶﾅ — 日本語 🎉 🎉']);
  });

  it('uses Vim regex and replacement syntax: groups, &, case changes', async () => {
    await reset(['key = value', 'wörd = ünit']);
    const data = await f.ok('substitute', { pattern: '\\v^(\\S+) \\= (\\S+)$', replacement: '\\U\\2\\E: \\u\\1 (&)' });
    expect(data).toMatchObject({ count: 2 });
    expect(await f.lines()).toEqual(['VALUE: Key (key = value)', 'ÜNIT: Wörd (wörd = ünit)']);
  });

  it('splits lines with \\r or \\n (never a NUL) and joins them with \\n in the pattern, as one undo step', async () => {
    await reset(['a,b;c', 'd', 'e']);
    expect(await f.ok('substitute', { pattern: '[,;]', replacement: '\\r', flags: ['g'], end_line: 1 })).toMatchObject({ count: 2, total_lines: 5 });
    expect(await f.lines()).toEqual(['a', 'b', 'c', 'd', 'e']);
    await f.nvim.client.command('undo');
    expect(await f.ok('substitute', { pattern: ';', replacement: '\\n' })).toMatchObject({ count: 1, total_lines: 4 });
    expect(await f.lines()).toEqual(['a,b', 'c', 'd', 'e']);
    await f.nvim.client.command('undo');
    expect(await f.ok('substitute', { pattern: '[,;]', replacement: '\\r', flags: ['g'] })).toMatchObject({ count: 2, total_lines: 5 });
    expect(await f.ok('substitute', { pattern: 'd\\ne', replacement: 'de' })).toMatchObject({ count: 1, total_lines: 4 });
    expect(await f.lines()).toEqual(['a', 'b', 'c', 'de']);
    await f.nvim.client.command('undo');
    expect(await f.lines()).toEqual(['a', 'b', 'c', 'd', 'e']);
    await f.nvim.client.command('undo');
    expect(await f.lines()).toEqual(['a,b;c', 'd', 'e']);
  });

  it('counts no match as 0 and changes nothing', async () => {
    const t = await reset(['alpha', 'beta']);
    expect(await f.ok('substitute', { pattern: 'gamma', replacement: 'x', flags: ['g'] })).toMatchObject({ count: 0, changedtick: t });
    expect(await f.lines()).toEqual(['alpha', 'beta']);
    expect(await tick()).toBe(t);
  });

  it('limits itself to the range, even across closed folds', async () => {
    await reset(['a', 'a', 'a', 'a', 'a']);
    await f.nvim.lua('vim.wo.foldmethod = "manual"; vim.cmd("2,4fold")');
    expect(await f.nvim.lua('return vim.fn.foldclosed(3)')).toBe(2);
    expect(await f.ok('substitute', { pattern: 'a', replacement: 'X', start_line: 1, end_line: 2 })).toMatchObject({ count: 2 });
    expect(await f.lines()).toEqual(['X', 'X', 'a', 'a', 'a']);
    expect(await f.nvim.lua('return { vim.fn.foldclosed(3), vim.wo.foldenable }')).toEqual([2, true]);
    expect(await f.ok('substitute', { pattern: 'a', replacement: 'Y', start_line: 4 })).toMatchObject({ count: 2 });
    expect(await f.lines()).toEqual(['X', 'X', 'a', 'Y', 'Y']);
  });

  it('refuses a range outside the buffer, or reversed, with the line count', async () => {
    const t = await reset(['a', 'b']);
    for (const range of [{ start_line: 2, end_line: 1 }, { end_line: 3 }, { start_line: 3 }]) {
      expect(await f.call('substitute', { pattern: 'a', replacement: 'x', ...range })).toMatchObject({
        ok: false,
        error: { code: 'INVALID_ARGUMENT', total_lines: 2 },
      });
    }
    expect(await tick()).toBe(t);
  });

  it('matches case exactly unless i, whatever the user\'s ignorecase, smartcase and gdefault say', async () => {
    await reset(['Word word WORD']);
    await f.nvim.client.command('set ignorecase smartcase gdefault');
    expect(await f.ok('substitute', { pattern: 'word', replacement: 'x' })).toMatchObject({ count: 1 });
    expect(await f.lines()).toEqual(['Word x WORD']);
    expect(await f.ok('substitute', { pattern: 'word', replacement: 'y', flags: ['i', 'g'] })).toMatchObject({ count: 2 });
    expect(await f.lines()).toEqual(['y x y']);
    expect(await f.nvim.lua('return { vim.o.ignorecase, vim.o.smartcase, vim.o.gdefault }')).toEqual([true, true, true]);
    await reset(['Aa']);
    expect(await f.ok('substitute', { pattern: 'a', replacement: 'b', flags: ['I', 'g'] })).toMatchObject({ count: 1 });
    expect(await f.lines()).toEqual(['Ab']);
  });

  it('takes patterns and replacements literally that an Ex command line would misread', async () => {
    await reset(['a[ x/y', 'a[ again']);
    // An unclosed "[" would make :s/a[/... swallow the rest of the command as pattern; "~" would
    // be Vim's previous replacement ("y" from the call before).
    await f.ok('substitute', { pattern: 'nothing', replacement: 'y' });
    expect(await f.ok('substitute', { pattern: 'a[', replacement: '/]|"#@!,;:.%+=-_^*~<>' })).toMatchObject({ count: 2 });
    expect(await f.lines()).toEqual(['/]|"#@!,;:.%+=-_^*~<> x/y', '/]|"#@!,;:.%+=-_^*~<> again']);
    // An escaped backslash stays one, even before "n".
    expect(await f.ok('substitute', { pattern: 'x/y', replacement: 'p\\\\n|echo "hi"' })).toMatchObject({ count: 1 });
    expect(await f.lines()).toEqual(['/]|"#@!,;:.%+=-_^*~<> p\\n|echo "hi"', '/]|"#@!,;:.%+=-_^*~<> again']);
  });

  it('leaves the user\'s last search pattern, search history, highlighting and cursor as they were', async () => {
    await reset(['one', 'two', 'three', 'four', 'target here']);
    await f.nvim.client.command('set hlsearch');
    await f.nvim.lua('vim.fn.setreg("/", "four"); vim.fn.histadd("/", "four"); vim.cmd("nohlsearch")');
    await f.nvim.lua('vim.api.nvim_win_set_cursor(0, {5, 3})');
    const before = await f.nvim.lua('return { vim.fn.getreg("/"), vim.fn.histnr("/"), vim.v.hlsearch }');
    expect(before).toEqual(['four', 1, 0]);
    // Splitting lines 1 and 2 adds two lines above the cursor: it follows its text, to line 7.
    expect(await f.ok('substitute', { pattern: 'o', replacement: '\\r', start_line: 1, end_line: 2 })).toMatchObject({ count: 2 });
    expect(await f.nvim.lua('return { vim.fn.getreg("/"), vim.fn.histnr("/"), vim.v.hlsearch }')).toEqual(before);
    expect(await f.nvim.lua('return vim.api.nvim_win_get_cursor(0)')).toEqual([7, 3]);
    expect(await f.nvim.lua('return vim.api.nvim_get_current_line()')).toBe('target here');
    expect(await f.nvim.lua('return vim.fn.exists("g:__vimrelay_count")')).toBe(0);
  });

  it('refuses what would not be a plain :s: expressions, raw line breaks, a lone trailing backslash, prompting flags', async () => {
    const t = await reset(['a']);
    const refused = [
      { pattern: 'a', replacement: '\\=system("true")' },
      { pattern: 'a\nb', replacement: 'x' },
      { pattern: 'a', replacement: 'x\ny' },
      { pattern: 'a', replacement: 'x\\' },
      { pattern: 'a', replacement: 'x', flags: ['c'] },
      { pattern: 'a', replacement: 'x', flags: ['i', 'I'] },
      { pattern: 'a', replacement: 'x', flags: ['g', 'g'] },
    ];
    for (const args of refused) {
      expect(await f.call('substitute', args), JSON.stringify(args)).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    }
    expect(await f.call('substitute', { pattern: 'a\\(', replacement: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('E54') },
    });
    expect(await f.lines()).toEqual(['a']);
    expect(await tick()).toBe(t);
  });

  it('refuses a stale expected_changedtick with the current one, changing nothing', async () => {
    const t = await reset(['one']);
    expect(await f.call('substitute', { pattern: 'one', replacement: 'ONE', expected_changedtick: t + 1 })).toMatchObject({
      ok: false,
      error: { code: 'STALE_CHANGEDTICK', current_changedtick: t },
    });
    expect(await f.ok('substitute', { pattern: 'one', replacement: 'ONE', expected_changedtick: t })).toMatchObject({ count: 1 });
    expect(await f.lines()).toEqual(['ONE']);
  });

  it('works on a buffer that is not current, and reports an editor error for one that cannot change', async () => {
    const other = await f.nvim.lua<number>('local b = vim.api.nvim_create_buf(true, false); vim.api.nvim_buf_set_lines(b, 0, -1, true, {"x ü x"}); return b');
    expect(await f.ok('substitute', { buffer: other, pattern: 'x', replacement: 'y', flags: ['g'] })).toMatchObject({ buf: other, count: 2 });
    expect(await f.lines(other)).toEqual(['y ü y']);
    expect(await f.nvim.lua('return vim.api.nvim_get_current_buf()')).toBe(buf);
    await f.nvim.lua('vim.bo[...].modifiable = false', other);
    expect(await f.call('substitute', { buffer: other, pattern: 'y', replacement: 'z' })).toMatchObject({
      ok: false,
      error: { code: 'EDITOR_ERROR', message: expect.stringMatching(/modifiable/) },
    });
  });
});
