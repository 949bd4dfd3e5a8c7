// highlight_range, add_virtual_text and clear_decorations, the same cases on a real Neovim
// (extmarks) and a real Vim (text properties): ranges at character columns of multi-byte text,
// VimRelay<Color> groups, clamping and refusals, virtual text per line, clearing by id, buffer or
// all (never anyone else's), and that decorations leave the text, the changedtick and undo alone.
// Vim 9.0's prop_list() does not return a virtual text's words, so those are checked on Neovim
// only (decoration ids are unique within their buffer: Neovim 0.10+ counts extmark ids per buffer); what only Neovim does is in nvim-decorations.test.ts.
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DECORATION_COLORS, VIRTUAL_TEXT_LIMITS } from '../../../../protocol/index.ts';
import { type Driver, DRIVERS } from '../../../helpers/editors.ts';

const UNICODE = 'héllo wörld — 日本語 🎉';
/** e, x and y with combining accents: six code points (e U+0301 x U+0301 U+0302 y), three on screen. */
const COMBINING = 'e\u0301x\u0301\u0302y';

/** The group VimRelay<Color> links to by default: the first of these that the editor defines. */
const LINKS: Record<string, [string, string]> = {
  Info: ['DiagnosticInfo', 'Identifier'],
  Hint: ['DiagnosticHint', 'Comment'],
  Success: ['DiagnosticOk', 'MoreMsg'],
  Warning: ['DiagnosticWarn', 'WarningMsg'],
  Error: ['DiagnosticError', 'ErrorMsg'],
};

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
  id?: number;
  text?: string;
  type: string;
  start: number;
  end: number;
}
type Mark = [number, number, number, { end_row?: number; end_col?: number; hl_group?: string; virt_text?: [string, string][]; virt_lines?: [string, string][][] }];

describe.each(DRIVERS)('decorations on %s', (_kind, start) => {
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
    // A virtual text's property: Vim 9.0 lists it with a negative id, later Vims with its text and no id.
    const isVirtual = (p: VimProp): boolean => p.text !== undefined || (p.id ?? 0) < 0;
    for (const p of props) {
      if (isVirtual(p)) virtual.push({ line: p.lnum, group: group(p.type) });
      else if (p.start) highlights.push({ id: p.id ?? 0, line: p.lnum, col: p.col - 1, end_line: p.lnum, end_col: p.col - 1 + p.length, group: group(p.type) });
    }
    for (const p of props) {
      const h = highlights.find((x) => x.id === p.id);
      if (!isVirtual(p) && p.end && !p.start && h) Object.assign(h, { end_line: p.lnum, end_col: p.col - 1 + p.length });
    }
    return { highlights, virtual };
  };
  /** Text, changedtick, modified flag and undo state: what a decoration must leave alone. */
  const snapshot = async (buf: number): Promise<unknown> => [await d.lines(buf), await d.tick(buf), await d.expr(`getbufvar(${buf}, '&modified')`), await d.expr('undotree().seq_last')];

  beforeAll(async () => {
    d = await start({ files: { 'main.txt': `${UNICODE}\nsecond ü\n\nfourth\n`, 'other.txt': 'other\n', 'combining.txt': `${COMBINING}\n` }, open: ['main.txt', 'other.txt', 'combining.txt'] });
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

  it('counts a combining character as a column of its own, in highlights, virtual text and get_state', async () => {
    const combining = await d.bufnr('combining.txt');
    /** The 0-based byte offset of 1-based column `col` of COMBINING. */
    const byte = (col: number): number => Buffer.byteLength([...COMBINING].slice(0, col - 1).join(''));
    const accents = await d.ok('highlight_range', { buffer: combining, start: { line: 1, col: 4 }, end: { line: 1, col: 6 } });
    const acute = await d.ok('highlight_range', { buffer: combining, start: { line: 1, col: 2 }, end: { line: 1, col: 3 }, color: 'hint' });
    expect(acute).toMatchObject({ start: { line: 1, col: 2 }, end: { line: 1, col: 3 } });
    const note = await d.ok('add_virtual_text', { buffer: combining, line: 1, text: COMBINING });
    expect(note).toMatchObject({ line: 1, position: 'eol' });
    expect((await decorations(combining)).highlights.sort((a, b) => a.col - b.col)).toEqual([
      { id: acute.id, line: 1, col: byte(2), end_line: 1, end_col: byte(3), group: 'VimRelayHint' },
      { id: accents.id, line: 1, col: byte(4), end_line: 1, end_col: byte(6), group: 'VimRelayInfo' },
    ]);
    expect((await decorations(combining)).virtual).toEqual([{ line: 1, group: 'VimRelayInfo', ...(d.kind === 'nvim' ? { text: COMBINING } : {}) }]);
    const listed = ((await d.ok('get_state')).decorations as { id: number }[]).filter((x) => x.id !== note.id);
    expect(listed).toMatchObject([{ id: acute.id, start: { line: 1, col: 2 }, end: { line: 1, col: 3 } }, { id: accents.id, start: { line: 1, col: 4 }, end: { line: 1, col: 6 } }]);
    expect(await d.lines(combining)).toEqual([COMBINING]);
  });

  /** The group VimRelay<name> links to by default in this editor now. */
  const link = async (name: string): Promise<string> => {
    const [diagnostic, fallback] = LINKS[name]!;
    return (await d.expr<number>(`hlexists('${diagnostic}')`)) === 1 ? diagnostic : fallback;
  };

  it('gives each color its VimRelay<Color> group, a default link to a standard group', async () => {
    for (const [i, color] of DECORATION_COLORS.entries()) {
      await d.ok('highlight_range', { start: { line: 1, col: i + 1 }, end: { line: 1, col: i + 2 }, color });
    }
    const groups = (await decorations(main)).highlights.sort((a, b) => a.col - b.col).map((h) => h.group);
    expect(groups).toEqual(DECORATION_COLORS.map((c) => `VimRelay${c.charAt(0).toUpperCase()}${c.slice(1)}`));
    for (const name of Object.keys(LINKS)) {
      expect(await d.expr(`execute("highlight VimRelay${name}")`), name).toMatch(new RegExp(`links to ${await link(name)}$`));
    }
    // Neovim defines the Diagnostic groups itself (all but DiagnosticOk in 0.7).
    if (d.kind === 'nvim') expect(await link('Info')).toBe('DiagnosticInfo');
  });

  it("keeps a user's own definition of a group, and the default links survive :colorscheme", async () => {
    await d.ok('highlight_range', { start: { line: 1, col: 1 }, end: { line: 1, col: 2 }, color: 'hint' });
    await d.command('highlight VimRelayError guifg=#123456');
    await d.ok('highlight_range', { start: { line: 1, col: 1 }, end: { line: 1, col: 2 }, color: 'error' });
    expect(await d.expr('execute("highlight VimRelayError")')).toMatch(/guifg=#123456/);
    await d.command('colorscheme blue');
    expect(await d.expr('execute("highlight VimRelayHint")')).toMatch(new RegExp(`links to ${await link('Hint')}$`));
    await d.command('colorscheme default');
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
  });

  it('refuses lines past the end (with the line count) and empty or reversed ranges, adding nothing', async () => {
    expect(await d.call('highlight_range', { start: { line: 4, col: 1 }, end: { line: 5, col: 1 } })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', line_count: 4 } });
    expect(await d.call('highlight_range', { start: { line: 2, col: 3 }, end: { line: 2, col: 3 } })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(await d.call('highlight_range', { start: { line: 2, col: 3 }, end: { line: 1, col: 5 } })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(await d.call('highlight_range', { start: { line: 2, col: 50 }, end: { line: 2, col: 60 } })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(await d.call('highlight_range', { buffer: 'missing.txt', start: { line: 1, col: 1 }, end: { line: 1, col: 2 } })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND' } });
    expect(await d.call('highlight_range', { start: { line: 1, col: 1 }, end: { line: 1, col: 2 }, color: 'purple' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(await decorations(main)).toEqual({ highlights: [], virtual: [] });
  });

  it('follows the text as lines are added above it, and back on undo', async () => {
    const data = await d.ok('highlight_range', { start: { line: 2, col: 8 }, end: { line: 2, col: 9 } });
    const at = Buffer.byteLength('second ');
    await d.expr(`appendbufline(${main}, 0, 'new first line')`);
    expect((await decorations(main)).highlights).toEqual([{ id: data.id, line: 3, col: at, end_line: 3, end_col: at + 2, group: 'VimRelayInfo' }]);
    await d.undo(main);
    expect(await d.lines(main)).toEqual([UNICODE, 'second ü', '', 'fourth']);
    expect((await decorations(main)).highlights).toEqual([{ id: data.id, line: 2, col: at, end_line: 2, end_col: at + 2, group: 'VimRelayInfo' }]);
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
    expect(await d.call('add_virtual_text', { buffer: 99_999, line: 1, text: 'x' })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND' } });
    expect((await decorations(main)).virtual).toHaveLength(4);
    expect(await snapshot(main)).toEqual(before);
  });

  it(`caps virtual text at ${VIRTUAL_TEXT_LIMITS.maxChars} characters and ${VIRTUAL_TEXT_LIMITS.maxLines} lines; eol text is one line`, async () => {
    // Characters are code points: maxChars emoji fit although each is two UTF-16 units.
    expect(await d.call('add_virtual_text', { line: 1, text: '🎉'.repeat(VIRTUAL_TEXT_LIMITS.maxChars) })).toMatchObject({ ok: true });
    expect(await d.call('add_virtual_text', { line: 1, text: 'x'.repeat(VIRTUAL_TEXT_LIMITS.maxChars + 1) })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    const lines = (n: number): string => Array.from({ length: n }, (_, i) => `l${i}`).join('\n');
    expect(await d.call('add_virtual_text', { line: 1, text: lines(VIRTUAL_TEXT_LIMITS.maxLines), position: 'below' })).toMatchObject({ ok: true });
    expect(await d.call('add_virtual_text', { line: 1, text: lines(VIRTUAL_TEXT_LIMITS.maxLines + 1), position: 'below' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(await d.call('add_virtual_text', { line: 1, text: 'two\nlines' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', message: expect.stringMatching(/above or below/) } });
    expect(await d.call('add_virtual_text', { line: 1, text: '' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect((await decorations(main)).virtual).toHaveLength(1 + VIRTUAL_TEXT_LIMITS.maxLines);
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

  it("never clears anyone else's extmarks or text properties", async () => {
    // Another plugin's decoration on line 1: an extmark of its namespace, or a property of its type.
    const theirs =
      d.kind === 'nvim'
        ? 'len(nvim_buf_get_extmarks(' + main + ", nvim_create_namespace('someone-else'), 0, -1, {}))"
        : `len(prop_list(1, {'bufnr': ${main}, 'end_lnum': -1, 'types': ['someone_else']}))`;
    if (d.kind === 'nvim') await d.expr(`nvim_buf_set_extmark(${main}, nvim_create_namespace('someone-else'), 0, 0, {'end_col': 2, 'hl_group': 'Comment'})`);
    else await d.expr(`[prop_type_add('someone_else', {'highlight': 'Comment'}), prop_add(1, 1, {'bufnr': ${main}, 'type': 'someone_else', 'length': 2, 'id': 1})]`);
    await d.ok('highlight_range', { start: { line: 1, col: 1 }, end: { line: 2, col: 1 } });
    await d.ok('add_virtual_text', { line: 1, text: 'ours' });
    expect(await d.ok('clear_decorations', { all_buffers: true })).toMatchObject({ removed: 2 });
    expect(await d.expr(theirs)).toBe(1);
    expect(await d.ok('clear_decorations', { buffer: main })).toMatchObject({ removed: 0 });
    expect(await d.ok('clear_decorations', { id: 1 })).toMatchObject({ removed: 0 });
    expect(await d.expr(theirs)).toBe(1);
  });

  it('refuses all_buffers together with a buffer or an id, and an unknown buffer', async () => {
    expect(await d.call('clear_decorations', { all_buffers: true, buffer: main })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(await d.call('clear_decorations', { all_buffers: true, id: 1 })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(await d.call('clear_decorations', { buffer: 'missing.txt' })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND' } });
  });

  // Vim keeps text properties in the line's text, so undoing a change to a decorated line brings
  // back the line as it was, without them: the decorations here sit on lines the undo leaves.
  it('leaves text, changedtick, modified flag and undo alone through a whole round, and undo skips decorations', async () => {
    await d.setLine(main, 4, 'fourth, edited');
    const before = await snapshot(main);
    await d.ok('highlight_range', { start: { line: 1, col: 2 }, end: { line: 3, col: 1 }, color: 'warning' });
    await d.ok('add_virtual_text', { line: 1, text: 'eol' });
    await d.ok('add_virtual_text', { line: 2, text: 'below', position: 'below' });
    await d.ok('clear_decorations', { all_buffers: true });
    await d.ok('highlight_range', { start: { line: 1, col: 2 }, end: { line: 3, col: 1 }, color: 'error' });
    await d.ok('add_virtual_text', { line: 2, text: 'stays' });
    expect(await snapshot(main)).toEqual(before);
    await d.undo(main);
    expect(await d.lines(main)).toEqual([UNICODE, 'second ü', '', 'fourth']);
    const after = await decorations(main);
    expect([after.highlights.length, after.virtual.length]).toEqual([1, 1]);
  });
});
