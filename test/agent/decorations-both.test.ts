// highlight_range, add_virtual_text and clear_decorations, the same cases on a real Neovim
// (extmarks) and a real Vim (text properties): ranges at character columns of multi-byte text,
// VimRelay<Color> groups, clamping and refusals, virtual text per line, clearing by id, buffer or
// all, and that decorations leave the text, the changedtick and undo alone. Vim 9.0's prop_list()
// does not return a virtual text's words, so those are checked on Neovim only (here and in
// nvim-decorations.test.ts).
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { nvimDriver, vimDriver, type Driver } from './drivers.ts';

const UNICODE = 'héllo wörld — 日本語 🎉';

/** A highlight: 1-based lines, 0-based byte columns, end exclusive. */
interface Highlight {
  id: number;
  line: number;
  col: number;
  end_line: number;
  end_col: number;
  group: string;
}
/** One line of virtual text (its words where the editor tells them). */
interface Virtual {
  line: number;
  group: string;
  text?: string;
}

interface VimProp {
  lnum: number;
  col: number;
  length: number;
  id: number;
  type: string;
  start: number;
  end: number;
}
type Mark = [number, number, number, { end_row?: number; end_col?: number; hl_group?: string; virt_text?: [string, string][]; virt_lines?: [string, string][][] }];

describe.each([
  ['Neovim', nvimDriver],
  ['Vim', vimDriver],
] as const)('decorations on %s', (_kind, start) => {
  let d: Driver;
  let main: number;
  let other: number;

  /** Our decorations in `buf`, the same shape for both editors. */
  const decorations = async (buf: number): Promise<{ highlights: Highlight[]; virtual: Virtual[] }> => {
    const highlights: Highlight[] = [];
    const virtual: Virtual[] = [];
    if (d.kind === 'nvim') {
      for (const [id, row, col, x] of await d.expr<Mark[]>(`nvim_buf_get_extmarks(${buf}, nvim_create_namespace('vimrelay'), 0, -1, {'details': v:true})`)) {
        if (x.hl_group && x.end_row !== undefined && x.end_col !== undefined) highlights.push({ id, line: row + 1, col, end_line: x.end_row + 1, end_col: x.end_col, group: x.hl_group });
        for (const [text, group] of x.virt_text ?? []) virtual.push({ line: row + 1, group, text });
        for (const [[text, group] = ['', '']] of x.virt_lines ?? []) virtual.push({ line: row + 1, group, text });
      }
      return { highlights, virtual };
    }
    const types = "filter(['vimrelay_info', 'vimrelay_hint', 'vimrelay_success', 'vimrelay_warning', 'vimrelay_error'], '!empty(prop_type_get(v:val))')";
    const props = await d.expr<VimProp[]>(`bufloaded(${buf}) && !empty(${types}) ? prop_list(1, {'bufnr': ${buf}, 'end_lnum': -1, 'types': ${types}}) : []`);
    const group = (type: string): string => `VimRelay${type.charAt(9).toUpperCase()}${type.slice(10)}`;
    for (const p of props) {
      if (p.id < 0) virtual.push({ line: p.lnum, group: group(p.type) });
      else if (p.start) highlights.push({ id: p.id, line: p.lnum, col: p.col - 1, end_line: p.lnum, end_col: p.col - 1 + p.length, group: group(p.type) });
    }
    for (const p of props) {
      const h = highlights.find((x) => x.id === p.id);
      if (p.id > 0 && p.end && !p.start && h) Object.assign(h, { end_line: p.lnum, end_col: p.col - 1 + p.length });
    }
    return { highlights, virtual };
  };
  /** Text, changedtick, modified flag and undo state: what a decoration must leave alone. */
  const snapshot = async (buf: number): Promise<unknown> => [await d.lines(buf), await d.tick(buf), await d.expr(`getbufvar(${buf}, '&modified')`), await d.expr('undotree().seq_last')];

  beforeAll(async () => {
    d = await start({ files: { 'main.txt': `${UNICODE}\nsecond ü\n\nfourth\n`, 'other.txt': 'other\n' }, open: ['main.txt', 'other.txt'] });
    main = await d.bufnr('main.txt');
    other = await d.bufnr('other.txt');
  });
  beforeEach(async () => {
    await d.ok('clear_decorations', { all_buffers: true });
    await d.cursor('main.txt', 1, 0);
  });
  afterAll(() => d.stop());

  it('highlights a range given in characters of multi-byte text, end exclusive, as a VimRelay<Color> group', async () => {
    const before = await snapshot(main);
    const data = await d.ok('highlight_range', { start: { line: 1, col: 15 }, end: { line: 1, col: 18 }, color: 'warning' });
    expect(data).toEqual({ id: expect.any(Number), buf: main, path: join(d.cwd, 'main.txt'), start: { line: 1, col: 15 }, end: { line: 1, col: 18 }, color: 'warning' });
    const at = Buffer.byteLength('héllo wörld — ');
    expect((await decorations(main)).highlights).toEqual([{ id: data.id, line: 1, col: at, end_line: 1, end_col: at + Buffer.byteLength('日本語'), group: 'VimRelayWarning' }]);
    expect(await d.expr('hlexists("VimRelayWarning")')).toBe(1);
    expect(await snapshot(main)).toEqual(before);
  });

  it("keeps a user's own definition of a group, and the default links survive :colorscheme", async () => {
    await d.ok('highlight_range', { start: { line: 1, col: 1 }, end: { line: 1, col: 2 }, color: 'hint' });
    await d.command('highlight VimRelayError guifg=#123456');
    await d.ok('highlight_range', { start: { line: 1, col: 1 }, end: { line: 1, col: 2 }, color: 'error' });
    expect(await d.expr('execute("highlight VimRelayError")')).toMatch(/guifg=#123456/);
    await d.command('colorscheme default');
    expect(await d.expr('execute("highlight VimRelayHint")')).toMatch(/links to/);
  });

  it('spans lines, clamps columns past the end of a line, defaults to the current buffer and info, and addresses a path', async () => {
    const data = await d.ok('highlight_range', { start: { line: 1, col: 19 }, end: { line: 2, col: 99 } });
    expect(data).toMatchObject({ buf: main, start: { line: 1, col: 19 }, end: { line: 2, col: 9 }, color: 'info' });
    expect((await decorations(main)).highlights).toEqual([
      { id: data.id, line: 1, col: Buffer.byteLength('héllo wörld — 日本語 '), end_line: 2, end_col: Buffer.byteLength('second ü'), group: 'VimRelayInfo' },
    ]);
    const there = await d.ok('highlight_range', { buffer: 'other.txt', start: { line: 1, col: 1 }, end: { line: 1, col: 3 }, color: 'success' });
    expect(there).toMatchObject({ buf: other, path: join(d.cwd, 'other.txt') });
    expect((await decorations(other)).highlights).toEqual([{ id: there.id, line: 1, col: 0, end_line: 1, end_col: 2, group: 'VimRelaySuccess' }]);
    expect(there.id).not.toBe(data.id);
  });

  it('refuses lines past the end (with the line count) and empty or reversed ranges, adding nothing', async () => {
    expect(await d.call('highlight_range', { start: { line: 4, col: 1 }, end: { line: 5, col: 1 } })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', line_count: 4 } });
    expect(await d.call('highlight_range', { start: { line: 2, col: 3 }, end: { line: 2, col: 3 } })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(await d.call('highlight_range', { start: { line: 2, col: 3 }, end: { line: 1, col: 5 } })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(await d.call('highlight_range', { start: { line: 2, col: 50 }, end: { line: 2, col: 60 } })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(await d.call('highlight_range', { buffer: 'missing.txt', start: { line: 1, col: 1 }, end: { line: 1, col: 2 } })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND' } });
    expect(await decorations(main)).toEqual({ highlights: [], virtual: [] });
  });

  it('adds virtual text at the end of a line, or lines above or below (one per line of text, CRLF too)', async () => {
    const before = await snapshot(main);
    const eol = await d.ok('add_virtual_text', { line: 2, text: `note: ${UNICODE}` });
    expect(eol).toEqual({ id: expect.any(Number), buf: main, path: join(d.cwd, 'main.txt'), line: 2, position: 'eol', color: 'info' });
    const below = await d.ok('add_virtual_text', { line: 1, text: 'first 日本\r\n\nthird 🎉', position: 'below', color: 'error' });
    expect(below).toMatchObject({ line: 1, position: 'below', color: 'error' });
    expect(below.id).not.toBe(eol.id);
    const virtual = (await decorations(main)).virtual;
    expect(virtual.map(({ line, group }) => [line, group]).sort()).toEqual([[1, 'VimRelayError'], [1, 'VimRelayError'], [1, 'VimRelayError'], [2, 'VimRelayInfo']]);
    if (d.kind === 'nvim') expect(virtual.map((v) => v.text).sort()).toEqual(['', 'first 日本', `note: ${UNICODE}`, 'third 🎉']);
    expect(await d.call('add_virtual_text', { line: 5, text: 'x', position: 'above' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', line_count: 4 } });
    expect(await snapshot(main)).toEqual(before);
  });

  it('clears one decoration by id (then 0 for it), one buffer, or every buffer', async () => {
    const before = await snapshot(main);
    const a = await d.ok('highlight_range', { start: { line: 1, col: 1 }, end: { line: 2, col: 1 } });
    const b = await d.ok('add_virtual_text', { line: 2, text: 'a\nb', position: 'above' });
    await d.ok('add_virtual_text', { buffer: other, line: 1, text: 'c' });
    expect(await d.ok('clear_decorations', { id: a.id })).toEqual({ removed: 1, buf: main, path: join(d.cwd, 'main.txt') });
    expect(await d.ok('clear_decorations', { id: a.id })).toMatchObject({ removed: 0 });
    expect((await decorations(main)).virtual).toHaveLength(2);
    expect(await d.ok('clear_decorations', { id: b.id })).toMatchObject({ removed: 1 });
    expect(await decorations(main)).toEqual({ highlights: [], virtual: [] });
    await d.ok('add_virtual_text', { line: 1, text: 'd' });
    expect(await d.ok('clear_decorations', { buffer: 'other.txt' })).toEqual({ removed: 1, buf: other, path: join(d.cwd, 'other.txt') });
    await d.ok('highlight_range', { buffer: other, start: { line: 1, col: 1 }, end: { line: 1, col: 2 } });
    expect(await d.ok('clear_decorations', { all_buffers: true })).toEqual({ removed: 2, buf: null, path: null });
    expect(await decorations(main)).toEqual({ highlights: [], virtual: [] });
    expect(await decorations(other)).toEqual({ highlights: [], virtual: [] });
    expect(await d.ok('clear_decorations', {})).toEqual({ removed: 0, buf: main, path: join(d.cwd, 'main.txt') });
    expect(await snapshot(main)).toEqual(before);
  });

  // Vim keeps text properties in the line's text, so undoing a change to a decorated line brings
  // back the line as it was, without them: the decorations here sit on lines the undo leaves.
  it('stays out of undo: undoing an edit keeps the decorations', async () => {
    await d.setLine(main, 4, 'fourth, edited');
    await d.ok('highlight_range', { start: { line: 1, col: 2 }, end: { line: 3, col: 1 }, color: 'error' });
    await d.ok('add_virtual_text', { line: 2, text: 'stays' });
    await d.undo(main);
    expect(await d.lines(main)).toEqual([UNICODE, 'second ü', '', 'fourth']);
    const after = await decorations(main);
    expect([after.highlights.length, after.virtual.length]).toEqual([1, 1]);
  });
});

// Vim keeps no diagnostics itself and reading ALE's or vim-lsp's is not done yet (diagnostics.vim):
// get_diagnostics answers UNSUPPORTED there, with a hint that fits what is loaded.
describe('get_diagnostics on Vim', () => {
  let d: Driver;
  beforeAll(async () => {
    d = await vimDriver({ files: { 'main.txt': `${UNICODE}\n` }, open: ['main.txt'] });
  });
  afterAll(() => d.stop());

  it('answers UNSUPPORTED with a hint to use Neovim or the quickfix list', async () => {
    expect(await d.call('get_diagnostics', {})).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED', hint: expect.stringMatching(/no diagnostics plugin is loaded.*Neovim/) } });
  });

  it('names the diagnostics plugin that is loaded', async () => {
    await d.command('let g:loaded_ale = 1');
    expect(await d.call('get_diagnostics', { severity: 'error' })).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED', hint: expect.stringContaining('ALE is loaded') } });
  });
});
