// read_buffer on a real Neovim: live (unsaved) text, Unicode, ranges, caps and buffer resolution.
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../protocol/index.ts';
import { pageBytes, startEditor, type EditorFixture } from './support.ts';

const UNICODE = ['héllo wörld — 日本語', 'emoji 😀🎉 end', 'plain ascii', ''];

describe('read_buffer', () => {
  let f: EditorFixture;
  beforeAll(async () => {
    f = await startEditor({
      files: {
        'uni.txt': UNICODE.join('\n') + '\n',
        'sub/other.txt': 'other 1\nother 2\n',
        'later.txt': 'not loaded yet\n',
        'on-disk-only.txt': 'nobody opened me\n',
        'ten.txt': Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n',
      },
      open: ['uni.txt', 'sub/other.txt', 'later.txt', 'ten.txt'],
    });
  });
  afterAll(() => f.stop());

  it('reads the current buffer by default, Unicode intact, with changedtick and path', async () => {
    const data = await f.ok('read_buffer');
    expect(data).toMatchObject({
      path: join(f.nvim.cwd, 'uni.txt'),
      total_lines: 4,
      start_line: 1,
      end_line: 4,
      lines: UNICODE,
      truncated: false,
      next_start_line: null,
    });
    expect(data.changedtick).toEqual(await f.nvim.lua('return vim.b.changedtick'));
  });

  it('reads unsaved text, not the file', async () => {
    const buf = await f.nvim.lua<number>('return vim.fn.bufnr("sub/other.txt")');
    await f.nvim.lua('vim.api.nvim_buf_set_lines(..., 0, 1, true, {"edited, not saved ✓"})', buf);
    const data = await f.ok('read_buffer', { buffer: buf });
    expect(data.lines).toEqual(['edited, not saved ✓', 'other 2']);
  });

  it('clamps out-of-range bounds and swaps reversed ones', async () => {
    const ten = await f.nvim.lua<number>('return vim.fn.bufnr("ten.txt")');
    expect(await f.ok('read_buffer', { buffer: ten, start_line: 8, end_line: 500 })).toMatchObject({
      start_line: 8,
      end_line: 10,
      lines: ['line 8', 'line 9', 'line 10'],
      truncated: false,
      next_start_line: null,
    });
    expect(await f.ok('read_buffer', { buffer: ten, start_line: 99 })).toMatchObject({ start_line: 10, end_line: 10, lines: ['line 10'] });
    expect(await f.ok('read_buffer', { buffer: ten, start_line: 4, end_line: 2 })).toMatchObject({
      start_line: 2,
      end_line: 4,
      lines: ['line 2', 'line 3', 'line 4'],
    });
  });

  it('stops at max_lines and says where to continue', async () => {
    const ten = await f.nvim.lua<number>('return vim.fn.bufnr("ten.txt")');
    const first = await f.ok('read_buffer', { buffer: ten, start_line: 2, end_line: 9, max_lines: 3 });
    expect(first).toMatchObject({ start_line: 2, end_line: 4, lines: ['line 2', 'line 3', 'line 4'], truncated: true, next_start_line: 5 });
    const rest = await f.ok('read_buffer', { buffer: ten, start_line: 5, end_line: 9, max_lines: 5 });
    expect(rest).toMatchObject({ end_line: 9, truncated: false, next_start_line: null });
  });

  it('resolves paths relative to the cwd, absolute, unnormalized and through symlinks', async () => {
    const abs = join(f.nvim.cwd, 'sub/other.txt');
    const byRel = await f.ok('read_buffer', { buffer: 'sub/other.txt' });
    expect(byRel.path).toBe(abs);
    expect((await f.ok('read_buffer', { buffer: abs })).buf).toBe(byRel.buf);
    expect((await f.ok('read_buffer', { buffer: './sub/../sub/other.txt' })).buf).toBe(byRel.buf);
    expect((await f.ok('read_buffer', { buffer: `${f.nvim.cwd}/sub/` + '/other.txt' })).buf).toBe(byRel.buf);
    symlinkSync(join(f.nvim.cwd, 'sub'), join(f.nvim.cwd, 'link'));
    expect((await f.ok('read_buffer', { buffer: 'link/other.txt' })).buf).toBe(byRel.buf);
  });

  it('loads an existing but unloaded buffer named explicitly', async () => {
    const buf = await f.nvim.lua<number>('return vim.fn.bufnr("later.txt")');
    expect(await f.nvim.lua('return vim.api.nvim_buf_is_loaded(...)', buf)).toBe(false);
    expect((await f.ok('read_buffer', { buffer: 'later.txt' })).lines).toEqual(['not loaded yet']);
    expect(await f.nvim.lua('return vim.api.nvim_buf_is_loaded(...)', buf)).toBe(true);
  });

  it('refuses unknown buffers and paths without a buffer', async () => {
    const byNumber = await f.call('read_buffer', { buffer: 9999 });
    expect(byNumber).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND' } });
    const onDisk = await f.call('read_buffer', { buffer: 'on-disk-only.txt' });
    expect(onDisk).toMatchObject({
      ok: false,
      error: { code: 'BUFFER_NOT_FOUND', path: join(f.nvim.cwd, 'on-disk-only.txt'), hint: expect.stringMatching(/open/i) },
    });
    expect(await f.nvim.lua('return vim.fn.bufnr("on-disk-only.txt")')).toBe(-1);
  });
});

describe('read_buffer caps on a 100k-line buffer', () => {
  let f: EditorFixture;
  let expected: string[];
  beforeAll(async () => {
    // Varied lengths with multi-byte characters, so that the byte cap, not the line cap, bites.
    expected = Array.from({ length: 100_000 }, (_, i) => `${i + 1} ${'é日😀x'.repeat(i % 17)}`);
    f = await startEditor({ files: { 'big.txt': expected.join('\n') + '\n' }, open: ['big.txt'] });
  });
  afterAll(() => f.stop());

  it.each([undefined, LIMITS.readMaxLines])('pages through everything within the caps (max_lines %s)', async (maxLines) => {
    const got: string[] = [];
    let start: number | null = 1;
    let pages = 0;
    while (start !== null) {
      const page = await f.ok('read_buffer', { start_line: start, ...(maxLines ? { max_lines: maxLines } : {}) });
      const lines = page.lines as string[];
      expect(page.start_line).toBe(start);
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.length).toBeLessThanOrEqual(maxLines ?? LIMITS.readDefaultLines);
      expect(pageBytes(lines)).toBeLessThanOrEqual(LIMITS.maxResultBytes);
      expect(page.end_line).toBe(start + lines.length - 1);
      expect(page.total_lines).toBe(100_000);
      got.push(...lines);
      start = page.next_start_line as number | null;
      expect(page.truncated).toBe(start !== null);
      pages++;
    }
    expect(got.length).toBe(expected.length);
    expect(got).toEqual(expected);
    expect(pages).toBeGreaterThan(1);
  });

  it('counts the byte cap as JSON, so that quotes and control characters cannot push a page past it', async () => {
    // Each line is 1,000 bytes of text but about 2,000 or 6,000 bytes of JSON.
    const buf = await f.nvim.lua<number>(
      'local b = vim.api.nvim_create_buf(true, false); local l = {}; for i = 1, 300 do l[i] = string.rep(i % 2 == 0 and \'"\' or "\\1", 1000) end; vim.api.nvim_buf_set_lines(b, 0, -1, true, l); return b',
    );
    const page = await f.ok('read_buffer', { buffer: buf });
    expect(page.truncated).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThanOrEqual(LIMITS.maxResultBytes);
    expect(page.next_start_line).toBe((page.lines as string[]).length + 1);
  });

  it('refuses a single line longer than the byte cap, pointing past it', async () => {
    const buf = await f.nvim.lua<number>('local b = vim.api.nvim_create_buf(true, false); vim.api.nvim_buf_set_lines(b, 0, -1, true, {"short", string.rep("ü", ...), "after"}); return b', LIMITS.maxResultBytes);
    expect(await f.ok('read_buffer', { buffer: buf, end_line: 3 })).toMatchObject({ lines: ['short'], truncated: true, next_start_line: 2 });
    const outcome = await f.call('read_buffer', { buffer: buf, start_line: 2 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED', line: 2, hint: expect.stringContaining('start_line 3') } });
    expect(await f.ok('read_buffer', { buffer: buf, start_line: 3 })).toMatchObject({ lines: ['after'] });
  });
});
