// set_cursor on a real Neovim: character columns, clamping and refusal, showing a buffer, a chosen
// window, centring, folds and the jumplist, and that the text is never touched.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEditor, type EditorFixture } from './support.ts';

const UNICODE = 'héllo wörld — 日本語 🎉';

describe('set_cursor', () => {
  let f: EditorFixture;
  let main: number;
  let other: number;
  /** The cursor of `win` (0 = current) as Neovim stores it: [line, byte]. */
  const rawCursor = (win = 0): Promise<[number, number]> => f.nvim.lua('return vim.api.nvim_win_get_cursor(...)', win);
  const currentWin = (): Promise<number> => f.nvim.lua('return vim.api.nvim_get_current_win()');
  const tick = (buf: number): Promise<number> => f.nvim.lua('return vim.api.nvim_buf_get_changedtick(...)', buf);

  beforeAll(async () => {
    const lines = [UNICODE, '', 'ascii line', ...Array.from({ length: 197 }, (_, i) => `line ${i + 4}`)];
    f = await startEditor({ files: { 'main.txt': `${lines.join('\n')}\n`, 'other.txt': 'other 1\nother 2 ü\nother 3\n' }, open: ['main.txt'] });
    main = await f.nvim.lua<number>('return vim.api.nvim_get_current_buf()');
    other = await f.nvim.lua<number>('return vim.fn.bufadd(...)', join(f.nvim.cwd, 'other.txt'));
  });
  beforeEach(async () => {
    // One window showing main.txt, cursor at the top, 'hidden' on, no folds.
    await f.nvim.lua('vim.cmd("only | buffer " .. ... .. " | set hidden | normal! zE"); vim.api.nvim_win_set_cursor(0, {1, 0})', main);
  });
  afterAll(() => f.stop());

  it('puts the cursor at a column counted in characters, in multi-byte text, without touching the text', async () => {
    const before = await tick(main);
    const data = await f.ok('set_cursor', { line: 1, col: 15 });
    expect(data).toEqual({ window: await currentWin(), buf: main, path: join(f.nvim.cwd, 'main.txt'), cursor: { line: 1, col: 15 }, switched_buffer: false });
    expect(await rawCursor()).toEqual([1, Buffer.byteLength('héllo wörld — ')]);
    await f.ok('set_cursor', { line: 1, col: 19 });
    expect(await rawCursor()).toEqual([1, Buffer.byteLength('héllo wörld — 日本語 ')]);
    expect(await tick(main)).toBe(before);
    expect(await f.nvim.lua('return vim.bo.modified')).toBe(false);
  });

  it('clamps a column past the end of the line to its last character, and col defaults to 1', async () => {
    expect(await f.ok('set_cursor', { line: 1, col: 500 })).toMatchObject({ cursor: { line: 1, col: 19 } });
    expect(await rawCursor()).toEqual([1, Buffer.byteLength('héllo wörld — 日本語 ')]);
    expect(await f.ok('set_cursor', { line: 2, col: 7 })).toMatchObject({ cursor: { line: 2, col: 1 } });
    expect(await f.ok('set_cursor', { line: 3 })).toMatchObject({ cursor: { line: 3, col: 1 } });
  });

  it('refuses a line past the end with the line count, moving nothing', async () => {
    await f.ok('set_cursor', { line: 3, col: 2 });
    const outcome = await f.call('set_cursor', { line: 201, col: 1 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', line_count: 200 } });
    expect(await rawCursor()).toEqual([3, 1]);
    expect(await f.call('set_cursor', { buffer: 'other.txt', line: 4 })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', line_count: 3 } });
    expect(await f.nvim.lua('return vim.api.nvim_get_current_buf()')).toBe(main);
  });

  it('shows another buffer, by path, in the current window', async () => {
    const data = await f.ok('set_cursor', { buffer: 'other.txt', line: 2, col: 9 });
    expect(data).toEqual({ window: await currentWin(), buf: other, path: join(f.nvim.cwd, 'other.txt'), cursor: { line: 2, col: 9 }, switched_buffer: true });
    expect(await f.nvim.lua('return vim.api.nvim_get_current_buf()')).toBe(other);
    expect(await rawCursor()).toEqual([2, Buffer.byteLength('other 2 ')]);
  });

  it('moves the cursor of a chosen window, leaving the current window current', async () => {
    await f.nvim.client.command('split');
    const [top, bottom] = await f.nvim.lua<[number, number]>('return { vim.fn.win_getid(1), vim.fn.win_getid(2) }');
    expect(await currentWin()).toBe(top);
    const data = await f.ok('set_cursor', { window: bottom, buffer: other, line: 3, col: 3 });
    expect(data).toMatchObject({ window: bottom, buf: other, cursor: { line: 3, col: 3 }, switched_buffer: true });
    expect(await currentWin()).toBe(top);
    expect(await f.nvim.lua('return vim.api.nvim_win_get_buf(...)', top)).toBe(main);
    expect(await f.nvim.lua('return vim.api.nvim_win_get_buf(...)', bottom)).toBe(other);
    expect(await rawCursor(bottom)).toEqual([3, 2]);
    expect(await rawCursor(top)).toEqual([1, 0]);
  });

  it('refuses an unknown window or buffer', async () => {
    expect(await f.call('set_cursor', { window: 999_999, line: 1 })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(await f.call('set_cursor', { buffer: 'missing.txt', line: 1 })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND' } });
    expect(await f.call('set_cursor', { line: 0 })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
  });

  it('centres the line when asked, and otherwise scrolls only as far as needed', async () => {
    const height = await f.nvim.lua<number>('return vim.api.nvim_win_get_height(0)');
    const winline = (): Promise<number> => f.nvim.lua('return vim.fn.winline()');
    // The line just below the bottom of the window: without centring it becomes the last row.
    await f.ok('set_cursor', { line: height + 1 });
    expect(await winline()).toBe(height);
    await f.nvim.client.command('normal! gg');
    await f.ok('set_cursor', { line: height + 1, center: true });
    expect(Math.abs((await winline()) - Math.ceil(height / 2))).toBeLessThanOrEqual(1);
  });

  it('opens a closed fold at the line', async () => {
    await f.nvim.client.command('20,30fold');
    expect(await f.nvim.lua('return vim.fn.foldclosed(25)')).toBe(20);
    await f.ok('set_cursor', { line: 25 });
    expect(await f.nvim.lua('return vim.fn.foldclosed(25)')).toBe(-1);
    expect(await rawCursor()).toEqual([25, 0]);
  });

  it('keeps the previous position in the jumplist, so Ctrl-O goes back', async () => {
    await f.ok('set_cursor', { line: 3, col: 4 });
    await f.ok('set_cursor', { line: 150 });
    await f.nvim.lua('vim.cmd("normal! \\15")'); // Ctrl-O
    expect(await rawCursor()).toEqual([3, 3]);
    await f.ok('set_cursor', { buffer: other, line: 2 });
    await f.nvim.lua('vim.cmd("normal! \\15")');
    expect(await f.nvim.lua('return vim.api.nvim_get_current_buf()')).toBe(main);
    expect(await rawCursor()).toEqual([3, 3]);
  });

  it('will not hide a modified buffer when \'hidden\' is off: EDITOR_ERROR with a hint, nothing moves, nothing saved', async () => {
    // 'autowrite' would make Neovim save the buffer to leave it; set_cursor must refuse instead.
    await f.nvim.lua('vim.o.hidden = false; vim.o.autowrite = true; vim.api.nvim_buf_set_lines(0, 2, 3, true, {"ascii line, edited"})');
    const outcome = await f.call('set_cursor', { buffer: other, line: 2 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'EDITOR_ERROR', message: expect.stringMatching(/unsaved changes.*E37/), hint: expect.stringMatching(/save_buffer/) } });
    expect(await f.nvim.lua('return vim.api.nvim_get_current_buf()')).toBe(main);
    expect(await rawCursor()).toEqual([1, 0]);
    expect(readFileSync(join(f.nvim.cwd, 'main.txt'), 'utf8')).not.toMatch(/edited/);
    // Moving within the modified buffer itself is fine.
    expect(await f.ok('set_cursor', { line: 3, col: 7 })).toMatchObject({ cursor: { line: 3, col: 7 }, switched_buffer: false });
    await f.nvim.lua('vim.o.autowrite = false; vim.api.nvim_buf_set_lines(0, 2, 3, true, {"ascii line"}); vim.bo.modified = false');
  });
});
