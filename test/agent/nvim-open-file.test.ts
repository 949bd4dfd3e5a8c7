// open_file on a real Neovim: buffers added and loaded without switching, missing files as empty
// named buffers, paths no Ex command line sees, and show refusing to abandon unsaved changes.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEditor, type EditorFixture } from './support.ts';

describe('open_file', () => {
  let f: EditorFixture;
  let home: number;
  const current = (): Promise<number> => f.nvim.lua<number>('return vim.api.nvim_get_current_buf()');
  const bufCount = (): Promise<number> => f.nvim.lua<number>('return #vim.api.nvim_list_bufs()');
  // Names an Ex command line would expand or split: %, #, |, $VAR, a leading +, spaces.
  const odd = 'dir/a b %#|$HOME.txt';
  beforeAll(async () => {
    f = await startEditor({
      files: { 'notes.md': '# Notes ü\nline 2 日本語\n', [odd]: 'odd 🎉\n', '+cmd.txt': 'plus\n', 'other.txt': 'other\n', 'sub/keep': '' },
      open: ['notes.md'],
    });
    home = await current();
  });
  afterAll(() => f.stop());

  it('adds and loads a file without switching to it', async () => {
    const data = await f.ok('open_file', { path: 'other.txt' });
    expect(data).toMatchObject({
      path: join(f.nvim.cwd, 'other.txt'),
      created: true,
      exists_on_disk: true,
      shown: false,
      total_lines: 1,
      modified: false,
    });
    const b = data.buf as number;
    expect(await f.nvim.lua('return { vim.api.nvim_buf_is_loaded(...), vim.bo[...].buflisted }', b)).toEqual([true, true]);
    expect(data.changedtick).toBe(await f.nvim.lua('return vim.api.nvim_buf_get_changedtick(...)', b));
    expect(await f.lines(b)).toEqual(['other']);
    expect(await current()).toBe(home);
    // The same file again, by another spelling of its path: the same buffer.
    expect(await f.ok('open_file', { path: join(f.nvim.cwd, 'sub/../other.txt') })).toMatchObject({ buf: b, created: false });
  });

  it('passes paths through as data: no expansion, no command', async () => {
    const data = await f.ok('open_file', { path: odd });
    expect(data).toMatchObject({ path: join(f.nvim.cwd, odd), created: true, exists_on_disk: true, total_lines: 1 });
    expect(await f.lines(data.buf as number)).toEqual(['odd 🎉']);
    const plus = await f.ok('open_file', { path: '+cmd.txt' });
    expect(plus).toMatchObject({ path: join(f.nvim.cwd, '+cmd.txt'), exists_on_disk: true });
    expect(await f.lines(plus.buf as number)).toEqual(['plus']);
    expect(await current()).toBe(home);
  });

  it('makes a missing file an empty named buffer, and writes nothing', async () => {
    const data = await f.ok('open_file', { path: 'new/later.txt' });
    const path = join(f.nvim.cwd, 'new/later.txt');
    expect(data).toMatchObject({ path, created: true, exists_on_disk: false, total_lines: 1, modified: false });
    expect(await f.lines(data.buf as number)).toEqual(['']);
    expect(existsSync(path)).toBe(false);
  });

  it('loads and lists a buffer that exists but is not loaded', async () => {
    const b = await f.nvim.lua<number>('local b = vim.fn.bufadd(...); vim.bo[b].buflisted = false; return b', join(f.nvim.cwd, 'notes.md.bak'));
    expect(await f.nvim.lua('return vim.api.nvim_buf_is_loaded(...)', b)).toBe(false);
    expect(await f.ok('open_file', { path: 'notes.md.bak' })).toMatchObject({ buf: b, created: false, exists_on_disk: false });
    expect(await f.nvim.lua('return { vim.api.nvim_buf_is_loaded(...), vim.bo[...].buflisted }', b)).toEqual([true, true]);
  });

  it('shows the buffer in the current window when asked', async () => {
    const win = await f.nvim.lua<number>('return vim.api.nvim_get_current_win()');
    const data = await f.ok('open_file', { path: 'notes.md', show: false });
    expect(data).toMatchObject({ buf: home, created: false, shown: true });
    const shown = await f.ok('open_file', { path: 'other.txt', show: true });
    expect(shown).toMatchObject({ shown: true });
    expect(await current()).toBe(shown.buf);
    expect(await f.nvim.lua('return vim.api.nvim_get_current_win()')).toBe(win);
    await f.nvim.lua('vim.api.nvim_set_current_buf(...)', home);
  });

  it('refuses to show a file when that would abandon (or autowrite) unsaved changes, adding nothing', async () => {
    await f.nvim.client.command('set nohidden autowrite');
    await f.nvim.lua('vim.api.nvim_buf_set_lines(0, 0, 1, true, {"# Changed"})');
    const before = await bufCount();
    const outcome = await f.call('open_file', { path: 'never-added.txt', show: true });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'EDITOR_ERROR', hint: expect.stringContaining('without show') } });
    expect(await bufCount()).toBe(before);
    expect(await current()).toBe(home);
    expect(readFileSync(join(f.nvim.cwd, 'notes.md'), 'utf8')).toBe('# Notes ü\nline 2 日本語\n');
    // Without show it is fine, and the current window keeps its buffer.
    expect(await f.ok('open_file', { path: 'never-added.txt' })).toMatchObject({ created: true, shown: false });
    await f.nvim.client.command('set hidden noautowrite');
    expect(await f.ok('open_file', { path: 'other.txt', show: true })).toMatchObject({ shown: true });
    expect(await f.nvim.lua('return vim.bo[...].modified', home)).toBe(true);
    await f.nvim.lua('vim.api.nvim_set_current_buf(...)', home);
  });

  it('refuses a directory', async () => {
    expect(await f.call('open_file', { path: 'sub' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', message: expect.stringMatching(/directory/) } });
  });
});
