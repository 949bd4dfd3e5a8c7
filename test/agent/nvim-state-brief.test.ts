// get_state_brief on a real Neovim: buffers (listed first, capped), modified ones, the active and
// alternate windows with cursor (columns in characters) and context, and terminals.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS, STATE_CONTEXT_LINE_BYTES } from '../../protocol/index.ts';
import { startEditor, type EditorFixture } from './support.ts';

const A = Array.from({ length: 10 }, (_, i) => `a${i + 1} héllo — 日本語 😀`);

describe('get_state_brief', () => {
  let f: EditorFixture;
  beforeAll(async () => {
    f = await startEditor({ files: { 'a.txt': A.join('\n') + '\n', 'b.txt': 'b1\nb2\n' }, open: ['a.txt', 'b.txt'] });
  });
  afterAll(() => f.stop());

  it('describes mode, cwd and buffers, listed first', async () => {
    await f.nvim.lua('vim.api.nvim_create_buf(false, true)');
    const data = await f.ok('get_state_brief');
    expect(data).toMatchObject({ mode: 'n', cwd: f.nvim.cwd, buffers_truncated: false });
    expect(data).not.toHaveProperty('terminals');
    const buffers = data.buffers as Record<string, unknown>[];
    expect(buffers[0]).toEqual({
      buf: 1,
      path: join(f.nvim.cwd, 'a.txt'),
      name: 'a.txt',
      listed: true,
      loaded: true,
      modified: false,
      buftype: '',
      filetype: 'text',
      line_count: 10,
      changedtick: await f.nvim.lua('return vim.b.changedtick'),
    });
    expect(buffers[1]).toMatchObject({ name: 'b.txt', listed: true, loaded: false, line_count: null, changedtick: null });
    expect(buffers.at(-1)).toMatchObject({ listed: false, buftype: 'nofile', path: null });
  });

  it('lists modified buffers', async () => {
    await f.nvim.lua('vim.api.nvim_buf_set_lines(1, 0, 1, true, {"changed"})');
    expect((await f.ok('get_state_brief')).modified_buffers).toEqual([1]);
    await f.nvim.client.command('undo');
  });

  it('gives the active window, then the alternate one, with cursor in characters and context', async () => {
    // Cursor on line 6, on "日" (byte 14 = character 12).
    await f.nvim.lua('vim.api.nvim_win_set_cursor(0, {6, #"a6 héllo — "})');
    await f.nvim.client.command('split b.txt');
    const data = await f.ok('get_state_brief');
    const [active, alternate, ...rest] = data.windows as Record<string, unknown>[];
    expect(rest).toEqual([]);
    expect(active).toMatchObject({
      role: 'active',
      win: await f.nvim.lua('return vim.api.nvim_get_current_win()'),
      path: join(f.nvim.cwd, 'b.txt'),
      cursor: { line: 1, col: 1 },
      context: { start_line: 1, lines: ['b1', 'b2'], lines_cut: false },
    });
    expect(alternate).toMatchObject({
      role: 'alternate',
      buf: 1,
      cursor: { line: 6, col: 12 },
      context: { start_line: 3, lines: A.slice(2, 9) },
    });
    await f.nvim.client.command('close');
  });

  it('cuts very long context lines at a character boundary', async () => {
    await f.nvim.lua('vim.api.nvim_buf_set_lines(0, 0, 1, true, {string.rep("ü", 5000)}); vim.api.nvim_win_set_cursor(0, {1, 0})');
    const [active] = (await f.ok('get_state_brief')).windows as { context: { lines: string[]; lines_cut: boolean } }[];
    const first = active?.context.lines[0] ?? '';
    expect(Buffer.byteLength(first)).toBeLessThanOrEqual(STATE_CONTEXT_LINE_BYTES);
    expect(first).toBe('ü'.repeat(STATE_CONTEXT_LINE_BYTES / 2));
    expect(active?.context.lines_cut).toBe(true);
    await f.nvim.client.command('undo');
  });

  it('lists terminals and whether they are shown', async () => {
    const hidden = await f.nvim.lua<number>('local b = vim.api.nvim_create_buf(true, false); vim.api.nvim_open_term(b, {}); return b');
    const shown = await f.nvim.lua<number>('local b = vim.api.nvim_create_buf(true, false); vim.api.nvim_open_term(b, {}); vim.cmd("split"); vim.api.nvim_win_set_buf(0, b); return b');
    const data = await f.ok('get_state_brief');
    expect(data.terminals).toEqual([
      { buf: hidden, name: expect.any(String), visible: false },
      { buf: shown, name: expect.any(String), visible: true },
    ]);
    expect((data.windows as { path: unknown }[])[0]?.path).toBeNull();
    await f.nvim.client.command('close');
  });

  it(`lists at most ${LIMITS.stateMaxBuffers} buffers, listed ones first`, async () => {
    await f.nvim.lua('for i = 1, ... do vim.api.nvim_create_buf(false, true) end', LIMITS.stateMaxBuffers);
    await f.nvim.lua('vim.api.nvim_create_buf(true, true)');
    const data = await f.ok('get_state_brief');
    const buffers = data.buffers as { listed: boolean }[];
    expect(data.buffers_truncated).toBe(true);
    expect(buffers).toHaveLength(LIMITS.stateMaxBuffers);
    const firstUnlisted = buffers.findIndex((b) => !b.listed);
    expect(buffers.slice(firstUnlisted).every((b) => !b.listed)).toBe(true);
    expect(buffers.filter((b) => b.listed).length).toBe(await f.nvim.lua('return #vim.fn.getbufinfo({buflisted = 1})'));
  });
});
