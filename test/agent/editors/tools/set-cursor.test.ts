// set_cursor, the same cases on a real Neovim and on a real Vim: columns in characters, clamping
// and refusals, showing a buffer in the current or a chosen window (which stays current), folds
// and the jumplist, a modified buffer that 'nohidden' will not hide nor 'autowrite' save, and that
// the text is never touched; and centring, on a Vim in Normal mode (in Ex mode it draws no window).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Driver, DRIVERS, waitFor } from '../../../helpers/editors.ts';

const UNICODE = 'héllo wörld — 日本語 🎉';
/** e, x and y with combining accents: six code points (e U+0301 x U+0301 U+0302 y), three on screen. */
const COMBINING = 'e\u0301x\u0301\u0302y';

describe.each(DRIVERS)('set_cursor on %s', (_kind, start) => {
  let d: Driver;
  let main: number;
  let other: number;
  let combining: number;
  /** The cursor of window `win` (0: the current one) as the editor stores it: [line, byte]. */
  const rawCursor = async (win = 0): Promise<[number, number]> => {
    const [, line, col] = await d.expr<number[]>(`getcurpos(${win})`);
    return [line!, col! - 1];
  };
  const currentWin = (): Promise<number> => d.expr<number>('win_getid()');
  const currentBuf = (): Promise<number> => d.expr<number>('bufnr("%")');
  /** The current window's cursor as get_state_brief reports it, and its buffer's path. */
  const active = async (): Promise<{ path: string; cursor: { line: number; col: number }; win: number }> => {
    const windows = (await d.ok('get_state_brief')).windows as { path: string; cursor: { line: number; col: number }; win: number }[];
    if (!windows[0]) throw new Error('no active window');
    return windows[0];
  };

  beforeAll(async () => {
    const lines = [UNICODE, '', 'ascii line', ...Array.from({ length: 197 }, (_, i) => `line ${i + 4}`)];
    d = await start({ files: { 'main.txt': `${lines.join('\n')}\n`, 'other.txt': 'other 1\nother 2 ü\nother 3\n', 'combining.txt': `${COMBINING}\n` }, open: ['main.txt'] });
    main = await d.bufnr('main.txt');
    other = await d.expr<number>(`bufadd(${JSON.stringify(join(d.cwd, 'other.txt'))})`);
    combining = await d.expr<number>(`bufadd(${JSON.stringify(join(d.cwd, 'combining.txt'))})`);
  });
  beforeEach(async () => {
    // One window showing main.txt, cursor at the top, 'hidden' on, no folds.
    await d.command(`only | buffer ${main} | set hidden noautowrite | normal! zE`);
    await d.cursor('main.txt', 1, 0);
  });
  afterAll(() => d.stop());

  it('puts the cursor at a column counted in characters, in multi-byte text, without touching the text', async () => {
    const before = await d.tick(main);
    const data = await d.ok('set_cursor', { line: 1, col: 15 });
    expect(data).toEqual({ window: await currentWin(), buf: main, path: join(d.cwd, 'main.txt'), cursor: { line: 1, col: 15 }, switched_buffer: false });
    expect(await rawCursor()).toEqual([1, Buffer.byteLength('héllo wörld — ')]);
    await d.ok('set_cursor', { line: 1, col: 19 });
    expect(await rawCursor()).toEqual([1, Buffer.byteLength('héllo wörld — 日本語 ')]);
    expect((await active()).cursor).toEqual({ line: 1, col: 19 });
    expect(await d.tick(main)).toBe(before);
    expect(await d.expr('&modified')).toBe(0);
  });

  it('counts a combining character as a column of its own, and puts the cursor on the character it combines with', async () => {
    // Column -> where the cursor lands: an editor's cursor is never on a combining character.
    for (const [col, at] of [[1, 1], [2, 1], [3, 3], [4, 3], [5, 3], [6, 6], [9, 6]] as const) {
      expect(await d.ok('set_cursor', { buffer: combining, line: 1, col }), `col ${col}`).toMatchObject({ cursor: { line: 1, col: at } });
      expect(await rawCursor()).toEqual([1, Buffer.byteLength([...COMBINING].slice(0, at - 1).join(''))]);
    }
  });

  it('clamps a column past the end of the line to its last character, and col defaults to 1', async () => {
    expect(await d.ok('set_cursor', { line: 1, col: 500 })).toMatchObject({ cursor: { line: 1, col: 19 } });
    expect(await rawCursor()).toEqual([1, Buffer.byteLength('héllo wörld — 日本語 ')]);
    expect(await d.ok('set_cursor', { line: 2, col: 7 })).toMatchObject({ cursor: { line: 2, col: 1 } });
    expect(await d.ok('set_cursor', { line: 3 })).toMatchObject({ cursor: { line: 3, col: 1 } });
  });

  it('refuses a line past the end with the line count, moving nothing', async () => {
    await d.ok('set_cursor', { line: 3, col: 2 });
    expect(await d.call('set_cursor', { line: 201, col: 1 })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', line_count: 200 } });
    expect(await rawCursor()).toEqual([3, 1]);
    expect(await d.call('set_cursor', { buffer: 'other.txt', line: 4 })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', line_count: 3 } });
    expect(await currentBuf()).toBe(main);
    expect(await rawCursor()).toEqual([3, 1]);
  });

  it('refuses an unknown window or buffer, and line 0', async () => {
    expect(await d.call('set_cursor', { window: 999_999, line: 1 })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(await d.call('set_cursor', { buffer: 'missing.txt', line: 1 })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND' } });
    expect(await d.call('set_cursor', { line: 0 })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(await rawCursor()).toEqual([1, 0]);
  });

  it('shows another buffer, by path, in the current window', async () => {
    const data = await d.ok('set_cursor', { buffer: 'other.txt', line: 2, col: 9 });
    expect(data).toEqual({ window: await currentWin(), buf: other, path: join(d.cwd, 'other.txt'), cursor: { line: 2, col: 9 }, switched_buffer: true });
    expect(await currentBuf()).toBe(other);
    expect(await rawCursor()).toEqual([2, Buffer.byteLength('other 2 ')]);
    expect(await active()).toMatchObject({ path: join(d.cwd, 'other.txt'), cursor: { line: 2, col: 9 } });
  });

  it('moves the cursor of a chosen window, showing the buffer there, leaving the current window current', async () => {
    await d.command('split');
    const [top, bottom] = await d.expr<[number, number]>('[win_getid(1), win_getid(2)]');
    expect(await currentWin()).toBe(top);
    const data = await d.ok('set_cursor', { window: bottom, buffer: other, line: 3, col: 3 });
    expect(data).toMatchObject({ window: bottom, buf: other, cursor: { line: 3, col: 3 }, switched_buffer: true });
    expect(await currentWin()).toBe(top);
    expect(await d.expr(`[winbufnr(${top}), winbufnr(${bottom})]`)).toEqual([main, other]);
    expect(await rawCursor(bottom)).toEqual([3, 2]);
    expect(await rawCursor(top)).toEqual([1, 0]);
    expect((await active()).win).toBe(top);
  });

  it('opens a closed fold at the line', async () => {
    await d.command('setlocal foldmethod=manual | 20,30fold');
    expect(await d.expr('foldclosed(25)')).toBe(20);
    await d.ok('set_cursor', { line: 25 });
    expect(await d.expr('foldclosed(25)')).toBe(-1);
    expect(await rawCursor()).toEqual([25, 0]);
  });

  it('keeps the previous position in the jumplist, so Ctrl-O goes back, across buffers too', async () => {
    await d.ok('set_cursor', { line: 3, col: 4 });
    await d.ok('set_cursor', { line: 150 });
    await d.command('execute "normal! \\<C-o>"');
    expect(await rawCursor()).toEqual([3, 3]);
    await d.ok('set_cursor', { buffer: other, line: 2 });
    await d.command('execute "normal! \\<C-o>"');
    expect(await currentBuf()).toBe(main);
    expect(await rawCursor()).toEqual([3, 3]);
  });

  it("will not hide a modified buffer when 'hidden' is off: EDITOR_ERROR with a hint, nothing moves, nothing saved", async () => {
    // 'autowrite' would make the editor save the buffer to leave it; set_cursor must refuse instead.
    await d.command('set nohidden autowrite');
    await d.setLine(main, 3, 'ascii line, edited');
    const outcome = await d.call('set_cursor', { buffer: other, line: 2 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'EDITOR_ERROR', message: expect.stringMatching(/unsaved changes.*E37/), hint: expect.stringMatching(/save_buffer/) } });
    expect(await currentBuf()).toBe(main);
    expect(await rawCursor()).toEqual([1, 0]);
    expect(readFileSync(join(d.cwd, 'main.txt'), 'utf8')).not.toMatch(/edited/);
    // Moving within the modified buffer itself is fine.
    expect(await d.ok('set_cursor', { line: 3, col: 7 })).toMatchObject({ cursor: { line: 3, col: 7 }, switched_buffer: false });
    await d.setLine(main, 3, 'ascii line');
    await d.command('set nomodified noautowrite');
  });
});

// Vim in Normal mode here: in Ex mode (-es) it has no screen, and its topline just follows the cursor.
describe.each(DRIVERS)('set_cursor scrolling on %s', (_kind, start) => {
  let d: Driver;
  beforeAll(async () => {
    const lines = Array.from({ length: 200 }, (_, i) => `line ${i + 1}`);
    d = await start({ files: { 'main.txt': `${lines.join('\n')}\n` }, open: ['main.txt'], vimNormal: true });
  });
  afterAll(() => d.stop());

  it('centres the line when asked, and otherwise scrolls only as far as needed', async () => {
    const height = await d.expr<number>('winheight(0)');
    const winline = (): Promise<number> => d.expr<number>('winline()');
    // The line just below the bottom of the window: without centring it becomes the last row.
    await d.ok('set_cursor', { line: height + 1 });
    expect(await winline()).toBe(height);
    await d.command('normal! gg');
    await d.ok('set_cursor', { line: height + 1, center: true });
    expect(Math.abs((await winline()) - Math.ceil(height / 2))).toBeLessThanOrEqual(1);
  });
});

// Vim in Normal mode here: only then does it take typed keys, and so open the command-line window.
describe.each(DRIVERS)('set_cursor while the user is in the command-line window on %s', (_kind, start) => {
  let d: Driver;
  beforeAll(async () => {
    d = await start({ files: { 'main.txt': 'main 1\nmain 2\n', 'other.txt': 'other 1\nother 2\n' }, open: ['main.txt'], vimNormal: true });
  });
  afterAll(() => d.stop());
  const cmdwin = (type: string): Promise<boolean> =>
    waitFor(async () => ((await d.expr<string>('getcmdwintype()')) === type ? true : undefined), 5_000, `command-line window ${JSON.stringify(type)}`);

  it('refuses to show a buffer in any window, EDITOR_ERROR with a hint, and still moves a cursor', async () => {
    const main = await d.bufnr('main.txt');
    const other = await d.expr<number>(`bufadd(${JSON.stringify(join(d.cwd, 'other.txt'))})`);
    const mainWin = await d.expr<number>('win_getid()');
    await d.type('q:');
    await cmdwin(':');
    const history = await d.expr<number>('bufnr("%")');
    for (const args of [{ buffer: other, line: 2 }, { buffer: other, window: mainWin, line: 2 }]) {
      expect(await d.call('set_cursor', args)).toMatchObject({
        ok: false,
        error: { code: 'EDITOR_ERROR', message: expect.stringMatching(/command-line window.*The cursor did not move\.$/), hint: expect.stringMatching(/leave the command-line window/) },
      });
    }
    expect(await d.expr('[bufnr("%"), winbufnr(' + mainWin + ')]')).toEqual([history, main]);
    expect(await d.ok('set_cursor', { window: mainWin, line: 2 })).toMatchObject({ buf: main, cursor: { line: 2, col: 1 }, switched_buffer: false });
    await d.type(':q\r');
    await cmdwin('');
    expect(await d.ok('set_cursor', { buffer: other, line: 2 })).toMatchObject({ buf: other, switched_buffer: true });
  });
});
