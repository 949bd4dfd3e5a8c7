// undo and redo on a real Neovim: steps through the undo tree with where it ends up, the
// changedtick guard, stopping at either end, and a buffer that is not current keeping its window's
// cursor and view.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UNDO_LIMITS } from '../../protocol/index.ts';
import { startEditor, type EditorFixture } from './support.ts';

describe('undo and redo', () => {
  let f: EditorFixture;
  let buf: number;
  const tick = (b = buf): Promise<number> => f.nvim.lua<number>('return vim.api.nvim_buf_get_changedtick(...)', b);
  /** A fresh listed buffer whose undo history is `states`, each reached by one vimrelay edit. */
  const withHistory = async (states: string[][]): Promise<number> => {
    const b = await f.nvim.lua<number>('local b = vim.api.nvim_create_buf(true, false); vim.bo[b].undolevels = 1000; return b');
    for (const lines of states) {
      await f.ok('write_buffer', { buffer: b, text: lines.join('\n'), expected_changedtick: await tick(b) });
    }
    return b;
  };
  beforeAll(async () => {
    f = await startEditor();
    buf = await f.nvim.lua<number>('return vim.api.nvim_get_current_buf()');
  });
  beforeEach(() => f.nvim.lua('vim.cmd("stopinsert | only")'));
  afterAll(() => f.stop());

  it('undoes one step and redoes it, reporting the undo sequence and the new changedtick', async () => {
    const b = await withHistory([['one ü'], ['two 日本語'], ['three 🎉']]);
    const undone = await f.ok('undo', { buffer: b, expected_changedtick: await tick(b) });
    expect(undone).toMatchObject({ buf: b, path: null, steps_taken: 1, changed: true, seq_cur: 2, seq_last: 3 });
    expect(undone.changedtick).toBe(await tick(b));
    expect(await f.lines(b)).toEqual(['two 日本語']);
    const redone = await f.ok('redo', { buffer: b, expected_changedtick: undone.changedtick });
    expect(redone).toMatchObject({ steps_taken: 1, changed: true, seq_cur: 3, seq_last: 3 });
    expect(await f.lines(b)).toEqual(['three 🎉']);
  });

  it('takes several steps, and stops at the oldest and newest states', async () => {
    const b = await withHistory([['1'], ['2'], ['3']]);
    expect(await f.ok('undo', { buffer: b, steps: 2 })).toMatchObject({ steps_taken: 2, seq_cur: 1 });
    expect(await f.lines(b)).toEqual(['1']);
    expect(await f.ok('undo', { buffer: b, steps: 5 })).toMatchObject({ steps_taken: 1, seq_cur: 0, changed: true });
    expect(await f.lines(b)).toEqual(['']);
    const t = await tick(b);
    expect(await f.ok('undo', { buffer: b })).toMatchObject({ steps_taken: 0, seq_cur: 0, changed: false, changedtick: t });
    expect(await f.ok('redo', { buffer: b, steps: UNDO_LIMITS.maxSteps })).toMatchObject({ steps_taken: 3, seq_cur: 3, seq_last: 3 });
    expect(await f.lines(b)).toEqual(['3']);
    expect(await f.ok('redo', { buffer: b })).toMatchObject({ steps_taken: 0, changed: false });
    expect(await f.call('undo', { buffer: b, steps: UNDO_LIMITS.maxSteps + 1 })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
  });

  it('refuses a stale expected_changedtick, so that a change made since is not the one taken back', async () => {
    const b = await withHistory([['mine']]);
    const t = await tick(b);
    await f.nvim.lua('vim.api.nvim_buf_set_lines(..., 0, -1, true, {"the user\'s"})', b);
    expect(await f.call('undo', { buffer: b, expected_changedtick: t })).toMatchObject({
      ok: false,
      error: { code: 'STALE_CHANGEDTICK', current_changedtick: t + 1 },
    });
    expect(await f.lines(b)).toEqual(["the user's"]);
  });

  it('undoes in the current buffer by default, like the user\'s own u', async () => {
    await f.nvim.lua('vim.api.nvim_set_current_buf(...)', buf);
    await f.ok('write_buffer', { buffer: buf, text: 'a\nb', expected_changedtick: await tick() });
    await f.ok('find_and_replace', { old_text: 'b', new_text: 'B' });
    expect(await f.ok('undo', {})).toMatchObject({ buf, steps_taken: 1 });
    expect(await f.lines()).toEqual(['a', 'b']);
  });

  it('keeps the cursor and view of the window showing a buffer that is not current', async () => {
    const lines = Array.from({ length: 60 }, (_, i) => `line ${i + 1} ü`);
    const b = await withHistory([lines]);
    await f.ok('apply_diff', { buffer: b, expected_changedtick: await tick(b), diff: '@@ -0,0 +1 @@\n+inserted at the top\n' });
    // The buffer in a split below, scrolled, with its cursor on "line 40 ü"; the current window shows another.
    const win = await f.nvim.lua<number>(`
      local b, home = ...
      vim.api.nvim_set_current_buf(home)
      vim.cmd('belowright split')
      local win = vim.api.nvim_get_current_win()
      vim.api.nvim_win_set_buf(win, b)
      vim.api.nvim_win_set_cursor(win, {41, 5})
      vim.fn.winrestview({ topline = 30 })
      vim.cmd('wincmd p')
      return win`, b, buf);
    const before = await f.nvim.lua<{ topline: number }>('return vim.api.nvim_win_call(..., vim.fn.winsaveview)', win);
    expect(await f.ok('undo', { buffer: b })).toMatchObject({ steps_taken: 1 });
    expect(await f.lines(b)).toEqual(lines);
    // One line fewer above it: the cursor stays on its text, the view moves with it.
    expect(await f.nvim.lua('return vim.api.nvim_win_get_cursor(...)', win)).toEqual([40, 5]);
    expect(await f.nvim.lua('return vim.api.nvim_win_call(..., vim.fn.winsaveview).topline', win)).toBe(before.topline - 1);
    expect(await f.nvim.lua('return { vim.api.nvim_get_current_buf(), vim.api.nvim_get_current_win() ~= ... }', win)).toEqual([buf, true]);
    expect(await f.ok('redo', { buffer: b })).toMatchObject({ steps_taken: 1 });
    expect(await f.nvim.lua('return vim.api.nvim_win_get_cursor(...)', win)).toEqual([41, 5]);
  });

  it('works on a buffer no window shows, leaving the current one alone', async () => {
    const b = await withHistory([['x'], ['y']]);
    expect(await f.ok('undo', { buffer: b })).toMatchObject({ steps_taken: 1 });
    expect(await f.lines(b)).toEqual(['x']);
    expect(await f.nvim.lua('return vim.api.nvim_get_current_buf()')).toBe(buf);
  });

  it('reports an editor error for a buffer that cannot be modified, and refuses an unknown one', async () => {
    const b = await withHistory([['x'], ['y']]);
    await f.nvim.lua('vim.bo[...].modifiable = false', b);
    expect(await f.call('undo', { buffer: b })).toMatchObject({ ok: false, error: { code: 'EDITOR_ERROR', message: expect.stringMatching(/modifiable/) } });
    expect(await f.lines(b)).toEqual(['y']);
    expect(await f.call('redo', { buffer: 'nope.txt' })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND' } });
  });
});
