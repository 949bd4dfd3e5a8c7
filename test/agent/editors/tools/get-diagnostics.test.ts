// get_diagnostics, the same cases on a real Neovim (vim.diagnostic) and on a real Vim (ALE's
// diagnostics): fields and columns in characters, severity filters, one buffer or all, unloaded
// buffers read through their file, long messages cut, and paging with a cursor within the count
// and byte caps. Then what only Vim has: no diagnostics plugin (UNSUPPORTED; get_state's summary
// null), and the real vim-lsp with a real pyright (positions 0-based in UTF-16 code units).
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DIAGNOSTICS_LIMITS, LIMITS } from '../../../../protocol/index.ts';
import { clearDiagnostics, setDiagnostics, VIM_ALE } from '../../../helpers/diagnostics-source.ts';
import { type Driver, DRIVERS, vimDriver } from '../../../helpers/editors.ts';
import { lspDriver, SERVERS, type ServerCase } from '../../../helpers/lsp.ts';

const PYRIGHT = SERVERS.find((s) => s.name === 'pyright') as ServerCase;

const UNI = 'héllo wörld — 日本語 🎉';
const START = Buffer.byteLength('héllo wörld — ');

interface Diagnostic {
  buf: number;
  line: number;
  col: number;
  severity: string;
  message: string;
  message_truncated: boolean;
}

const messages = (d: unknown): string[] => (d as Diagnostic[]).map((x) => x.message);

describe.each(DRIVERS)('get_diagnostics on %s', (_kind, start) => {
  let d: Driver;
  let a: number;
  let b: number;
  let later: number;
  const SOURCES = ['lsp', 'lint', 'other'];
  beforeAll(async () => {
    d = await start({
      files: { 'a.txt': `${UNI}\nsecond line\nthird\n`, 'b.txt': 'b1\nb2\n', 'later.txt': `${UNI}\n` },
      open: ['a.txt', 'b.txt', 'later.txt'],
      vimCmds: VIM_ALE,
    });
    await d.expr('bufload(bufnr("b.txt"))');
    [a, b, later] = [await d.bufnr('a.txt'), await d.bufnr('b.txt'), await d.bufnr('later.txt')];
  });
  afterAll(() => d.stop());
  afterEach(() => clearDiagnostics(d, [a, b, later], SOURCES));

  it('lists every buffer\'s diagnostics, sorted, with columns in characters and their source', async () => {
    await setDiagnostics(d, b, 'lint', [{ lnum: 2, col: 0, end_col: 2, severity: 3, message: 'info in b' }]);
    await setDiagnostics(d, a, 'lint', [{ lnum: 2, col: 0, severity: 2, message: 'warn' }]);
    await setDiagnostics(d, a, 'lsp', [{ lnum: 1, col: START, end_lnum: 1, end_col: START + Buffer.byteLength('日本語'), severity: 1, message: 'bad 日本語', code: 42 }]);
    const data = await d.ok('get_diagnostics');
    expect(data).toMatchObject({ total: 3, counts: { error: 1, warn: 1, info: 1, hint: 0 }, truncated: false, cursor: null });
    const path = join(d.cwd, 'a.txt');
    expect(data.diagnostics).toEqual([
      { buf: a, path, line: 1, col: 15, end_line: 1, end_col: 18, severity: 'error', message: 'bad 日本語', message_truncated: false, source: 'lsp', code: '42' },
      { buf: a, path, line: 2, col: 1, end_line: 2, end_col: 1, severity: 'warn', message: 'warn', message_truncated: false, source: 'lint', code: null },
      { buf: b, path: join(d.cwd, 'b.txt'), line: 2, col: 1, end_line: 2, end_col: 3, severity: 'info', message: 'info in b', message_truncated: false, source: 'lint', code: null },
    ]);
  });

  it('filters by severity: that severity or worse, or exactly it', async () => {
    await setDiagnostics(d, a, 'lint', ([1, 2, 2, 3, 3, 3] as const).map((severity, i) => ({ lnum: (i % 3) + 1, col: 0, severity, message: `s${severity}` })));
    const severities = (x: unknown): string[] => (x as Diagnostic[]).map((y) => y.severity).sort();
    const warn = await d.ok('get_diagnostics', { severity: 'warn' });
    expect(severities(warn.diagnostics)).toEqual(['error', 'warn', 'warn']);
    expect(warn).toMatchObject({ total: 3, counts: { error: 1, warn: 2, info: 3, hint: 0 } });
    expect((await d.ok('get_diagnostics', { severity: 'hint' })).diagnostics).toHaveLength(6);
    expect(severities((await d.ok('get_diagnostics', { severity: 'info', severity_match: 'exact' })).diagnostics)).toEqual(['info', 'info', 'info']);
    expect(severities((await d.ok('get_diagnostics', { severity: 'error', severity_match: 'exact' })).diagnostics)).toEqual(['error']);
    expect(await d.ok('get_diagnostics', { severity: 'hint', severity_match: 'exact' })).toMatchObject({ diagnostics: [], total: 0 });
    expect(await d.call('get_diagnostics', { severity: 'fatal' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
  });

  it('narrows to one buffer by number or path; refuses unknown ones', async () => {
    await setDiagnostics(d, a, 'lint', [{ lnum: 1, col: 0, severity: 1, message: 'in a' }]);
    await setDiagnostics(d, b, 'lint', [{ lnum: 1, col: 0, severity: 1, message: 'in b' }]);
    expect(await d.ok('get_diagnostics', { buffer: 'b.txt' })).toMatchObject({ total: 1, counts: { error: 1 }, diagnostics: [{ buf: b, message: 'in b' }] });
    expect((await d.ok('get_diagnostics', { buffer: a })).diagnostics).toMatchObject([{ buf: a, message: 'in a' }]);
    expect(await d.call('get_diagnostics', { buffer: 'nowhere.txt' })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND' } });
  });

  it('converts columns of an unloaded buffer with its file\'s text, without loading it', async () => {
    expect(await d.expr(`bufloaded(${later})`)).toBe(0);
    await setDiagnostics(d, later, 'lint', [{ lnum: 1, col: START, end_col: START + Buffer.byteLength('日本語 🎉'), severity: 2, message: 'unloaded' }]);
    expect((await d.ok('get_diagnostics', { buffer: later })).diagnostics).toMatchObject([{ buf: later, line: 1, col: 15, end_col: 20 }]);
    expect(await d.expr(`bufloaded(${later})`)).toBe(0);
  });

  it(`cuts messages longer than ${DIAGNOSTICS_LIMITS.messageBytes} bytes at a character boundary`, async () => {
    await setDiagnostics(d, a, 'lint', [{ lnum: 1, col: 0, severity: 1, message: 'ü'.repeat(DIAGNOSTICS_LIMITS.messageBytes) }]);
    const [x] = (await d.ok('get_diagnostics')).diagnostics as Diagnostic[];
    expect(x).toMatchObject({ message: 'ü'.repeat(DIAGNOSTICS_LIMITS.messageBytes / 2), message_truncated: true });
  });

  it('orders diagnostics at one place by severity, then end, then message bytewise (a message before those it begins)', async () => {
    const at = { lnum: 1, col: 0 };
    await setDiagnostics(d, a, 'lint', [
      { ...at, severity: 1, message: 'b' },
      { ...at, severity: 1, message: 'ab' },
      { ...at, severity: 1, message: 'a\x02b' },
      { ...at, severity: 1, message: 'a\x01' },
      { ...at, severity: 1, message: 'a' },
      { ...at, severity: 1, end_lnum: 1, end_col: 2, message: 'a' },
      { ...at, severity: 2, message: 'a' },
    ]);
    const listed = (await d.ok('get_diagnostics')).diagnostics as (Diagnostic & { end_col: number })[];
    expect(listed.map((x) => [x.severity, x.end_col, x.message])).toEqual([
      ['error', 1, 'a'],
      ['error', 1, 'a\x01'],
      ['error', 1, 'a\x02b'],
      ['error', 1, 'ab'],
      ['error', 1, 'b'],
      ['error', 3, 'a'],
      ['warn', 1, 'a'],
    ]);
  });

  it('pages with a cursor, even through diagnostics at the same place, unshaken by changes before it', async () => {
    // Five at a:1:1, then one per line of b.
    await setDiagnostics(d, a, 'lint', Array.from({ length: 5 }, (_, i) => ({ lnum: 1, col: 0, severity: 1 as const, message: `same ${i}` })));
    await setDiagnostics(d, b, 'lint', [
      { lnum: 1, col: 0, severity: 3, message: 'b1' },
      { lnum: 2, col: 0, severity: 3, message: 'b2' },
    ]);
    const first = await d.ok('get_diagnostics', { max_results: 3 });
    expect(first).toMatchObject({ total: 7, truncated: true });
    expect(messages(first.diagnostics)).toEqual(['same 0', 'same 1', 'same 2']);
    // A new diagnostic in a buffer the first page already covered does not shift the next page.
    await setDiagnostics(d, a, 'other', [{ lnum: 3, col: 0, severity: 1, message: 'late' }]);
    const second = await d.ok('get_diagnostics', { max_results: 3, cursor: first.cursor });
    expect(messages(second.diagnostics)).toEqual(['same 3', 'same 4', 'late']);
    const third = await d.ok('get_diagnostics', { max_results: 3, cursor: second.cursor });
    expect(third).toMatchObject({ total: 8, truncated: false, cursor: null });
    expect(messages(third.diagnostics)).toEqual(['b1', 'b2']);
    expect(await d.call('get_diagnostics', { cursor: '1:2' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
  });

  it(`stops each page within ${LIMITS.maxResultBytes / 1024} KB and gets everything through the cursor`, async () => {
    const count = DIAGNOSTICS_LIMITS.maxResults;
    // Built inside the editor: messages of quotes, which JSON doubles.
    const items = `map(range(1, ${count}), {_, i -> {'lnum': i % 3 + 1, 'col': 0, 'severity': 1 + i % 3, 'message': i . ' ' . repeat('"', ${DIAGNOSTICS_LIMITS.messageBytes - 10})}})`;
    await setDiagnostics(d, a, 'lint', items);
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await d.ok('get_diagnostics', { max_results: count, ...(cursor ? { cursor } : {}) });
      expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThanOrEqual(LIMITS.maxResultBytes);
      for (const x of page.diagnostics as Diagnostic[]) seen.add(x.message.split(' ')[0] ?? '');
      pages++;
      if (page.cursor === null) break;
      expect(pages).toBeLessThan(count);
      cursor = page.cursor as string;
    }
    expect(seen.size).toBe(count);
    expect(pages).toBeGreaterThan(count / 20);
  });
});

describe('diagnostics on a Vim without a diagnostics plugin', () => {
  let d: Driver;
  beforeAll(async () => {
    d = await vimDriver({ files: { 'main.txt': `${UNI}\n` }, open: ['main.txt'] });
  });
  afterAll(() => d.stop());

  it('get_diagnostics answers UNSUPPORTED with a hint to load one, use Neovim or the quickfix list', async () => {
    expect(await d.call('get_diagnostics', {})).toMatchObject({
      ok: false,
      error: { code: 'UNSUPPORTED', hint: expect.stringMatching(/ALE or vim-lsp.*Neovim.*clist/) },
    });
  });

  it('get_state has no diagnostics summary', async () => {
    expect((await d.ok('get_state')).diagnostics).toBeNull();
  });
});

// The real vim-lsp (test/vendor/vim-lsp) and a real pyright, in a file whose path has a space and
// a non-ASCII letter (percent-encoded in its URI): what pyright publishes for an undefined name after
// "a🎉b😀c" (0-based UTF-16 positions, each astral character counting two) comes out in 1-based
// characters, with pyright's source and code, in get_diagnostics and get_state's summary.
describe('get_diagnostics on Vim with vim-lsp', () => {
  const FILE = 'mý file.py';
  const LINE = 'tag = "a🎉b😀c"; big = undefined_name';
  let d: Driver;
  let main: number;
  beforeAll(async () => {
    d = await lspDriver('vim-lsp', { ...PYRIGHT, open: [FILE] }, { files: { [FILE]: `${LINE}\n` } });
    main = await d.bufnr(FILE);
  }, 90_000);
  afterAll(() => d?.stop());

  it('converts UTF-16 positions to characters and names the source', async () => {
    const path = join(d.cwd, FILE);
    const col = [...LINE.slice(0, LINE.indexOf('undefined_name'))].length + 1;
    expect(await d.ok('get_diagnostics')).toEqual({
      diagnostics: [
        {
          buf: main, path, line: 1, col, end_line: 1, end_col: col + 'undefined_name'.length, severity: 'error',
          message: '"undefined_name" is not defined', message_truncated: false, source: 'Pyright', code: 'reportUndefinedVariable',
        },
      ],
      total: 1,
      counts: { error: 1, warn: 0, info: 0, hint: 0 },
      truncated: false,
      cursor: null,
    });
    expect((await d.ok('get_state')).diagnostics).toEqual({
      error: 1, warn: 0, info: 0, hint: 0, buffers: [{ buf: main, path, error: 1, warn: 0, info: 0, hint: 0 }], buffers_truncated: false,
    });
  });
});
