// substitute, the same cases on a real Neovim and on a real Vim: :s semantics with an exact count,
// ranges that folds cannot widen, patterns and replacements that cannot break out of the command,
// the user's search state and cursor left alone, the changedtick guard and one undo step.
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Driver, DRIVERS, replaceLines } from '../../../helpers/editors.ts';

describe.each(DRIVERS)('substitute on %s', (_kind, start) => {
  let d: Driver;
  let buf: number;
  /** Replaces the buffer's text (as the user would) and returns its changedtick. */
  const reset = (lines: string[]): Promise<number> => replaceLines(d, buf, lines);
  const lines = (): Promise<string[]> => d.lines(buf);
  beforeAll(async () => {
    d = await start({ files: { 'sub.txt': 'x\n' }, open: ['sub.txt'] });
    buf = await d.bufnr('sub.txt');
  });
  beforeEach(() => d.command(`buffer ${buf} | set noignorecase nosmartcase nogdefault | normal! zE`));
  afterAll(() => d.stop());

  it('replaces the first match of each line, or every match with g, counting exactly', async () => {
    await reset(['héllo héllo', 'x', 'héllo — 日本語 héllo héllo']);
    const data = await d.ok('substitute', { pattern: 'héllo', replacement: 'ｶﾀｶﾅ' });
    expect(data).toMatchObject({ buf, path: join(d.cwd, 'sub.txt'), count: 2, total_lines: 3 });
    expect(data.changedtick).toBe(await d.tick(buf));
    expect(await lines()).toEqual(['ｶﾀｶﾅ héllo', 'x', 'ｶﾀｶﾅ — 日本語 héllo héllo']);
    expect(await d.ok('substitute', { pattern: 'héllo', replacement: '🎉', flags: ['g'] })).toMatchObject({ count: 3 });
    expect(await lines()).toEqual(['ｶﾀｶﾅ 🎉', 'x', 'ｶﾀｶﾅ — 日本語 🎉 🎉']);
  });

  it('uses Vim regex and replacement syntax: groups, &, case changes', async () => {
    await reset(['key = value', 'wörd = ünit']);
    expect(await d.ok('substitute', { pattern: '\\v^(\\S+) \\= (\\S+)$', replacement: '\\U\\2\\E: \\u\\1 (&)' })).toMatchObject({ count: 2 });
    expect(await lines()).toEqual(['VALUE: Key (key = value)', 'ÜNIT: Wörd (wörd = ünit)']);
  });

  it('splits lines with \\r or \\n (never a NUL) and joins them with \\n in the pattern, each call one undo step', async () => {
    await reset(['a,b;c', 'd', 'e']);
    expect(await d.ok('substitute', { pattern: '[,;]', replacement: '\\r', flags: ['g'], end_line: 1 })).toMatchObject({ count: 2, total_lines: 5 });
    expect(await lines()).toEqual(['a', 'b', 'c', 'd', 'e']);
    await d.undo(buf);
    expect(await d.ok('substitute', { pattern: ';', replacement: '\\n' })).toMatchObject({ count: 1, total_lines: 4 });
    expect(await lines()).toEqual(['a,b', 'c', 'd', 'e']);
    await d.undo(buf);
    expect(await d.ok('substitute', { pattern: '[,;]', replacement: '\\r', flags: ['g'] })).toMatchObject({ count: 2, total_lines: 5 });
    expect(await d.ok('substitute', { pattern: 'd\\ne', replacement: 'de' })).toMatchObject({ count: 1, total_lines: 4 });
    expect(await lines()).toEqual(['a', 'b', 'c', 'de']);
    await d.undo(buf);
    expect(await lines()).toEqual(['a', 'b', 'c', 'd', 'e']);
    await d.undo(buf);
    expect(await lines()).toEqual(['a,b;c', 'd', 'e']);
  });

  it('counts no match as 0 and changes nothing', async () => {
    const t = await reset(['alpha', 'beta']);
    expect(await d.ok('substitute', { pattern: 'gamma', replacement: 'x', flags: ['g'] })).toMatchObject({ count: 0, changedtick: t });
    expect(await lines()).toEqual(['alpha', 'beta']);
    expect(await d.tick(buf)).toBe(t);
  });

  it('limits itself to the range, even across closed folds, which stay', async () => {
    await reset(['a', 'a', 'a', 'a', 'a']);
    await d.command('setlocal foldmethod=manual | 2,4fold');
    expect(await d.expr('foldclosed(3)')).toBe(2);
    expect(await d.ok('substitute', { pattern: 'a', replacement: 'X', start_line: 1, end_line: 2 })).toMatchObject({ count: 2 });
    expect(await lines()).toEqual(['X', 'X', 'a', 'a', 'a']);
    expect(await d.expr('[foldclosed(3), &foldenable]')).toEqual([2, 1]);
    expect(await d.ok('substitute', { pattern: 'a', replacement: 'Y', start_line: 4 })).toMatchObject({ count: 2 });
    expect(await lines()).toEqual(['X', 'X', 'a', 'Y', 'Y']);
  });

  it('refuses a range outside the buffer, or reversed, with the line count', async () => {
    const t = await reset(['a', 'b']);
    for (const range of [{ start_line: 2, end_line: 1 }, { end_line: 3 }, { start_line: 3 }]) {
      expect(await d.call('substitute', { pattern: 'a', replacement: 'x', ...range })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', total_lines: 2 } });
    }
    expect(await d.tick(buf)).toBe(t);
  });

  it("matches case exactly unless i, whatever the user's ignorecase, smartcase and gdefault say", async () => {
    await reset(['Word word WORD']);
    await d.command('set ignorecase smartcase gdefault');
    expect(await d.ok('substitute', { pattern: 'word', replacement: 'x' })).toMatchObject({ count: 1 });
    expect(await lines()).toEqual(['Word x WORD']);
    expect(await d.ok('substitute', { pattern: 'word', replacement: 'y', flags: ['i', 'g'] })).toMatchObject({ count: 2 });
    expect(await lines()).toEqual(['y x y']);
    expect(await d.expr('[&ignorecase, &smartcase, &gdefault]')).toEqual([1, 1, 1]);
    await reset(['Aa']);
    expect(await d.ok('substitute', { pattern: 'a', replacement: 'b', flags: ['I', 'g'] })).toMatchObject({ count: 1 });
    expect(await lines()).toEqual(['Ab']);
  });

  it('takes patterns and replacements literally that an Ex command line would misread', async () => {
    await reset(['a[ x/y', 'a[ again']);
    // An unclosed "[" would make :s/a[/... swallow the rest of the command as pattern; "~" would
    // be Vim's previous replacement ("y" from the call before).
    await d.ok('substitute', { pattern: 'nothing', replacement: 'y' });
    expect(await d.ok('substitute', { pattern: 'a[', replacement: '/]|"#@!,;:.%+=-_^*~<>' })).toMatchObject({ count: 2 });
    expect(await lines()).toEqual(['/]|"#@!,;:.%+=-_^*~<> x/y', '/]|"#@!,;:.%+=-_^*~<> again']);
    // An escaped backslash stays one, even before "n".
    expect(await d.ok('substitute', { pattern: 'x/y', replacement: 'p\\\\n|echo "hi"' })).toMatchObject({ count: 1 });
    expect(await lines()).toEqual(['/]|"#@!,;:.%+=-_^*~<> p\\n|echo "hi"', '/]|"#@!,;:.%+=-_^*~<> again']);
  });

  it("leaves the user's last search pattern, search history, highlighting and cursor as they were", async () => {
    await reset(['one', 'two', 'three', 'four', 'target here']);
    await d.command('set hlsearch');
    await d.expr('[setreg("/", "four"), histadd("/", "four")]');
    await d.command('nohlsearch');
    await d.cursor('sub.txt', 5, 3);
    const state = 'getreg("/") . " " . histget("/", -1) . " " . histnr("/") . " " . v:hlsearch';
    const before = await d.expr<string>(state);
    expect(before).toMatch(/^four four \d+ 0$/);
    const globals = await d.expr<string[]>('sort(keys(g:))');
    // Splitting lines 1 and 2 adds two lines above the cursor: it follows its text, to line 7.
    expect(await d.ok('substitute', { pattern: 'o', replacement: '\\r', start_line: 1, end_line: 2 })).toMatchObject({ count: 2 });
    expect(await d.expr(state)).toBe(before);
    expect(await d.expr('[line("."), col(".") - 1, getline(".")]')).toEqual([7, 3, 'target here']);
    // Nothing of the call is left behind in g: (a counter, say).
    expect(await d.expr('sort(keys(g:))')).toEqual(globals);
  });

  it('refuses what would not be a plain :s (expressions, raw line breaks, a lone trailing backslash, prompting flags) and an invalid pattern, changing nothing', async () => {
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
      expect(await d.call('substitute', args), JSON.stringify(args)).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    }
    expect(await d.call('substitute', { pattern: 'a\\(', replacement: 'x' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('E54') } });
    expect(await lines()).toEqual(['a']);
    expect(await d.tick(buf)).toBe(t);
  });

  it('refuses a stale expected_changedtick with the current one, changing nothing', async () => {
    const t = await reset(['one']);
    expect(await d.call('substitute', { pattern: 'one', replacement: 'ONE', expected_changedtick: t + 1 })).toMatchObject({
      ok: false,
      error: { code: 'STALE_CHANGEDTICK', current_changedtick: t },
    });
    expect(await d.ok('substitute', { pattern: 'one', replacement: 'ONE', expected_changedtick: t })).toMatchObject({ count: 1 });
    expect(await lines()).toEqual(['ONE']);
  });

  it('works on a buffer that is not current, and reports an editor error for one that cannot change', async () => {
    const other = await d.expr<number>('bufadd("")');
    await d.expr(`bufload(${other})`);
    await d.expr(`setbufline(${other}, 1, "x ü x")`);
    expect(await d.ok('substitute', { buffer: other, pattern: 'x', replacement: 'y', flags: ['g'] })).toMatchObject({ buf: other, count: 2 });
    expect(await d.lines(other)).toEqual(['y ü y']);
    expect(await d.expr('bufnr("%")')).toBe(buf);
    await d.expr(`setbufvar(${other}, '&modifiable', 0)`);
    expect(await d.call('substitute', { buffer: other, pattern: 'y', replacement: 'z' })).toMatchObject({ ok: false, error: { code: 'EDITOR_ERROR', message: expect.stringMatching(/modifiable/) } });
  });
});
