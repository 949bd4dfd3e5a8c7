// undo and redo, the same cases on a real Neovim and on a real Vim: steps with where they end up,
// stopping at either end, the changedtick guard, the current buffer by default, a buffer shown in
// another window (its cursor kept on its text, the current window kept) or in none, and editor
// errors; and, on a Vim in Normal mode (in Ex mode it draws no window), that window's view.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UNDO_LIMITS } from '../../../../protocol/index.ts';
import { type Driver, DRIVERS } from '../../../helpers/editors.ts';

describe.each(DRIVERS)('undo and redo on %s', (_kind, start) => {
  let d: Driver;
  let home: number;
  /** A fresh listed unnamed buffer whose undo history is `states`, each reached by one vimrelay edit. */
  const withHistory = async (states: string[][]): Promise<number> => {
    const b = await d.expr<number>('bufadd("")');
    await d.expr(`setbufvar(${b}, "&buflisted", 1) + bufload(${b})`);
    for (const lines of states) {
      await d.ok('write_buffer', { buffer: b, text: lines.join('\n'), expected_changedtick: await d.tick(b) });
    }
    return b;
  };
  beforeAll(async () => {
    d = await start({ files: { 'home.txt': 'home\n' }, open: ['home.txt'] });
    home = await d.bufnr('home.txt');
  });
  beforeEach(() => d.command(`only | buffer ${home}`));
  afterAll(() => d.stop());

  it('undoes one step and redoes it, reporting the undo sequence and the new changedtick', async () => {
    const b = await withHistory([['one ü'], ['two 日本語'], ['three 🎉']]);
    const undone = await d.ok('undo', { buffer: b, expected_changedtick: await d.tick(b) });
    expect(undone).toMatchObject({ buf: b, path: null, steps_taken: 1, changed: true, seq_cur: 2, seq_last: 3 });
    expect(undone.changedtick).toBe(await d.tick(b));
    expect(await d.lines(b)).toEqual(['two 日本語']);
    const redone = await d.ok('redo', { buffer: b, expected_changedtick: undone.changedtick });
    expect(redone).toMatchObject({ steps_taken: 1, changed: true, seq_cur: 3, seq_last: 3 });
    expect(await d.lines(b)).toEqual(['three 🎉']);
  });

  it('takes several steps, and stops at the oldest and newest states', async () => {
    const b = await withHistory([['1'], ['2'], ['3']]);
    expect(await d.ok('undo', { buffer: b, steps: 2 })).toMatchObject({ steps_taken: 2, seq_cur: 1 });
    expect(await d.lines(b)).toEqual(['1']);
    expect(await d.ok('undo', { buffer: b, steps: 5 })).toMatchObject({ steps_taken: 1, seq_cur: 0, changed: true });
    expect(await d.lines(b)).toEqual(['']);
    const t = await d.tick(b);
    expect(await d.ok('undo', { buffer: b })).toMatchObject({ steps_taken: 0, seq_cur: 0, changed: false, changedtick: t });
    expect(await d.ok('redo', { buffer: b, steps: UNDO_LIMITS.maxSteps })).toMatchObject({ steps_taken: 3, seq_cur: 3, seq_last: 3 });
    expect(await d.lines(b)).toEqual(['3']);
    expect(await d.ok('redo', { buffer: b })).toMatchObject({ steps_taken: 0, changed: false });
    expect(await d.call('undo', { buffer: b, steps: UNDO_LIMITS.maxSteps + 1 })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
  });

  it('refuses a stale expected_changedtick, so that a change made since is not the one taken back', async () => {
    const b = await withHistory([['mine']]);
    const t = await d.tick(b);
    await d.setLine(b, 1, "the user's");
    expect(await d.call('undo', { buffer: b, expected_changedtick: t })).toMatchObject({ ok: false, error: { code: 'STALE_CHANGEDTICK', current_changedtick: await d.tick(b) } });
    expect(await d.lines(b)).toEqual(["the user's"]);
  });

  it("undoes in the current buffer by default, like the user's own u", async () => {
    await d.ok('write_buffer', { buffer: home, text: 'a\nb', expected_changedtick: await d.tick(home) });
    await d.ok('find_and_replace', { old_text: 'b', new_text: 'B' });
    expect(await d.ok('undo', {})).toMatchObject({ buf: home, steps_taken: 1 });
    expect(await d.lines(home)).toEqual(['a', 'b']);
  });

  it('keeps the cursor of the window showing a buffer that is not current, and the current window', async () => {
    const lines = Array.from({ length: 60 }, (_, i) => `line ${i + 1} ü`);
    const b = await withHistory([lines]);
    await d.ok('find_and_replace', { buffer: b, old_text: 'line 50 ü', new_text: 'changed' });
    await d.command(`belowright sbuffer ${b}`);
    await d.command('call cursor(20, 6) | wincmd p');
    const current = await d.expr<number>('win_getid()');
    const other = await d.expr<number>('win_getid(winnr("#"))');
    expect(await d.ok('undo', { buffer: b })).toMatchObject({ steps_taken: 1 });
    expect(await d.lines(b)).toEqual(lines);
    expect(await d.expr('getcurpos(' + other + ')[1:2]')).toEqual([20, 6]);
    expect(await d.expr('win_getid()')).toBe(current);
  });

  it('keeps the cursor of a window on its text when the step adds or removes lines above it', async () => {
    const lines = Array.from({ length: 60 }, (_, i) => `line ${i + 1} ü`);
    const b = await withHistory([lines]);
    await d.ok('apply_diff', { buffer: b, expected_changedtick: await d.tick(b), diff: '@@ -0,0 +1 @@\n+inserted at the top\n' });
    await d.command(`belowright sbuffer ${b}`);
    await d.command('call cursor(41, 6) | wincmd p');
    const other = await d.expr<number>('win_getid(winnr("#"))');
    expect(await d.ok('undo', { buffer: b })).toMatchObject({ steps_taken: 1 });
    expect(await d.lines(b)).toEqual(lines);
    // One line fewer above it: the cursor stays on "line 40 ü".
    expect(await d.expr(`getcurpos(${other})[1:2]`)).toEqual([40, 6]);
    expect(await d.expr('[bufnr("%"), win_getid() != ' + other + ']')).toEqual([home, 1]);
    expect(await d.ok('redo', { buffer: b })).toMatchObject({ steps_taken: 1 });
    expect(await d.expr(`getcurpos(${other})[1:2]`)).toEqual([41, 6]);
  });

  it('works on a buffer no window shows, leaving the current one and the layout alone', async () => {
    const b = await withHistory([['x'], ['y']]);
    const layout = await d.expr<string>('winrestcmd()');
    expect(await d.ok('undo', { buffer: b })).toMatchObject({ steps_taken: 1 });
    expect(await d.lines(b)).toEqual(['x']);
    expect(await d.expr('bufnr("%")')).toBe(home);
    expect(await d.expr('winnr("$")')).toBe(1);
    expect(await d.expr('winrestcmd()')).toBe(layout);
  });

  it('reports an editor error for a buffer that cannot be modified, and refuses an unknown one', async () => {
    const b = await withHistory([['x'], ['y']]);
    await d.expr(`setbufvar(${b}, "&modifiable", 0)`);
    expect(await d.call('undo', { buffer: b })).toMatchObject({ ok: false, error: { code: 'EDITOR_ERROR', message: expect.stringMatching(/modifiable/) } });
    expect(await d.lines(b)).toEqual(['y']);
    expect(await d.call('redo', { buffer: 'nope.txt' })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND' } });
  });
});

// Vim in Normal mode here: in Ex mode (-es) it has no screen, and its topline just follows the cursor.
describe.each(DRIVERS)('undo and redo in another window, its view, on %s', (_kind, start) => {
  let d: Driver;
  beforeAll(async () => {
    const lines = Array.from({ length: 60 }, (_, i) => `line ${i + 1} ü`);
    d = await start({ files: { 'home.txt': 'home\n', 'long.txt': `${lines.join('\n')}\n` }, open: ['home.txt'], vimNormal: true });
  });
  afterAll(() => d.stop());

  it('keeps the view of the window showing a buffer that is not current on its text', async () => {
    const { buf: b } = (await d.ok('open_file', { path: 'long.txt' })) as { buf: number };
    await d.ok('apply_diff', { buffer: b, expected_changedtick: await d.tick(b), diff: '@@ -0,0 +1 @@\n+inserted at the top\n' });
    // The buffer in a split below, scrolled, with its cursor on "line 40 ü"; the current window shows another.
    await d.command(`belowright sbuffer ${b}`);
    await d.command("call cursor(41, 6) | call winrestview({'topline': 36}) | wincmd p");
    const other = await d.expr<number>('win_getid(winnr("#"))');
    const view = (): Promise<[number, number, number]> => d.expr(`[getwininfo(${other})[0].topline, getcurpos(${other})[1], getcurpos(${other})[2]]`);
    expect(await view()).toEqual([36, 41, 6]);
    expect(await d.ok('undo', { buffer: b })).toMatchObject({ steps_taken: 1 });
    // One line fewer above it: the view moves with the text.
    expect(await view()).toEqual([35, 40, 6]);
    expect(await d.ok('redo', { buffer: b })).toMatchObject({ steps_taken: 1 });
    expect(await view()).toEqual([36, 41, 6]);
  });
});
