// apply_diff, the same cases on a real Neovim and on a real Vim: every hunk or none, exact context,
// shifted hunks, end-of-file markers, the required changedtick, and one undo step for the diff,
// apart from the user's insert (on a Vim in Normal mode).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APPLY_DIFF_LIMITS } from '../../../../protocol/index.ts';
import { type Driver, DRIVERS, replaceLines } from '../../../helpers/editors.ts';
import { waitFor } from '../../../helpers/editors.ts';

const diff = (...lines: string[]): string => lines.join('\n') + '\n';

const TEXT = ['# héllo wörld', 'one', 'two — 日本語', 'three', 'four', 'five', 'six', 'seven 🎉', 'eight', 'nine'];

describe.each(DRIVERS)('apply_diff on %s', (_kind, start) => {
  let d: Driver;
  let buf: number;
  /** Replaces the buffer's text (as the user would) and returns its changedtick. */
  const reset = (lines: string[]): Promise<number> => replaceLines(d, buf, lines);
  const lines = (): Promise<string[]> => d.lines(buf);
  beforeAll(async () => {
    d = await start({ files: { 'file.txt': 'on disk\n' }, open: ['file.txt'] });
    buf = await d.bufnr('file.txt');
  });
  beforeEach(() => d.command(`buffer ${buf} | setlocal endofline fixendofline`));
  afterAll(() => d.stop());

  it('applies several hunks of non-ASCII text, ignoring the file names in the header, without saving', async () => {
    const t = await reset(TEXT);
    const data = await d.ok('apply_diff', {
      expected_changedtick: t,
      diff: diff('--- a/some/other/name.md', '+++ b/some/other/name.md', '@@ -2,3 +2,3 @@', ' one', '-two — 日本語', '+two — ｶﾀｶﾅ 🎉', ' three',
        '@@ -7,3 +7,4 @@', ' six', '-seven 🎉', '+seven', '+seven and a half ü', ' eight'),
    });
    expect(data).toMatchObject({ buf, path: join(d.cwd, 'file.txt'), hunks_applied: 2, lines_added: 3, lines_removed: 2, total_lines: 11, shifted: [], shifted_count: 0 });
    expect(data.changedtick).toBe(await d.tick(buf));
    expect(await lines()).toEqual(['# héllo wörld', 'one', 'two — ｶﾀｶﾅ 🎉', 'three', 'four', 'five', 'six', 'seven', 'seven and a half ü', 'eight', 'nine']);
    expect(readFileSync(join(d.cwd, 'file.txt'), 'utf8')).toBe('on disk\n');
  });

  it('makes the whole diff one undo step', async () => {
    const t = await reset(TEXT);
    await d.ok('apply_diff', {
      expected_changedtick: t,
      diff: diff('@@ -1 +1 @@', '-# héllo wörld', '+# title', '@@ -5,2 +5,0 @@', '-four', '-five', '@@ -10 +8,2 @@', ' nine', '+ten'),
    });
    expect(await lines()).toEqual(['# title', 'one', 'two — 日本語', 'three', 'six', 'seven 🎉', 'eight', 'nine', 'ten']);
    await d.undo(buf);
    expect(await lines()).toEqual(TEXT);
  });

  it('applies pure insertions (also at the top) and pure deletions', async () => {
    const t = await reset(['a', 'b', 'c']);
    await d.ok('apply_diff', { expected_changedtick: t, diff: diff('@@ -0,0 +1 @@', '+top', '@@ -1,0 +2,2 @@', '+after a', '+also', '@@ -3 +4,0 @@', '-c') });
    expect(await lines()).toEqual(['top', 'a', 'after a', 'also', 'b']);
  });

  it("fills an empty buffer from a new file's diff, and can empty a buffer", async () => {
    const t = await reset([]);
    await d.ok('apply_diff', { expected_changedtick: t, diff: diff('--- /dev/null', '+++ b/new.txt', '@@ -0,0 +1,2 @@', '+first ü', '+second') });
    expect(await lines()).toEqual(['first ü', 'second']);
    await d.ok('apply_diff', { expected_changedtick: await d.tick(buf), diff: diff('@@ -1,2 +0,0 @@', '-first ü', '-second') });
    expect(await lines()).toEqual(['']);
    await d.ok('apply_diff', { expected_changedtick: await d.tick(buf), diff: diff('@@ -0,0 +1 @@', '+again') });
    expect(await lines()).toEqual(['again']);
    const hidden = await d.expr<number>('bufadd("")');
    await d.expr(`bufload(${hidden})`);
    await d.ok('apply_diff', { buffer: hidden, expected_changedtick: await d.tick(hidden), diff: diff('@@ -0,0 +1 @@', '+new') });
    expect(await d.lines(hidden)).toEqual(['new']);
  });

  it('keeps the one empty line of a file that is "\\n" after lines inserted at the top', async () => {
    // What `diff -U0` gives for "\n" -> "x\n\n"; GNU patch makes it x, then the empty line.
    const t = await reset(['']);
    const data = await d.ok('apply_diff', { expected_changedtick: t, diff: diff('@@ -0,0 +1 @@', '+x') });
    expect(data).toMatchObject({ total_lines: 2, lines_added: 1, lines_removed: 0 });
    expect(await lines()).toEqual(['x', '']);
    const hidden = await d.expr<number>('bufadd("")');
    await d.expr(`bufload(${hidden})`);
    const h = await replaceLines(d, hidden, ['']);
    await d.ok('apply_diff', { buffer: hidden, expected_changedtick: h, diff: diff('@@ -0,0 +1 @@', '+x') });
    expect(await d.lines(hidden)).toEqual(['x', '']);
  });

  it('reads an empty line in a hunk as an empty context line', async () => {
    const t = await reset(['a', '', 'b']);
    await d.ok('apply_diff', { expected_changedtick: t, diff: diff('@@ -1,3 +1,3 @@', ' a', '', '-b', '+B') });
    expect(await lines()).toEqual(['a', '', 'B']);
  });

  it('refuses the whole diff when a later hunk does not match, showing the buffer where it should apply', async () => {
    const t = await reset(TEXT);
    const outcome = await d.call('apply_diff', { expected_changedtick: t, diff: diff('@@ -2 +2 @@', '-one', '+ONE', '@@ -5,3 +5,3 @@', ' four', '-FIVE', '+5', ' six') });
    expect(outcome).toMatchObject({
      ok: false,
      error: {
        code: 'DIFF_MISMATCH',
        message: expect.stringMatching(/^Hunk 2 \(@@ -5,3 \+5,3 @@\) does not match the buffer at line 6 .*Nothing was changed\.$/),
        hint: expect.stringContaining('read_buffer'),
        hunk: 2,
        header: '@@ -5,3 +5,3 @@',
        line: 6,
        expected: 'FIVE',
        actual: 'five',
        buffer_lines: { start_line: 5, lines: ['four', 'five', 'six'], total_lines: 10 },
        current_changedtick: t,
      },
    });
    expect(await lines()).toEqual(TEXT);
    expect(await d.tick(buf)).toBe(t);
  });

  it(`caps the lines a mismatch shows at ${APPLY_DIFF_LIMITS.mismatchLines}, each at ${APPLY_DIFF_LIMITS.lineBytes} bytes`, async () => {
    const long = 'é'.repeat(APPLY_DIFF_LIMITS.lineBytes); // 2 bytes each
    const text = Array.from({ length: 100 }, (_, i) => (i === 0 ? long : `line ${i + 1}`));
    const t = await reset(text);
    const old = text.map((l) => `-${l}`);
    old[99] = '-not the last line';
    const outcome = await d.call('apply_diff', { expected_changedtick: t, diff: diff('@@ -1,100 +0,0 @@', ...old) });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    const shown = (outcome.error.buffer_lines as { lines: string[] }).lines;
    expect(shown).toHaveLength(APPLY_DIFF_LIMITS.mismatchLines);
    expect(shown[0]).toBe('é'.repeat(APPLY_DIFF_LIMITS.lineBytes / 2));
    expect(outcome.error).toMatchObject({ line: 100, expected: 'not the last line', actual: 'line 100' });
  });

  it('applies a hunk whose line numbers are off at the nearest exact match, carrying the shift, and reports it', async () => {
    const t = await reset(TEXT);
    // Hunk 1 is 3 lines early; hunk 2 is 2 early, and found 1 line from where hunk 1's shift puts it.
    const data = await d.ok('apply_diff', { expected_changedtick: t, diff: diff('@@ -1,2 +1,2 @@', ' three', '-four', '+FOUR', '@@ -6 +6 @@', '-seven 🎉', '+SEVEN') });
    expect(data).toMatchObject({ shifted: [{ hunk: 1, offset: 3 }, { hunk: 2, offset: 2 }], shifted_count: 2 });
    expect(await lines()).toEqual(['# héllo wörld', 'one', 'two — 日本語', 'three', 'FOUR', 'five', 'six', 'SEVEN', 'eight', 'nine']);
  });

  it('refuses a shifted hunk whose lines occur equally near on both sides', async () => {
    const t = await reset(['x', 'a', 'mid', 'a', 'y']);
    const outcome = await d.call('apply_diff', { expected_changedtick: t, diff: diff('@@ -3 +3 @@', '-a', '+b') });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'DIFF_MISMATCH', message: expect.stringMatching(/both at line 2 and at line 4/) } });
    expect(await lines()).toEqual(['x', 'a', 'mid', 'a', 'y']);
  });

  it('refuses a hunk that matches only before the previous one', async () => {
    const t = await reset(['a', 'b', 'c', 'd']);
    const outcome = await d.call('apply_diff', { expected_changedtick: t, diff: diff('@@ -3 +3 @@', '-c', '+C', '@@ -4 +4 @@', '-a', '+A') });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'DIFF_MISMATCH', hunk: 2, message: expect.stringMatching(/nowhere else after the previous hunk/) } });
    expect(await lines()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('follows "\\ No newline at end of file" into the end-of-line option, and matches it only at the end', async () => {
    let t = await reset(['a', 'last']);
    await d.ok('apply_diff', { expected_changedtick: t, diff: diff('@@ -2 +2 @@', '-last', '+last!', '\\ No newline at end of file') });
    expect(await lines()).toEqual(['a', 'last!']);
    expect(await d.expr('[&endofline, &fixendofline]')).toEqual([0, 0]);
    await d.ok('apply_diff', { expected_changedtick: await d.tick(buf), diff: diff('@@ -2 +2,2 @@', '-last!', '\\ No newline at end of file', '+last!', '+added') });
    expect(await lines()).toEqual(['a', 'last!', 'added']);
    expect(await d.expr('&endofline')).toBe(1);
    t = await reset(['x', 'x', 'end']);
    const outcome = await d.call('apply_diff', { expected_changedtick: t, diff: diff('@@ -1 +1 @@', '-x', '+y', '\\ No newline at end of file') });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'DIFF_MISMATCH', message: expect.stringMatching(/marks the end of the file/) } });
  });

  it('refuses a stale changedtick with the current one, and a missing one, changing nothing', async () => {
    const t = await reset(['one']);
    const change = diff('@@ -1 +1 @@', '-one', '+ONE');
    expect(await d.call('apply_diff', { expected_changedtick: t - 1, diff: change })).toMatchObject({ ok: false, error: { code: 'STALE_CHANGEDTICK', current_changedtick: t } });
    expect(await d.call('apply_diff', { diff: change })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(await lines()).toEqual(['one']);
    expect(await d.tick(buf)).toBe(t);
  });

  it('refuses a malformed diff before reaching the editor, with what to fix', async () => {
    const t = await reset(['one']);
    const outcome = await d.call('apply_diff', { expected_changedtick: t, diff: diff('@@ -1,3 +1 @@', '-one', '+ONE', 'trailing prose') });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', message: expect.stringMatching(/Diff line 4, in hunk 1, starts with neither/) } });
    expect(await d.tick(buf)).toBe(t);
  });

  it('applies a diff that rewrites every line of a 20k-line buffer, as one undo step', async () => {
    const before = Array.from({ length: 20_000 }, (_, i) => `line ${i + 1} ü`);
    const after = before.map((l) => `${l} 日本語`);
    const t = await reset(before);
    const data = await d.ok('apply_diff', {
      expected_changedtick: t,
      diff: diff('@@ -1,20000 +1,20000 @@', ...before.map((l) => `-${l}`), ...after.map((l) => `+${l}`)),
    });
    expect(data).toMatchObject({ hunks_applied: 1, lines_added: 20_000, lines_removed: 20_000, total_lines: 20_000 });
    expect(await lines()).toEqual(after);
    await d.undo(buf);
    expect(await lines()).toEqual(before);
  });

  // Vim looks for a shifted hunk among the lines that hold its first line (match() on the List):
  // here half the buffer's lines, of which two start the hunk; the nearer wins, and a hunk found
  // nowhere changes nothing.
  it('finds a hunk shifted far in a 20k-line buffer whose first line repeats, the nearest of its places', async () => {
    const text = Array.from({ length: 20_000 }, (_, i) => (i % 2 === 0 ? 'same' : `n${i + 1}`));
    text[15_001] = 'n15000';
    let t = await reset(text);
    const far = await d.ok('apply_diff', { expected_changedtick: t, diff: diff('@@ -10,2 +10,2 @@', ' same', '-n15000', '+N15000') });
    expect(far).toMatchObject({ shifted: [{ hunk: 1, offset: 14_989 }] });
    expect(await d.lines(buf)).toEqual(text.map((l, i) => (i === 14_999 ? 'N15000' : l)));
    t = await reset(text);
    const near = await d.ok('apply_diff', { expected_changedtick: t, diff: diff('@@ -15002,2 +15002,2 @@', ' same', '-n15000', '+N15000') });
    expect(near).toMatchObject({ shifted: [{ hunk: 1, offset: -1 }] });
    expect((await d.lines(buf)).slice(14_999, 15_003)).toEqual(['n15000', 'same', 'N15000', 'same']);
    t = await reset(text);
    const none = await d.call('apply_diff', { expected_changedtick: t, diff: diff('@@ -10,2 +10,2 @@', ' same', '-nowhere', '+X') });
    expect(none).toMatchObject({ ok: false, error: { code: 'DIFF_MISMATCH', message: expect.stringMatching(/nowhere else/) } });
    expect(await d.lines(buf)).toEqual(text);
  });

  it('targets the buffer named by number or path, and refuses an unknown one', async () => {
    const other = await d.expr<number>('bufadd("")');
    await d.expr(`bufload(${other})`);
    await d.expr(`setbufline(${other}, 1, "x")`);
    await d.ok('apply_diff', { buffer: other, expected_changedtick: await d.tick(other), diff: diff('@@ -1 +1 @@', '-x', '+y') });
    expect(await d.lines(other)).toEqual(['y']);
    expect(await d.lines(buf)).not.toEqual(['y']);
    const t = await reset(['by path']);
    await d.ok('apply_diff', { buffer: 'file.txt', expected_changedtick: t, diff: diff('@@ -1 +1 @@', '-by path', '+done') });
    expect(await lines()).toEqual(['done']);
    expect(await d.call('apply_diff', { buffer: 'nope.txt', expected_changedtick: 1, diff: diff('@@ -1 +1 @@', '-x', '+y') })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND' } });
  });
});

// Vim in Normal mode here: only then does it take typed keys, and so have an insert going on.
describe.each(DRIVERS)('apply_diff while the user types, on %s', (_kind, start) => {
  let d: Driver;
  let buf: number;
  const until = (wanted: string): Promise<boolean> =>
    waitFor(async () => ((await d.expr<string>('mode()')) === wanted ? true : undefined), 5_000, `mode ${JSON.stringify(wanted)}`);
  beforeAll(async () => {
    d = await start({ files: { 'typing.txt': 'typed:\ntarget\n' }, open: ['typing.txt'], vimNormal: true });
    buf = await d.bufnr('typing.txt');
  });
  afterAll(() => d.stop());

  it('keeps its undo step apart from the insert the user is typing, a line break typed after it included', async () => {
    const t = await d.tick(buf);
    await d.type('A before');
    await until('i');
    await waitFor(async () => ((await d.lines(buf))[0] === 'typed: before' ? true : undefined), 5_000, 'the typed text');
    const now = await d.tick(buf);
    expect(now).not.toBe(t);
    await d.ok('apply_diff', { expected_changedtick: now, diff: diff('@@ -2 +2 @@', '-target', '+edited') });
    await d.type(' after\rmore\x1b');
    await until('n');
    expect(await d.lines(buf)).toEqual(['typed: before after', 'more', 'edited']);
    await d.undo(buf);
    expect(await d.lines(buf)).toEqual(['typed: before', 'edited']);
    await d.undo(buf);
    expect(await d.lines(buf)).toEqual(['typed: before', 'target']);
  });
});
