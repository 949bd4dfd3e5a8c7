// set_cursor, the same cases on a real Neovim and on a real Vim: columns in characters, clamping,
// refusals, showing another buffer, another window, the jumplist, and a modified buffer that
// 'nohidden' will not hide.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nvimDriver, vimDriver, type Driver } from './drivers.ts';

const TEXT = ['héllo wörld — 日本語 🎉 end', 'second', 'third'];

describe.each([
  ['Neovim', nvimDriver],
  ['Vim', vimDriver],
] as const)('set_cursor on %s', (_kind, start) => {
  let d: Driver;
  /** The current window's cursor as get_state_brief reports it, and its buffer's path. */
  const active = async (): Promise<{ path: string; cursor: { line: number; col: number }; win: number }> => {
    const windows = (await d.ok('get_state_brief')).windows as { path: string; cursor: { line: number; col: number }; win: number }[];
    if (!windows[0]) throw new Error('no active window');
    return windows[0];
  };
  beforeAll(async () => {
    d = await start({ files: { 'uni.txt': TEXT.join('\n') + '\n', 'other.txt': 'o1\no2\n' }, open: ['uni.txt', 'other.txt'] });
  });
  afterAll(() => d.stop());

  it('puts the cursor at a column counted in characters, without touching the text', async () => {
    const buf = await d.bufnr('uni.txt');
    const tick = await d.tick(buf);
    const data = await d.ok('set_cursor', { line: 1, col: 16 });
    expect(data).toMatchObject({ buf, path: join(d.cwd, 'uni.txt'), cursor: { line: 1, col: 16 }, switched_buffer: false });
    expect(await d.expr('col(".")')).toBe(Buffer.byteLength('héllo wörld — 日') + 1);
    expect(await d.tick(buf)).toBe(tick);
  });

  it('clamps a column past the end of the line, and col defaults to 1', async () => {
    expect(await d.ok('set_cursor', { line: 2, col: 99 })).toMatchObject({ cursor: { line: 2, col: 6 } });
    expect(await d.ok('set_cursor', { line: 3 })).toMatchObject({ cursor: { line: 3, col: 1 } });
  });

  it('refuses a line past the end with the line count, an unknown window or buffer, moving nothing', async () => {
    await d.ok('set_cursor', { line: 2, col: 3 });
    expect(await d.call('set_cursor', { line: 9 })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', line_count: 3 } });
    expect(await d.call('set_cursor', { window: 99_999, line: 1 })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(await d.call('set_cursor', { buffer: 'nope.txt', line: 1 })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND' } });
    expect((await active()).cursor).toEqual({ line: 2, col: 3 });
  });

  it('shows another buffer by path in the current window, and Ctrl-O goes back', async () => {
    await d.ok('set_cursor', { buffer: 'uni.txt', line: 3, col: 2 });
    expect(await d.ok('set_cursor', { buffer: 'other.txt', line: 2, col: 2 })).toMatchObject({ path: join(d.cwd, 'other.txt'), switched_buffer: true, cursor: { line: 2, col: 2 } });
    expect(await active()).toMatchObject({ path: join(d.cwd, 'other.txt'), cursor: { line: 2, col: 2 } });
    await d.command('execute "normal! \\<C-o>"');
    expect(await active()).toMatchObject({ path: join(d.cwd, 'uni.txt'), cursor: { line: 3, col: 2 } });
  });

  it('moves the cursor of another window, leaving the current window current', async () => {
    await d.command('buffer uni.txt');
    await d.command('split other.txt');
    const current = await active();
    const other = await d.expr<number>('win_getid(winnr("#"))');
    expect(await d.ok('set_cursor', { window: other, line: 1, col: 17 })).toMatchObject({ window: other, cursor: { line: 1, col: 17 } });
    expect((await active()).win).toBe(current.win);
    await d.command('only');
  });

  it("will not hide a modified buffer when 'hidden' is off: EDITOR_ERROR with a hint, nothing moves", async () => {
    await d.command('set nohidden');
    await d.command('buffer uni.txt');
    await d.setLine(await d.bufnr('uni.txt'), 3, 'changed');
    const before = await active();
    expect(await d.call('set_cursor', { buffer: 'other.txt', line: 1 })).toMatchObject({
      ok: false,
      error: { code: 'EDITOR_ERROR', hint: expect.stringContaining('save_buffer') },
    });
    expect(await active()).toMatchObject({ path: before.path, cursor: before.cursor });
  });
});
