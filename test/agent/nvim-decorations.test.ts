// highlight_range, add_virtual_text and clear_decorations on a real Neovim: extmarks in the
// `vimrelay` namespace at character columns, colors as VimRelay<Color> groups, the caps on virtual
// text, and that decorations never touch the text, the changedtick or undo.
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DECORATION_COLORS, VIRTUAL_TEXT_LIMITS } from '../../protocol/index.ts';
import { startEditor, type EditorFixture } from './support.ts';

const UNICODE = 'héllo wörld — 日本語 🎉';

/** One extmark as nvim_buf_get_extmarks returns it with details. */
type Mark = [number, number, number, Record<string, unknown>];

describe('decorations', () => {
  let f: EditorFixture;
  let main: number;
  let other: number;
  /** Our extmarks in `buf`, with details. */
  const marks = (buf: number): Promise<Mark[]> =>
    f.nvim.lua('return vim.api.nvim_buf_get_extmarks(..., vim.api.nvim_create_namespace("vimrelay"), 0, -1, { details = true })', buf);
  /** Text, changedtick, modified flag and undo state: what a decoration must leave alone. */
  const snapshot = (buf: number): Promise<unknown> =>
    f.nvim.lua(
      'local b = ...; return { vim.api.nvim_buf_get_lines(b, 0, -1, true), vim.api.nvim_buf_get_changedtick(b), vim.bo[b].modified, vim.api.nvim_buf_call(b, function() return vim.fn.undotree().seq_last end) }',
      buf,
    );

  beforeAll(async () => {
    f = await startEditor({ files: { 'main.txt': `${UNICODE}\nsecond ü\n\nfourth\n`, 'other.txt': 'other\n' }, open: ['main.txt', 'other.txt'] });
    main = await f.nvim.lua<number>('return vim.api.nvim_get_current_buf()');
    other = await f.nvim.lua<number>('return vim.fn.bufnr("other.txt")');
  });
  beforeEach(() => f.nvim.lua('for _, b in ipairs(vim.api.nvim_list_bufs()) do vim.api.nvim_buf_clear_namespace(b, -1, 0, -1) end'));
  afterAll(() => f.stop());

  describe('highlight_range', () => {
    it('highlights a range given in characters of multi-byte text, end exclusive, as a VimRelay<Color> group', async () => {
      const before = await snapshot(main);
      const data = await f.ok('highlight_range', { start: { line: 1, col: 15 }, end: { line: 1, col: 18 }, color: 'warning' });
      expect(data).toEqual({
        id: expect.any(Number),
        buf: main,
        path: join(f.nvim.cwd, 'main.txt'),
        start: { line: 1, col: 15 },
        end: { line: 1, col: 18 },
        color: 'warning',
      });
      const startByte = Buffer.byteLength('héllo wörld — ');
      expect(await marks(main)).toEqual([
        [data.id, 0, startByte, expect.objectContaining({ end_row: 0, end_col: startByte + Buffer.byteLength('日本語'), hl_group: 'VimRelayWarning' })],
      ]);
      expect(await f.nvim.lua('return __vimrelay.decoration_color("VimRelayWarning")')).toBe('warning');
      expect(await snapshot(main)).toEqual(before);
    });

    it('spans lines, clamps columns past the end of a line, and defaults to the current buffer and info', async () => {
      const data = await f.ok('highlight_range', { start: { line: 1, col: 19 }, end: { line: 2, col: 99 } });
      expect(data).toMatchObject({ buf: main, start: { line: 1, col: 19 }, end: { line: 2, col: 9 }, color: 'info' });
      const [mark] = await marks(main);
      expect(mark).toEqual([data.id, 0, Buffer.byteLength('héllo wörld — 日本語 '), expect.objectContaining({ end_row: 1, end_col: Buffer.byteLength('second ü'), hl_group: 'VimRelayInfo' })]);
    });

    it('addresses another buffer by path', async () => {
      const data = await f.ok('highlight_range', { buffer: 'other.txt', start: { line: 1, col: 1 }, end: { line: 1, col: 3 }, color: 'success' });
      expect(data).toMatchObject({ buf: other, path: join(f.nvim.cwd, 'other.txt') });
      expect(await marks(other)).toEqual([[data.id, 0, 0, expect.objectContaining({ end_col: 2, hl_group: 'VimRelaySuccess' })]]);
      expect(await marks(main)).toEqual([]);
    });

    it('refuses lines past the end (with the line count) and empty or reversed ranges, adding nothing', async () => {
      expect(await f.call('highlight_range', { start: { line: 4, col: 1 }, end: { line: 5, col: 1 } })).toMatchObject({
        ok: false,
        error: { code: 'INVALID_ARGUMENT', line_count: 4 },
      });
      expect(await f.call('highlight_range', { start: { line: 2, col: 3 }, end: { line: 2, col: 3 } })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
      expect(await f.call('highlight_range', { start: { line: 2, col: 3 }, end: { line: 1, col: 5 } })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
      // Both columns clamp to the end of line 2: empty after clamping.
      expect(await f.call('highlight_range', { start: { line: 2, col: 50 }, end: { line: 2, col: 60 } })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
      expect(await f.call('highlight_range', { start: { line: 1, col: 1 }, end: { line: 1, col: 2 }, color: 'purple' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
      expect(await marks(main)).toEqual([]);
    });

    it('follows the text as it is edited', async () => {
      const data = await f.ok('highlight_range', { start: { line: 2, col: 8 }, end: { line: 2, col: 9 } });
      await f.nvim.lua('vim.api.nvim_buf_set_lines(0, 0, 0, true, { "new first line" })');
      expect((await marks(main))[0]).toEqual([data.id, 2, Buffer.byteLength('second '), expect.objectContaining({ end_row: 2 })]);
      await f.nvim.client.command('undo');
      expect((await marks(main))[0]?.slice(0, 3)).toEqual([data.id, 1, Buffer.byteLength('second ')]);
    });
  });

  describe('colors', () => {
    it('defines each color as a default link to a standard group', async () => {
      for (const [i, color] of DECORATION_COLORS.entries()) {
        await f.ok('highlight_range', { start: { line: 1, col: i + 1 }, end: { line: 1, col: i + 2 }, color });
      }
      const links = await f.nvim.lua<Record<string, string>>(
        'local out = {}; for _, g in ipairs({"Info", "Hint", "Success", "Warning", "Error"}) do out[g] = vim.fn.execute("hi VimRelay" .. g) end; return out',
      );
      const ok = (await f.nvim.lua<number>('return vim.fn.hlexists("DiagnosticOk")')) === 1 ? 'DiagnosticOk' : 'MoreMsg';
      expect(links.Info).toMatch(/links to DiagnosticInfo/);
      expect(links.Hint).toMatch(/links to DiagnosticHint/);
      expect(links.Success).toMatch(new RegExp(`links to ${ok}`));
      expect(links.Warning).toMatch(/links to DiagnosticWarn/);
      expect(links.Error).toMatch(/links to DiagnosticError/);
      const colors = (await marks(main)).map((m) => f.nvim.lua('return __vimrelay.decoration_color(...)', m[3].hl_group));
      expect(await Promise.all(colors)).toEqual([...DECORATION_COLORS]);
    });

    it('keeps a user\'s own definition of a group, and survives :colorscheme', async () => {
      await f.nvim.client.command('highlight VimRelayError guifg=#123456');
      await f.ok('highlight_range', { start: { line: 1, col: 1 }, end: { line: 1, col: 2 }, color: 'error' });
      expect(await f.nvim.lua('return vim.fn.execute("hi VimRelayError")')).toMatch(/guifg=#123456/);
      await f.ok('highlight_range', { start: { line: 1, col: 1 }, end: { line: 1, col: 2 }, color: 'hint' });
      await f.nvim.client.command('colorscheme blue');
      expect(await f.nvim.lua('return vim.fn.execute("hi VimRelayHint")')).toMatch(/links to DiagnosticHint/);
      await f.nvim.client.command('colorscheme default');
    });
  });

  describe('add_virtual_text', () => {
    it('adds multi-byte text at the end of a line by default, in info', async () => {
      const before = await snapshot(main);
      const data = await f.ok('add_virtual_text', { line: 2, text: `note: ${UNICODE}` });
      expect(data).toEqual({ id: expect.any(Number), buf: main, path: join(f.nvim.cwd, 'main.txt'), line: 2, position: 'eol', color: 'info' });
      expect(await marks(main)).toEqual([
        [data.id, 1, 0, expect.objectContaining({ virt_text: [[`note: ${UNICODE}`, 'VimRelayInfo']], virt_text_pos: 'eol' })],
      ]);
      expect(await snapshot(main)).toEqual(before);
    });

    it('adds virtual lines above or below, one per line of text (CRLF too)', async () => {
      const below = await f.ok('add_virtual_text', { line: 3, text: 'first 日本\r\n\nthird 🎉', position: 'below', color: 'error' });
      const [mark] = await marks(main);
      expect(mark).toEqual([
        below.id,
        2,
        0,
        expect.objectContaining({ virt_lines: [[['first 日本', 'VimRelayError']], [['', 'VimRelayError']], [['third 🎉', 'VimRelayError']]], virt_lines_above: false }),
      ]);
      const above = await f.ok('add_virtual_text', { line: 4, text: 'above', position: 'above', color: 'hint' });
      expect(above).toMatchObject({ line: 4, position: 'above', color: 'hint' });
      expect((await marks(main)).find((m) => m[0] === above.id)).toEqual([above.id, 3, 0, expect.objectContaining({ virt_lines: [[['above', 'VimRelayHint']]], virt_lines_above: true })]);
    });

    it('scrolls a window at the top so that lines above line 1 show', async () => {
      await f.nvim.client.command('normal! gg');
      await f.ok('add_virtual_text', { line: 1, text: 'one\ntwo', position: 'above' });
      expect(await f.nvim.lua('return vim.fn.winsaveview().topfill')).toBe(2);
      await f.ok('add_virtual_text', { line: 1, text: 'three', position: 'above' });
      expect(await f.nvim.lua('return vim.fn.winsaveview().topfill')).toBe(3);
    });

    it(`caps text at ${VIRTUAL_TEXT_LIMITS.maxChars} characters and ${VIRTUAL_TEXT_LIMITS.maxLines} lines; eol text is one line`, async () => {
      // Characters are code points: maxChars emoji fit although each is two UTF-16 units.
      expect(await f.call('add_virtual_text', { line: 1, text: '🎉'.repeat(VIRTUAL_TEXT_LIMITS.maxChars) })).toMatchObject({ ok: true });
      expect(await f.call('add_virtual_text', { line: 1, text: 'x'.repeat(VIRTUAL_TEXT_LIMITS.maxChars + 1) })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
      const lines = (n: number): string => Array.from({ length: n }, (_, i) => `l${i}`).join('\n');
      expect(await f.call('add_virtual_text', { line: 1, text: lines(VIRTUAL_TEXT_LIMITS.maxLines), position: 'below' })).toMatchObject({ ok: true });
      expect(await f.call('add_virtual_text', { line: 1, text: lines(VIRTUAL_TEXT_LIMITS.maxLines + 1), position: 'below' })).toMatchObject({
        ok: false,
        error: { code: 'INVALID_ARGUMENT' },
      });
      expect(await f.call('add_virtual_text', { line: 1, text: 'two\nlines' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', message: expect.stringMatching(/above or below/) } });
      expect(await f.call('add_virtual_text', { line: 1, text: '' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
      expect(await marks(main)).toHaveLength(2);
    });

    it('refuses a line past the end with the line count, adding nothing', async () => {
      expect(await f.call('add_virtual_text', { line: 5, text: 'x', position: 'below' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', line_count: 4 } });
      expect(await f.call('add_virtual_text', { buffer: 99_999, line: 1, text: 'x' })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND' } });
      expect(await marks(main)).toEqual([]);
    });
  });

  describe('clear_decorations', () => {
    it('removes one decoration by id, then reports 0 for it', async () => {
      const a = await f.ok('highlight_range', { start: { line: 1, col: 1 }, end: { line: 1, col: 2 } });
      const b = await f.ok('add_virtual_text', { line: 1, text: 'keep' });
      expect(await f.ok('clear_decorations', { id: a.id })).toEqual({ removed: 1, buf: main, path: join(f.nvim.cwd, 'main.txt') });
      expect((await marks(main)).map((m) => m[0])).toEqual([b.id]);
      expect(await f.ok('clear_decorations', { id: a.id })).toMatchObject({ removed: 0 });
    });

    it('clears one buffer, or every buffer, and never anyone else\'s extmarks', async () => {
      const before = await snapshot(main);
      await f.nvim.lua('vim.api.nvim_buf_set_extmark(0, vim.api.nvim_create_namespace("someone-else"), 0, 0, { virt_text = { { "theirs", "Comment" } } })');
      await f.ok('highlight_range', { start: { line: 1, col: 1 }, end: { line: 2, col: 1 } });
      await f.ok('add_virtual_text', { line: 2, text: 'a', position: 'above' });
      await f.ok('add_virtual_text', { buffer: other, line: 1, text: 'b' });
      expect(await f.ok('clear_decorations', { buffer: 'other.txt' })).toEqual({ removed: 1, buf: other, path: join(f.nvim.cwd, 'other.txt') });
      expect(await marks(other)).toEqual([]);
      expect(await marks(main)).toHaveLength(2);
      await f.ok('add_virtual_text', { buffer: other, line: 1, text: 'c' });
      expect(await f.ok('clear_decorations', { all_buffers: true })).toEqual({ removed: 3, buf: null, path: null });
      expect(await marks(main)).toEqual([]);
      expect(await marks(other)).toEqual([]);
      const theirs = await f.nvim.lua<unknown[]>('return vim.api.nvim_buf_get_extmarks(0, vim.api.nvim_create_namespace("someone-else"), 0, -1, {})');
      expect(theirs).toHaveLength(1);
      expect(await snapshot(main)).toEqual(before);
      expect(await f.ok('clear_decorations', {})).toEqual({ removed: 0, buf: main, path: join(f.nvim.cwd, 'main.txt') });
    });

    it('refuses all_buffers together with a buffer or an id', async () => {
      expect(await f.call('clear_decorations', { all_buffers: true, buffer: main })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
      expect(await f.call('clear_decorations', { all_buffers: true, id: 1 })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
      expect(await f.call('clear_decorations', { buffer: 'missing.txt' })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND' } });
    });
  });

  it('leaves text, changedtick, modified flag and undo history alone through a whole round, and undo skips decorations', async () => {
    await f.nvim.lua('vim.api.nvim_buf_set_lines(0, 3, 4, true, { "fourth, edited" })');
    const before = await snapshot(main);
    await f.ok('highlight_range', { start: { line: 1, col: 2 }, end: { line: 3, col: 1 }, color: 'error' });
    await f.ok('add_virtual_text', { line: 1, text: 'eol' });
    await f.ok('add_virtual_text', { line: 2, text: 'below', position: 'below' });
    await f.ok('clear_decorations', { all_buffers: true });
    await f.ok('add_virtual_text', { line: 4, text: 'stays' });
    expect(await snapshot(main)).toEqual(before);
    await f.nvim.client.command('undo');
    expect(await f.lines()).toEqual([UNICODE, 'second ü', '', 'fourth']);
    expect(await marks(main)).toHaveLength(1);
  });
});
