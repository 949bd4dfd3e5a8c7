// grep_buffers, the same cases on a real Neovim and on a real Vim: literal and Vim-regex search of
// live text, columns in characters, which buffers are searched, trimmed long lines, and paging with
// a cursor (through a long buffer, no page above its caps).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GREP_LIMITS, LIMITS } from '../../../../protocol/index.ts';
import { type Driver, DRIVERS, setLines } from '../../../helpers/editors.ts';

interface Hit {
  buf: number;
  path: string | null;
  line: number;
  col: number;
  end_col: number;
  text: string;
  text_start_col: number;
  trimmed: boolean;
}

const UNI = ['héllo wörld — 日本語 🎉', 'Héllo again, HÉLLO', 'a.b a*b a\\b', 'aaa aaa', '日本'];

/** Hits reduced to where they are. */
const places = (hits: unknown): [number, number, number][] => (hits as Hit[]).map((h) => [h.line, h.col, h.end_col]);

/** A new unlisted scratch buffer holding `lines`, made with Vimscript both editors share. */
async function scratch(d: Driver, lines: string[]): Promise<number> {
  const b = await d.expr<number>('bufadd("")');
  await d.expr(`setbufvar(${b}, "&buftype", "nofile")`);
  await d.expr(`bufload(${b})`);
  await setLines(d, b, lines);
  return b;
}

interface Page {
  hits: Hit[];
  truncated: boolean;
  cursor: string | null;
}

/** grep_buffers run on the editor side directly, with `params` as the agent would pass them (a scan budget of the test's own). */
function direct(d: Driver, params: Record<string, unknown>): Promise<Page> {
  const p = JSON.stringify(params);
  // Neovim answers its data as one JSON string (lua/core.lua M.call), Vim as a dict.
  const expr = d.kind === 'nvim' ? `json_decode(luaeval('__vimrelay.latest.call("grep_buffers", _A)', json_decode('${p}')).json)` : `vimrelay#call('grep_buffers', json_decode('${p}')).data`;
  return d.expr<Page>(expr);
}

describe.each(DRIVERS)('grep_buffers on %s', (_kind, start) => {
  let d: Driver;
  let uni: number;
  let other: number;
  beforeAll(async () => {
    d = await start({
      files: {
        'uni.txt': UNI.join('\n') + '\n',
        'other.txt': 'héllo from other\n',
        'later.txt': 'héllo later\n',
        'nul.txt': 'bin\0ary hello\n',
        'world.txt': 'hello world\n',
      },
      open: ['uni.txt', 'other.txt', 'later.txt'],
    });
    uni = await d.bufnr('uni.txt');
    other = await d.bufnr('other.txt');
    await d.expr(`bufload(${other})`);
    // Only uni.txt and other.txt are loaded (a Vim started with three files may load the last one).
    await d.command(`silent! bunload ${await d.bufnr('later.txt')}`);
  });
  afterAll(() => d.stop());

  it('finds literal text in every loaded listed buffer, columns in characters, unsaved text included', async () => {
    await d.expr(`appendbufline(${other}, 0, "unsaved 日本語")`);
    const data = await d.ok('grep_buffers', { pattern: '日本語' });
    expect(data).toMatchObject({ truncated: false, cursor: null, searched_buffers: 2, unloaded_buffers: 1 });
    expect(data.hits).toEqual([
      { buf: uni, path: join(d.cwd, 'uni.txt'), line: 1, col: 15, end_col: 18, text: UNI[0], text_start_col: 1, trimmed: false },
      { buf: other, path: join(d.cwd, 'other.txt'), line: 1, col: 9, end_col: 12, text: 'unsaved 日本語', text_start_col: 1, trimmed: false },
    ]);
    await d.expr(`deletebufline(${other}, 1)`);
  });

  it('is case-sensitive by default whatever ignorecase says, and folds Unicode case on request', async () => {
    await d.command('set ignorecase smartcase');
    expect(places((await d.ok('grep_buffers', { pattern: 'HÉLLO', buffers: [uni] })).hits)).toEqual([[2, 14, 19]]);
    expect(places((await d.ok('grep_buffers', { pattern: 'héllo', buffers: [uni] })).hits)).toEqual([[1, 1, 6]]);
    expect(places((await d.ok('grep_buffers', { pattern: 'HÉLLO', buffers: [uni], case_sensitive: false })).hits)).toEqual([
      [1, 1, 6],
      [2, 1, 6],
      [2, 14, 19],
    ]);
    await d.command('set noignorecase nosmartcase');
  });

  it('takes literal text literally and regex as Vim regex', async () => {
    expect(places((await d.ok('grep_buffers', { pattern: 'a*b', buffers: [uni] })).hits)).toEqual([[3, 5, 8]]);
    expect(places((await d.ok('grep_buffers', { pattern: 'a\\b', buffers: [uni] })).hits)).toEqual([[3, 9, 12]]);
    expect(places((await d.ok('grep_buffers', { pattern: 'a.b', mode: 'regex', buffers: [uni] })).hits)).toEqual([
      [3, 1, 4],
      [3, 5, 8],
      [3, 9, 12],
    ]);
    expect(places((await d.ok('grep_buffers', { pattern: '\\(wörld\\|日本\\)', mode: 'regex', buffers: [uni] })).hits)).toEqual([
      [1, 7, 12],
      [1, 15, 17],
      [5, 1, 3],
    ]);
  });

  it('finds every match of a line, with ^ and \\< seeing the text before each', async () => {
    expect(places((await d.ok('grep_buffers', { pattern: 'a', buffers: [uni] })).hits).filter(([l]) => l === 4)).toEqual([
      [4, 1, 2],
      [4, 2, 3],
      [4, 3, 4],
      [4, 5, 6],
      [4, 6, 7],
      [4, 7, 8],
    ]);
    expect(places((await d.ok('grep_buffers', { pattern: '^a', mode: 'regex', buffers: [uni] })).hits)).toEqual([
      [3, 1, 2],
      [4, 1, 2],
    ]);
    expect(places((await d.ok('grep_buffers', { pattern: '\\<a', mode: 'regex', buffers: [uni] })).hits)).toEqual([
      [2, 7, 8],
      [3, 1, 2],
      [3, 5, 6],
      [3, 9, 10],
      [4, 1, 2],
      [4, 5, 6],
    ]);
  });

  it('moves on one character after an empty match', async () => {
    const hits = (await d.ok('grep_buffers', { pattern: 'x*', mode: 'regex', buffers: [uni] })).hits as Hit[];
    expect(hits.filter((h) => h.line === 5).map((h) => [h.col, h.end_col])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
  });

  it('searches a line holding a NUL as any other, and the buffers after it', async () => {
    await d.command('badd nul.txt | badd world.txt');
    const [nul, world] = [await d.bufnr('nul.txt'), await d.bufnr('world.txt')];
    try {
      await d.expr(`bufload(${nul}) + bufload(${world})`);
      // The line as read_buffer gives it (Neovim: the NUL; Vim: its NL, :h NL-used-for-Nul).
      const line = ((await d.ok('read_buffer', { buffer: nul })).lines as string[])[0];
      expect((await d.ok('grep_buffers', { pattern: 'hello' })).hits).toEqual([
        { buf: nul, path: join(d.cwd, 'nul.txt'), line: 1, col: 9, end_col: 14, text: line, text_start_col: 1, trimmed: false },
        { buf: world, path: join(d.cwd, 'world.txt'), line: 1, col: 1, end_col: 6, text: 'hello world', text_start_col: 1, trimmed: false },
      ]);
      expect(places((await d.ok('grep_buffers', { pattern: 'n.a', mode: 'regex', buffers: [nul] })).hits)).toEqual([[1, 3, 6]]);
    } finally {
      await d.command(`bwipeout! ${nul} ${world}`);
    }
  });

  it('refuses a pattern with a line break and an invalid regex', async () => {
    expect(await d.call('grep_buffers', { pattern: 'a\nb' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    const bad = await d.call('grep_buffers', { pattern: 'wörld\\(', mode: 'regex' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('E54'), hint: expect.stringContaining('literal') } });
    expect(await d.call('grep_buffers', { pattern: 'x', cursor: 'nonsense' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
  });

  it('searches named buffers, loading them, unlisted ones included; refuses unknown ones', async () => {
    const later = await d.bufnr('later.txt');
    const b = await scratch(d, ['scratch héllo']);
    expect((await d.ok('grep_buffers', { pattern: 'héllo' })).hits).toHaveLength(2);
    const named = await d.ok('grep_buffers', { pattern: 'héllo', buffers: ['later.txt', b, 'later.txt'] });
    expect(named).toMatchObject({ searched_buffers: 2, unloaded_buffers: 0 });
    expect((named.hits as Hit[]).map((h) => [h.buf, h.path, h.col])).toEqual([
      [later, join(d.cwd, 'later.txt'), 1],
      [b, null, 9],
    ]);
    expect(await d.expr('bufloaded(' + later + ')')).toBe(1);
    expect(await d.call('grep_buffers', { pattern: 'x', buffers: [9999] })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND' } });
    await d.command(`bwipeout! ${b}`);
  });

  it(`trims lines longer than ${GREP_LIMITS.lineBytes} bytes around the hit`, async () => {
    const b = await scratch(d, ['ü'.repeat(1000) + 'needle' + 'ü'.repeat(1000)]);
    const [hit] = (await d.ok('grep_buffers', { pattern: 'needle', buffers: [b] })).hits as Hit[];
    expect(hit).toMatchObject({ line: 1, col: 1001, end_col: 1007, trimmed: true, text_start_col: 1001 - GREP_LIMITS.trimContextBytes / 2 });
    expect(Buffer.byteLength(hit!.text)).toBeLessThanOrEqual(GREP_LIMITS.lineBytes);
    expect([...hit!.text].slice(hit!.col - hit!.text_start_col).join('')).toMatch(/^needleü+$/);
    await d.command(`bwipeout! ${b}`);
  });

  it('trims a long line at code points, a combining character being one of its own', async () => {
    // Cut points on purpose: the excerpt starts, and its 400 bytes end, just before a U+0301.
    const line = 'e\u0301'.repeat(1000) + 'zz' + 'needle' + 'zz' + 'e\u0301'.repeat(1000);
    const b = await scratch(d, [line]);
    const [hit] = (await d.ok('grep_buffers', { pattern: 'needle', buffers: [b] })).hits as Hit[];
    const from = Buffer.byteLength(line.slice(0, line.indexOf('needle'))) - GREP_LIMITS.trimContextBytes;
    expect(hit).toMatchObject({ col: 2003, trimmed: true, text_start_col: [...Buffer.from(line).subarray(0, from).toString()].length + 1 });
    expect(hit!.text).toBe(Buffer.from(line).subarray(from, from + GREP_LIMITS.lineBytes).toString());
    expect(hit!.text.startsWith('\u0301')).toBe(true);
    await d.command(`bwipeout! ${b}`);
  });

  it('pages across buffers with max_results and a cursor, resuming after the last hit', async () => {
    const all = (await d.ok('grep_buffers', { pattern: 'l', buffers: [uni, other] })).hits as Hit[];
    expect(all.length).toBe(7);
    const got: Hit[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await d.ok('grep_buffers', { pattern: 'l', buffers: [uni, other], max_results: 3, ...(cursor ? { cursor } : {}) });
      const hits = page.hits as Hit[];
      expect(hits.length).toBeLessThanOrEqual(3);
      got.push(...hits);
      expect(page.truncated).toBe(page.cursor !== null);
      if (page.cursor === null) break;
      expect(hits).toHaveLength(3);
      cursor = page.cursor as string;
    }
    expect(got).toEqual(all);
    expect(new Set(got.map((h) => h.buf))).toEqual(new Set([uni, other]));
  });

  it('returns a short page with a cursor after scanning its line budget', async () => {
    // The editor side directly, with a tiny scan budget; the agent passes GREP_LIMITS.scanLines.
    const params = { pattern: 'aaa', mode: 'literal', case_sensitive: true, buffers: [uni], max_results: 100, max_bytes: 10_000, line_bytes: 400, trim_context_bytes: 100, scan_lines: 2 };
    const call = (cursor?: string) => direct(d, { ...params, ...(cursor ? { cursor } : {}) }).then((data) => ({ data }));
    const first = await call();
    expect(first.data).toEqual({ hits: [], truncated: true, cursor: `${uni}:3:0`, searched_buffers: 1, unloaded_buffers: 0 });
    const second = await call(first.data.cursor ?? undefined);
    expect(places(second.data.hits)).toEqual([
      [4, 1, 4],
      [4, 5, 8],
    ]);
    expect(second.data.cursor).toBe(`${uni}:5:0`);
  });
});

describe.each(DRIVERS)('grep_buffers on a 100k-line buffer on %s', (_kind, start) => {
  let d: Driver;
  let lines: string[];
  beforeAll(async () => {
    lines = Array.from({ length: 100_000 }, (_, i) => `${i + 1} ${'é日😀x'.repeat(i % 17)}`);
    d = await start({ files: { 'big.txt': lines.join('\n') + '\n' }, open: ['big.txt'] });
  });
  afterAll(() => d.stop());

  it('pages through every hit, no page above the hit or byte cap', async () => {
    // Lines whose number contains a 7, matched up to the space: one hit each.
    const expected = lines.flatMap((l, i) => {
      const m = /^\d*7\d* /.exec(l);
      return m ? [[i + 1, 1, m[0].length + 1] as [number, number, number]] : [];
    });
    const got: [number, number, number][] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await d.ok('grep_buffers', { pattern: '^\\d*7\\d* ', mode: 'regex', max_results: GREP_LIMITS.maxResults, ...(cursor ? { cursor } : {}) });
      const hits = page.hits as Hit[];
      expect(hits.length).toBeGreaterThan(0);
      expect(hits.length).toBeLessThanOrEqual(GREP_LIMITS.maxResults);
      expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThanOrEqual(LIMITS.maxResultBytes);
      expect(hits.every((h, i) => h.text === lines[h.line - 1] && (i === 0 || h.line > hits[i - 1]!.line))).toBe(true);
      got.push(...places(hits));
      pages++;
      if (page.cursor === null) break;
      expect(pages).toBeLessThan(expected.length);
      cursor = page.cursor as string;
    }
    expect(got).toEqual(expected);
    // The byte cap bites before the hit cap: pages hold fewer than max_results hits.
    expect(pages).toBeGreaterThan(Math.ceil(expected.length / GREP_LIMITS.maxResults));
  });

  // Vim finds the next line with a match in C (match() on a List) and counts the lines it passed
  // over as scanned: each page ends exactly at its scan budget, the next hit just after one end.
  it('ends each page at its scan budget across long runs of lines without a match', async () => {
    const buf = await d.bufnr('big.txt');
    const params = { pattern: '^\\(12345\\|60001\\|60002\\|99999\\) ', mode: 'regex', case_sensitive: true, buffers: [buf], max_results: 100, max_bytes: 10_000, line_bytes: 400, trim_context_bytes: 100, scan_lines: 30_000 };
    const pages: [number[], string | null][] = [];
    let cursor: string | null = null;
    do {
      const page: Page = await direct(d, { ...params, ...(cursor === null ? {} : { cursor }) });
      cursor = page.cursor;
      pages.push([page.hits.map((h) => h.line), cursor]);
    } while (cursor !== null);
    expect(pages).toEqual([
      [[12345], `${buf}:30001:0`],
      [[], `${buf}:60001:0`],
      [[60001, 60002], `${buf}:90001:0`],
      [[99999], null],
    ]);
  });
});
