// save_buffer on a real Neovim: :update semantics, the changedtick guard, the user's write
// autocommands, and failures as EDITOR_ERROR with Vim's message, never a forced write or a dialog.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEditor, type EditorFixture } from './support.ts';

describe('save_buffer', () => {
  let f: EditorFixture;
  let main: number;
  const disk = (name: string): string => readFileSync(join(f.nvim.cwd, name), 'utf8');
  const tick = (b: number): Promise<number> => f.nvim.lua<number>('return vim.api.nvim_buf_get_changedtick(...)', b);
  /** Opens `name` (without showing it) and replaces its text, unsaved; returns the buffer. */
  const edited = async (name: string, text: string): Promise<number> => {
    const { buf } = await f.ok('open_file', { path: name });
    await f.ok('write_buffer', { buffer: name, text, expected_changedtick: await tick(buf as number) });
    return buf as number;
  };
  beforeAll(async () => {
    f = await startEditor({
      files: { 'main.txt': 'old\n', 'ro.txt': 'read-only\n', 'hooks.txt': 'raw\n', 'bg.txt': 'bg\n' },
      open: ['main.txt'],
    });
    main = await f.nvim.lua<number>('return vim.api.nvim_get_current_buf()');
  });
  afterAll(() => f.stop());

  it('writes a modified buffer to its file', async () => {
    await f.ok('write_buffer', { buffer: main, text: 'new ü\n日本語 🎉', expected_changedtick: await tick(main) });
    const data = await f.ok('save_buffer', { expected_changedtick: await tick(main) });
    expect(data).toMatchObject({ buf: main, path: join(f.nvim.cwd, 'main.txt'), written: true, modified: false });
    expect(data.changedtick).toBe(await tick(main));
    expect(disk('main.txt')).toBe('new ü\n日本語 🎉\n');
  });

  it('writes nothing when there is nothing to save', async () => {
    writeFileSync(join(f.nvim.cwd, 'main.txt'), 'changed on disk since\n');
    expect(await f.ok('save_buffer', { buffer: 'main.txt' })).toMatchObject({ written: false, modified: false });
    expect(disk('main.txt')).toBe('changed on disk since\n');
  });

  it('refuses a stale expected_changedtick, writing nothing', async () => {
    const b = await edited('bg.txt', 'unsaved');
    const t = await tick(b);
    expect(await f.call('save_buffer', { buffer: b, expected_changedtick: t - 1 })).toMatchObject({
      ok: false,
      error: { code: 'STALE_CHANGEDTICK', current_changedtick: t },
    });
    expect(disk('bg.txt')).toBe('bg\n');
  });

  it('saves a buffer that is not current without switching to it', async () => {
    await edited('bg.txt', 'saved in the background');
    const win = await f.nvim.lua<number>('return vim.api.nvim_get_current_win()');
    expect(await f.ok('save_buffer', { buffer: 'bg.txt' })).toMatchObject({ written: true, modified: false });
    expect(disk('bg.txt')).toBe('saved in the background\n');
    expect(await f.nvim.lua('return { vim.api.nvim_get_current_buf(), vim.api.nvim_get_current_win() }')).toEqual([main, win]);
  });

  it('runs the user\'s write autocommands and reports the state after them (BufWritePre may change the text)', async () => {
    const pre = await edited('hooks.txt', 'raw edit');
    await f.nvim.lua('vim.api.nvim_create_autocmd("BufWritePre", { buffer = ..., command = "call setline(1, \'formatted: \' . getline(1))" })', pre);
    const before = await tick(pre);
    const data = await f.ok('save_buffer', { buffer: pre, expected_changedtick: before });
    expect(data).toMatchObject({ written: true, modified: false });
    expect(data.changedtick).toBeGreaterThan(before);
    expect(disk('hooks.txt')).toBe('formatted: raw edit\n');
  });

  it('never forces a read-only buffer, and never opens a dialog, even with \'confirm\' set', async () => {
    const b = await edited('ro.txt', 'attempt');
    await f.nvim.lua('vim.bo[...].readonly = true; vim.o.confirm = true', b);
    const outcome = await f.call('save_buffer', { buffer: b });
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'EDITOR_ERROR', message: expect.stringContaining('E45'), hint: expect.stringMatching(/read-only.*never forces/) },
    });
    expect(disk('ro.txt')).toBe('read-only\n');
    expect(await f.nvim.lua('return { vim.o.confirm, vim.bo[...].modified }', b)).toEqual([true, true]);
    await f.nvim.lua('vim.o.confirm = false');
  });

  it('reports a missing directory with a hint that names it', async () => {
    const created = await f.ok('write_buffer', { buffer: 'no/such/dir/file.txt', text: 'x' });
    const outcome = await f.call('save_buffer', { buffer: created.buf as number });
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'EDITOR_ERROR', message: expect.stringMatching(/E212/), hint: expect.stringContaining(join(f.nvim.cwd, 'no/such/dir')) },
    });
  });

  it('refuses a buffer that has no file', async () => {
    const scratch = await f.nvim.lua<number>('local b = vim.api.nvim_create_buf(true, false); vim.api.nvim_buf_set_lines(b, 0, -1, true, {"x"}); return b');
    expect(await f.call('save_buffer', { buffer: scratch })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', hint: expect.stringContaining('write_buffer') } });
    const nofile = await f.nvim.lua<number>('local b = vim.api.nvim_create_buf(true, true); vim.api.nvim_buf_set_name(b, "scratch"); return b');
    expect(await f.call('save_buffer', { buffer: nofile })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('nofile') } });
    expect(await f.call('save_buffer', { buffer: 'unknown.txt' })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND' } });
  });
});
