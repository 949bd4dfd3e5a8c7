// write_buffer on a real Neovim: tick required for existing buffers, creation for new paths, one
// undo step, never a write to disk.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEditor, type EditorFixture } from './support.ts';

describe('write_buffer', () => {
  let f: EditorFixture;
  beforeAll(async () => {
    f = await startEditor({
      files: { 'open.txt': 'original 1\noriginal 2\n', 'closed.txt': 'on disk ü\n', 'dir/keep': '' },
      open: ['open.txt'],
    });
  });
  afterAll(() => f.stop());

  it('requires expected_changedtick for an existing buffer, reporting the current one', async () => {
    const tick = await f.nvim.lua<number>('return vim.b.changedtick');
    const outcome = await f.call('write_buffer', { buffer: 'open.txt', text: 'clobber' });
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', current_changedtick: tick, hint: expect.stringContaining('read_buffer') },
    });
    expect(await f.lines()).toEqual(['original 1', 'original 2']);
  });

  it('refuses a stale tick, changing nothing', async () => {
    const tick = await f.nvim.lua<number>('return vim.b.changedtick');
    const outcome = await f.call('write_buffer', { buffer: 'open.txt', text: 'clobber', expected_changedtick: tick + 5 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'STALE_CHANGEDTICK', current_changedtick: tick } });
    expect(await f.lines()).toEqual(['original 1', 'original 2']);
    expect(await f.nvim.lua('return vim.b.changedtick')).toBe(tick);
  });

  it('replaces the whole buffer as one undo step, ignoring one trailing newline, without saving', async () => {
    const { changedtick } = await f.ok('read_buffer', { buffer: 'open.txt' });
    const data = await f.ok('write_buffer', { buffer: 'open.txt', text: 'new ü\n日本語 😀\n\n', expected_changedtick: changedtick });
    expect(data).toMatchObject({ path: join(f.nvim.cwd, 'open.txt'), created: false, total_lines: 3 });
    expect(await f.lines()).toEqual(['new ü', '日本語 😀', '']);
    expect(data.changedtick).toBe(await f.nvim.lua('return vim.b.changedtick'));
    expect(readFileSync(join(f.nvim.cwd, 'open.txt'), 'utf8')).toBe('original 1\noriginal 2\n');
    expect(await f.nvim.lua('return vim.bo.modified')).toBe(true);
    await f.nvim.client.command('undo');
    expect(await f.lines()).toEqual(['original 1', 'original 2']);
  });

  it('creates a listed buffer for a new relative path, unsaved', async () => {
    const data = await f.ok('write_buffer', { buffer: 'new/dir/created.md', text: '# Title\nbody' });
    const path = join(f.nvim.cwd, 'new/dir/created.md');
    expect(data).toMatchObject({ path, created: true, total_lines: 2 });
    expect(await f.lines(data.buf as number)).toEqual(['# Title', 'body']);
    expect(await f.nvim.lua('return vim.bo[...].buflisted', data.buf)).toBe(true);
    expect(existsSync(path)).toBe(false);
    // It now exists: writing again needs its changedtick.
    const again = await f.call('write_buffer', { buffer: path, text: 'x' });
    expect(again).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', current_changedtick: data.changedtick } });
    expect(await f.ok('write_buffer', { buffer: path, text: '', expected_changedtick: data.changedtick })).toMatchObject({ created: false, total_lines: 1 });
    expect(await f.lines(data.buf as number)).toEqual(['']);
  });

  it('loads a file that exists on disk but has no buffer, and treats it as existing', async () => {
    const outcome = await f.call('write_buffer', { buffer: 'closed.txt', text: 'replaced' });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toMatchObject({ code: 'INVALID_ARGUMENT', current_changedtick: expect.any(Number) });
    const read = await f.ok('read_buffer', { buffer: 'closed.txt' });
    expect(read.lines).toEqual(['on disk ü']);
    expect(read.changedtick).toBe(outcome.error.current_changedtick);
    const data = await f.ok('write_buffer', { buffer: 'closed.txt', text: 'replaced', expected_changedtick: read.changedtick });
    expect(data).toMatchObject({ created: false, total_lines: 1 });
    expect(readFileSync(join(f.nvim.cwd, 'closed.txt'), 'utf8')).toBe('on disk ü\n');
  });

  it('refuses an unknown buffer number and a directory', async () => {
    expect(await f.call('write_buffer', { buffer: 4242, text: 'x' })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND' } });
    expect(await f.call('write_buffer', { buffer: 'dir', text: 'x' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
  });
});
