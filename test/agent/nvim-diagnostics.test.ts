// get_diagnostics on a real Neovim, with diagnostics set through vim.diagnostic.set (no language
// server needed): fields and columns in characters, severity filters, one buffer or all, unloaded
// buffers, and paging with a cursor within the count and byte caps.
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DIAGNOSTICS_LIMITS, LIMITS } from '../../protocol/index.ts';
import { startEditor, type EditorFixture } from './support.ts';

const UNI = 'héllo wörld — 日本語 🎉';

interface Diagnostic {
  buf: number;
  line: number;
  col: number;
  severity: string;
  message: string;
  message_truncated: boolean;
}

describe('get_diagnostics', () => {
  let f: EditorFixture;
  let a: number;
  let b: number;
  let later: number;
  /** Sets the diagnostics of `buf` in a test namespace (vim.diagnostic items: 0-based lnum, byte col). */
  const set = (buf: number, items: Record<string, unknown>[]) =>
    f.nvim.lua('local buf, items = ...; vim.diagnostic.set(vim.api.nvim_create_namespace("test"), buf, items)', buf, items);

  beforeAll(async () => {
    f = await startEditor({
      files: { 'a.txt': `${UNI}\nsecond line\nthird\n`, 'b.txt': 'b1\nb2\n', 'later.txt': `${UNI}\n` },
      open: ['a.txt', 'b.txt', 'later.txt'],
    });
    [a, b, later] = await f.nvim.lua<[number, number, number]>('vim.fn.bufload("b.txt"); return {vim.fn.bufnr("a.txt"), vim.fn.bufnr("b.txt"), vim.fn.bufnr("later.txt")}');
  });
  afterAll(() => f.stop());
  afterEach(() => f.nvim.lua('vim.diagnostic.reset()'));

  it('lists every buffer\'s diagnostics, sorted, with columns in characters', async () => {
    const start = Buffer.byteLength('héllo wörld — ');
    await set(b, [{ lnum: 1, col: 0, end_col: 2, severity: 4, message: 'hint in b' }]);
    await set(a, [
      { lnum: 1, col: 0, severity: 2, message: 'warn', source: 'lint' },
      { lnum: 0, col: start, end_lnum: 0, end_col: start + Buffer.byteLength('日本語'), severity: 1, message: 'bad 日本語', source: 'lsp', code: 42 },
    ]);
    const data = await f.ok('get_diagnostics');
    expect(data).toMatchObject({ total: 3, counts: { error: 1, warn: 1, info: 0, hint: 1 }, truncated: false, cursor: null });
    expect(data.diagnostics).toEqual([
      {
        buf: a,
        path: join(f.nvim.cwd, 'a.txt'),
        line: 1,
        col: 15,
        end_line: 1,
        end_col: 18,
        severity: 'error',
        message: 'bad 日本語',
        message_truncated: false,
        source: 'lsp',
        code: '42',
      },
      { buf: a, path: join(f.nvim.cwd, 'a.txt'), line: 2, col: 1, end_line: 2, end_col: 1, severity: 'warn', message: 'warn', message_truncated: false, source: 'lint', code: null },
      { buf: b, path: join(f.nvim.cwd, 'b.txt'), line: 2, col: 1, end_line: 2, end_col: 3, severity: 'hint', message: 'hint in b', message_truncated: false, source: null, code: null },
    ]);
  });

  it('filters by severity: that severity or worse, or exactly it', async () => {
    await set(a, [1, 2, 2, 3, 4, 4, 4].map((severity, lnum) => ({ lnum: lnum % 3, col: 0, severity, message: `s${severity}` })));
    const severities = (d: unknown) => (d as Diagnostic[]).map((x) => x.severity).sort();
    const warn = await f.ok('get_diagnostics', { severity: 'warn' });
    expect(severities(warn.diagnostics)).toEqual(['error', 'warn', 'warn']);
    expect(warn).toMatchObject({ total: 3, counts: { error: 1, warn: 2, info: 1, hint: 3 } });
    expect(severities((await f.ok('get_diagnostics', { severity: 'hint' })).diagnostics)).toHaveLength(7);
    expect(severities((await f.ok('get_diagnostics', { severity: 'hint', severity_match: 'exact' })).diagnostics)).toEqual(['hint', 'hint', 'hint']);
    expect(severities((await f.ok('get_diagnostics', { severity: 'error', severity_match: 'exact' })).diagnostics)).toEqual(['error']);
    expect(await f.call('get_diagnostics', { severity: 'fatal' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
  });

  it('narrows to one buffer by number or path; refuses unknown ones', async () => {
    await set(a, [{ lnum: 0, col: 0, severity: 1, message: 'in a' }]);
    await set(b, [{ lnum: 0, col: 0, severity: 1, message: 'in b' }]);
    const byPath = await f.ok('get_diagnostics', { buffer: 'b.txt' });
    expect(byPath).toMatchObject({ total: 1, counts: { error: 1 }, diagnostics: [{ buf: b, message: 'in b' }] });
    expect((await f.ok('get_diagnostics', { buffer: a })).diagnostics).toMatchObject([{ buf: a, message: 'in a' }]);
    expect(await f.call('get_diagnostics', { buffer: 'nowhere.txt' })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND' } });
  });

  it('converts columns of an unloaded buffer with its file\'s text, without loading it', async () => {
    expect(await f.nvim.lua('return vim.api.nvim_buf_is_loaded(...)', later)).toBe(false);
    const start = Buffer.byteLength('héllo wörld — ');
    await set(later, [{ lnum: 0, col: start, end_col: start + Buffer.byteLength('日本語 🎉'), severity: 2, message: 'unloaded' }]);
    expect((await f.ok('get_diagnostics', { buffer: later })).diagnostics).toMatchObject([{ buf: later, line: 1, col: 15, end_col: 20 }]);
    expect(await f.nvim.lua('return vim.api.nvim_buf_is_loaded(...)', later)).toBe(false);
  });

  it(`cuts messages longer than ${DIAGNOSTICS_LIMITS.messageBytes} bytes at a character boundary`, async () => {
    await set(a, [{ lnum: 0, col: 0, severity: 1, message: 'ü'.repeat(DIAGNOSTICS_LIMITS.messageBytes) }]);
    const [d] = (await f.ok('get_diagnostics')).diagnostics as Diagnostic[];
    expect(d).toMatchObject({ message: 'ü'.repeat(DIAGNOSTICS_LIMITS.messageBytes / 2), message_truncated: true });
  });

  it('pages with a cursor, even through diagnostics at the same place, unshaken by changes before it', async () => {
    // Five at a:1:1, then one per line of b.
    await set(a, Array.from({ length: 5 }, (_, i) => ({ lnum: 0, col: 0, severity: 1, message: `same ${i}` })));
    await set(b, [
      { lnum: 0, col: 0, severity: 3, message: 'b1' },
      { lnum: 1, col: 0, severity: 3, message: 'b2' },
    ]);
    const messages = (d: unknown) => (d as Diagnostic[]).map((x) => x.message);
    const first = await f.ok('get_diagnostics', { max_results: 3 });
    expect(first).toMatchObject({ total: 7, truncated: true });
    expect(messages(first.diagnostics)).toEqual(['same 0', 'same 1', 'same 2']);
    // A new diagnostic in a buffer the first page already covered does not shift the next page.
    await f.nvim.lua('vim.diagnostic.set(vim.api.nvim_create_namespace("other"), ..., {{lnum = 2, col = 0, severity = 1, message = "late"}})', a);
    const second = await f.ok('get_diagnostics', { max_results: 3, cursor: first.cursor });
    expect(messages(second.diagnostics)).toEqual(['same 3', 'same 4', 'late']);
    const third = await f.ok('get_diagnostics', { max_results: 3, cursor: second.cursor });
    expect(third).toMatchObject({ total: 8, truncated: false, cursor: null });
    expect(messages(third.diagnostics)).toEqual(['b1', 'b2']);
    expect(await f.call('get_diagnostics', { cursor: '1:2' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
  });

  it(`stops each page within ${LIMITS.maxResultBytes / 1024} KB and gets everything through the cursor`, async () => {
    const count = DIAGNOSTICS_LIMITS.maxResults;
    await f.nvim.lua(
      `local buf, n, size = ...
      local items = {}
      for i = 1, n do items[i] = {lnum = i % 3, col = 0, severity = 1 + i % 4, message = i .. ' ' .. string.rep('"', size)} end
      vim.diagnostic.set(vim.api.nvim_create_namespace('test'), buf, items)`,
      a,
      count,
      DIAGNOSTICS_LIMITS.messageBytes - 10,
    );
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await f.ok('get_diagnostics', { max_results: count, ...(cursor ? { cursor } : {}) });
      expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThanOrEqual(LIMITS.maxResultBytes);
      for (const d of page.diagnostics as Diagnostic[]) seen.add(d.message.split(' ')[0] ?? '');
      pages++;
      if (page.cursor === null) break;
      expect(pages).toBeLessThan(count);
      cursor = page.cursor as string;
    }
    expect(seen.size).toBe(count);
    expect(pages).toBeGreaterThan(count / 20);
  });
});
