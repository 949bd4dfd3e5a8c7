// get_state_brief and get_state, the same cases on a real Neovim and on a real Vim: mode, cwd,
// buffers (listed first, capped), modified ones, the active and alternate windows with cursor
// (columns in characters) and context, terminals; then every window (active, alternate, then by
// tab) with visible lines, closed folds and indent, tabs, lowercase marks, the visual selection,
// diagnostic counts (Vim: ALE's) and our decorations; every list capped and flagged, the whole
// within LIMITS.maxResultBytes.
// The visual selection is read from a Vim in Normal mode (the others run in Ex mode). Then what
// only Vim has: a focused popup window. What only Neovim has (floating windows) is in
// nvim-state.test.ts.
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS, STATE_CONTEXT_LINE_BYTES, STATE_LIMITS } from '../../../../protocol/index.ts';
import { clearDiagnostics, setDiagnostics, VIM_ALE } from '../../../helpers/diagnostics-source.ts';
import { type Driver, DRIVERS, vimDriver } from '../../../helpers/editors.ts';
import { waitFor } from '../../../helpers/editors.ts';

const UNI = 'héllo wörld — 日本語 🎉';
const A = [UNI, ...Array.from({ length: 29 }, (_, i) => `a${i + 2} héllo — 日本語 😀`)];
/** Filetype detection on in Vim too (Neovim's --clean has it), so that both name a .txt's filetype. */
const VIM_CMDS = ['filetype on', ...VIM_ALE];

interface WindowState {
  win: number;
  role: string;
  tab: number;
  buf: number;
  floating: boolean;
  top_line: number;
  bottom_line: number;
  cursor: { line: number; col: number };
  context: { start_line: number; lines: string[]; lines_cut: boolean };
  folds: { start_line: number; end_line: number }[];
  folds_truncated: boolean;
  indent: Record<string, unknown>;
}

/** Size of a result as the relay sends it: its JSON text. */
function jsonBytes(data: unknown): number {
  return Buffer.byteLength(JSON.stringify(data), 'utf8');
}

describe.each(DRIVERS)('get_state_brief and get_state on %s', (_kind, start) => {
  let d: Driver;
  let a: number;
  let b: number;
  beforeAll(async () => {
    d = await start({ files: { 'a.txt': A.join('\n') + '\n', 'b.txt': 'b1\nb2\n' }, open: ['a.txt', 'b.txt'], vimCmds: VIM_CMDS });
    [a, b] = [await d.bufnr('a.txt'), await d.bufnr('b.txt')];
  });
  afterAll(() => d.stop());
  afterEach(() => d.command(`silent! only | silent! tabonly | buffer ${a}`));

  it('describes mode, cwd and buffers, listed first', async () => {
    await d.command("let g:scratch = bufadd('') | call setbufvar(g:scratch, '&buflisted', 0) | call setbufvar(g:scratch, '&buftype', 'nofile')");
    const data = await d.ok('get_state_brief');
    // The tests run Vim in Ex mode (-es), which is command-line mode to mode().
    expect(data).toMatchObject({ mode: d.kind === 'nvim' ? 'n' : 'c', cwd: d.cwd, buffers_truncated: false });
    expect(data).not.toHaveProperty('terminals');
    const buffers = data.buffers as Record<string, unknown>[];
    expect(buffers[0]).toEqual({
      buf: a,
      path: join(d.cwd, 'a.txt'),
      name: 'a.txt',
      listed: true,
      loaded: true,
      modified: false,
      buftype: '',
      filetype: 'text',
      line_count: A.length,
      changedtick: await d.tick(a),
    });
    expect(buffers[1]).toMatchObject({ name: 'b.txt', listed: true, loaded: false, line_count: null, changedtick: null });
    expect(buffers.at(-1)).toMatchObject({ listed: false, buftype: 'nofile', path: null });
  });

  it('lists modified buffers', async () => {
    await d.setLine(a, 1, 'changed');
    expect((await d.ok('get_state_brief')).modified_buffers).toEqual([a]);
    await d.undo(a);
    expect((await d.ok('get_state_brief')).modified_buffers).toEqual([]);
  });

  it('gives the active window, then the alternate one, with cursor in characters and context', async () => {
    // Cursor on line 6, on "日" (character 12).
    await d.cursor('a.txt', 6, Buffer.byteLength('a6 héllo — '));
    // (Ex mode puts the cursor of a file it loads on the last line.)
    await d.command('split b.txt | call cursor(1, 1)');
    const data = await d.ok('get_state_brief');
    const [active, alternate, ...rest] = data.windows as WindowState[];
    expect(rest).toEqual([]);
    expect(active).toMatchObject({
      role: 'active',
      win: await d.expr('win_getid()'),
      path: join(d.cwd, 'b.txt'),
      cursor: { line: 1, col: 1 },
      context: { start_line: 1, lines: ['b1', 'b2'], lines_cut: false },
    });
    expect(alternate).toMatchObject({ role: 'alternate', buf: a, cursor: { line: 6, col: 12 }, context: { start_line: 3, lines: A.slice(2, 9) } });
  });

  it('cuts very long context lines at a character boundary', async () => {
    await d.setLine(a, 1, 'ü'.repeat(5000));
    await d.cursor('a.txt', 1, 0);
    const [active] = (await d.ok('get_state_brief')).windows as WindowState[];
    const first = active?.context.lines[0] ?? '';
    expect(first).toBe('ü'.repeat(STATE_CONTEXT_LINE_BYTES / 2));
    expect(active?.context.lines_cut).toBe(true);
    await d.undo(a);
  });

  it('lists terminals and whether they are shown, in the brief and the full state', async () => {
    // Vim's :terminal splits the window; Neovim's takes the current one.
    if (d.kind === 'nvim') await d.command('split');
    await d.command('terminal cat');
    const shown = await d.expr<number>('bufnr("%")');
    await d.command('split | terminal cat');
    const hidden = await d.expr<number>('bufnr("%")');
    await d.command('hide');
    const brief = await d.ok('get_state_brief');
    expect(brief.terminals).toEqual([
      { buf: shown, name: expect.any(String), visible: true },
      { buf: hidden, name: expect.any(String), visible: false },
    ]);
    expect((await d.ok('get_state')).terminals).toEqual(brief.terminals);
    await d.command(`bwipeout! ${shown} ${hidden}`);
  });

  it('get_state includes everything the brief says', async () => {
    const [brief, state] = [await d.ok('get_state_brief'), await d.ok('get_state')];
    for (const key of ['mode', 'cwd', 'buffers', 'buffers_truncated', 'modified_buffers'] as const) {
      expect(state[key]).toEqual(brief[key]);
    }
    const [active] = state.windows as WindowState[];
    expect(active).toMatchObject((brief.windows as object[])[0] as object);
    expect(state).toMatchObject({ windows_truncated: false, tabs_truncated: false, marks_truncated: false, decorations_truncated: false, selection: null });
    expect(state).not.toHaveProperty('terminals');
  });

  it('lists every window, active first, then the alternate, then by tab, with tabs', async () => {
    await d.command('split b.txt | vsplit | wincmd p');
    await d.command('tabnew');
    await d.command('tabprevious');
    const state = await d.ok('get_state');
    const windows = state.windows as WindowState[];
    expect(windows.map((w) => w.role)).toEqual(['active', 'alternate', 'other', 'other']);
    expect(windows[0]?.win).toBe(await d.expr('win_getid()'));
    expect(windows[1]?.win).toBe(await d.expr('win_getid(winnr("#"))'));
    expect(windows.map((w) => w.tab)).toEqual([1, 1, 1, 2]);
    const tab1 = await d.expr<number[]>('gettabinfo(1)[0].windows');
    expect(state.tabs).toEqual([
      { tab: 1, current: true, windows: tab1 },
      { tab: 2, current: false, windows: [windows[3]?.win] },
    ]);
    expect(new Set(windows.slice(0, 3).map((w) => w.win))).toEqual(new Set(tab1));
    expect(windows.every((w) => w.floating === false)).toBe(true);
  });

  it('gives each window its size, visible lines and effective indent settings', async () => {
    await d.command('setlocal expandtab tabstop=4 shiftwidth=0 softtabstop=-1');
    await d.cursor('a.txt', 20, 0);
    const [active] = (await d.ok('get_state')).windows as WindowState[];
    expect(active).toMatchObject({ indent: { expandtab: true, tabstop: 4, shiftwidth: 4, softtabstop: 4 } });
    const [width, height] = await d.expr<number[]>('[winwidth(0), winheight(0)]');
    expect(active).toMatchObject({ width, height });
    // Neither editor draws here, so only this is sure: the visible lines hold the cursor and fit.
    expect(active!.top_line).toBeLessThanOrEqual(20);
    expect(active!.bottom_line).toBeGreaterThanOrEqual(20);
    expect(active!.bottom_line - active!.top_line).toBeLessThan(height ?? 0);
    await d.command(`buffer ${b}`);
    expect(((await d.ok('get_state')).windows as WindowState[])[0]?.indent).toEqual({ expandtab: false, tabstop: 8, shiftwidth: 8, softtabstop: 0 });
  });

  it('lists closed folds, not open ones', async () => {
    await d.command('normal! zE');
    await d.command('3,5fold | 10,14fold | 11,12fold | 20,21fold | 20foldopen | call cursor(7, 2)');
    const where = `[getcurpos()[1:2], getpos("''")]`;
    const before = await d.expr(where);
    const [active] = (await d.ok('get_state')).windows as WindowState[];
    // Finding them moved neither the cursor nor the jumplist.
    expect(await d.expr(where)).toEqual(before);
    expect((before as unknown[])[0]).toEqual([7, 2]);
    expect(active?.folds).toEqual([
      { start_line: 3, end_line: 5 },
      { start_line: 10, end_line: 14 },
    ]);
    expect(active?.folds_truncated).toBe(false);
    await d.command('normal! zE');
  });

  it('lists lowercase marks with columns in characters', async () => {
    // Mark a on "日" (character 15 of line 1), mark c on line 3; uppercase and special marks are left out.
    await d.cursor('a.txt', 1, Buffer.byteLength('héllo wörld — '));
    await d.command('normal! ma');
    await d.cursor('a.txt', 3, 2);
    await d.command('normal! mcmZ');
    const path = join(d.cwd, 'a.txt');
    expect((await d.ok('get_state')).marks).toEqual([
      { mark: 'a', buf: a, path, line: 1, col: 15 },
      { mark: 'c', buf: a, path, line: 3, col: 3 },
    ]);
    await d.command('delmarks ac');
  });

  it('counts diagnostics per severity and per buffer', async () => {
    await d.expr(`bufload(${b})`);
    await setDiagnostics(d, a, 'lint', [
      { lnum: 1, col: 0, severity: 1, message: 'e' },
      { lnum: 2, col: 0, severity: 2, message: 'w' },
      { lnum: 3, col: 0, severity: 2, message: 'w2' },
    ]);
    await setDiagnostics(d, b, 'lint', [{ lnum: 1, col: 0, severity: 3, message: 'i' }]);
    expect((await d.ok('get_state')).diagnostics).toEqual({
      error: 1,
      warn: 2,
      info: 1,
      hint: 0,
      buffers: [
        { buf: a, path: join(d.cwd, 'a.txt'), error: 1, warn: 2, info: 0, hint: 0 },
        { buf: b, path: join(d.cwd, 'b.txt'), error: 0, warn: 0, info: 1, hint: 0 },
      ],
      buffers_truncated: false,
    });
    await clearDiagnostics(d, [a, b], ['lint']);
  });

  it('describes the decorations added with highlight_range and add_virtual_text', async () => {
    const hl = await d.ok('highlight_range', { buffer: a, start: { line: 1, col: 15 }, end: { line: 2, col: 4 }, color: 'warning' });
    const eol = await d.ok('add_virtual_text', { buffer: a, line: 2, text: 'note — 日本 🎉', position: 'eol', color: 'error' });
    const above = await d.ok('add_virtual_text', { buffer: a, line: 4, text: 'one\ntwo', position: 'above' });
    const path = join(d.cwd, 'a.txt');
    expect((await d.ok('get_state')).decorations).toEqual([
      { id: hl.id, buf: a, path, kind: 'highlight', start: { line: 1, col: 15 }, end: { line: 2, col: 4 }, text: null, position: null, color: 'warning' },
      { id: eol.id, buf: a, path, kind: 'virtual_text', start: { line: 2, col: 1 }, end: null, text: 'note — 日本 🎉', position: 'eol', color: 'error' },
      { id: above.id, buf: a, path, kind: 'virtual_text', start: { line: 4, col: 1 }, end: null, text: 'one\ntwo', position: 'above', color: 'info' },
    ]);
    await d.ok('clear_decorations', { buffer: a });
    expect((await d.ok('get_state')).decorations).toEqual([]);
  });

  it(`lists at most ${LIMITS.stateMaxBuffers} buffers, listed ones first`, async () => {
    await d.command(`for i in range(${LIMITS.stateMaxBuffers}) | call setbufvar(bufadd(''), '&buflisted', 0) | endfor`);
    await d.command("call setbufvar(bufadd('listed-last.txt'), '&buflisted', 1)");
    const data = await d.ok('get_state_brief');
    const buffers = data.buffers as { listed: boolean }[];
    expect(data.buffers_truncated).toBe(true);
    expect(buffers).toHaveLength(LIMITS.stateMaxBuffers);
    const firstUnlisted = buffers.findIndex((x) => !x.listed);
    expect(buffers.slice(firstUnlisted).every((x) => !x.listed)).toBe(true);
    expect(buffers.filter((x) => x.listed).length).toBe(await d.expr("len(getbufinfo({'buflisted': 1}))"));
  });
});

// Vim in Normal mode here: only then can it hold a visual selection while it answers the agent.
describe.each(DRIVERS)('get_state in visual mode on %s', (_kind, start) => {
  let d: Driver;
  const mode = (): Promise<string> => d.expr<string>('mode()');
  const until = (wanted: string): Promise<boolean> =>
    waitFor(async () => ((await mode()) === wanted ? true : undefined), 5_000, `mode ${JSON.stringify(wanted)}`);
  beforeAll(async () => {
    d = await start({ files: { 'a.txt': A.join('\n') + '\n', 'b.txt': 'b1\nb2\n' }, open: ['a.txt'], vimNormal: true });
  });
  afterAll(() => d.stop());
  afterEach(async () => {
    await d.type('\x1b');
    await until('n');
    await d.command('silent! only');
  });

  it.each([
    ['v', 'char'],
    ['V', 'line'],
    ['\x16', 'block'],
  ])('gives the selection (%j), in characters, start before end, and leaves visual mode on', async (key, kind) => {
    // From "é" (character 5 of line 2) up to line 1 and over to "r" (character 9): a backward selection.
    // Another window too, so that reading it runs while the selection is active.
    await d.command('vsplit b.txt | wincmd p');
    await d.cursor('a.txt', 2, Buffer.byteLength('a2 h'));
    await d.type(`${key}k0llllllll`);
    await until(key);
    const state = await d.ok('get_state');
    expect(state.mode).toBe(key);
    expect(state.selection).toEqual({ kind, buf: 1, path: join(d.cwd, 'a.txt'), start: { line: 1, col: 9 }, end: { line: 2, col: 5 } });
    expect(await mode()).toBe(key);
    expect((await d.ok('get_state')).selection).toEqual(state.selection);
  });
});

describe.each(DRIVERS)('get_state caps on %s', (_kind, start) => {
  let d: Driver;
  beforeAll(async () => {
    d = await start({ files: { 'a.txt': Array.from({ length: 400 }, (_, i) => `line ${i + 1}`).join('\n') + '\n' }, open: ['a.txt'], vimCmds: VIM_CMDS });
  });
  afterAll(() => d.stop());

  it('caps every list and flags each cut', async () => {
    const over = (n: number): number => n + 5;
    const a = await d.bufnr('a.txt');
    // Closed folds in the current window.
    await d.command(`for i in range(${over(STATE_LIMITS.foldsPerWindow)}) | execute (i * 3 + 1) . ',' . (i * 3 + 2) . 'fold' | endfor`);
    // Buffers with all 26 marks (enough of them), a diagnostic each, and decorations.
    const bufs = await d.expr<number[]>(
      `map(range(${over(STATE_LIMITS.diagnosticBuffers)}), {i, _ -> bufadd('extra' . i . '.txt')})`,
    );
    for (const [i, buf] of bufs.entries()) {
      await d.command(`call bufload(${buf}) | call setbufline(${buf}, 1, ['x', 'y'])`);
      if (i * 26 <= STATE_LIMITS.marks + 26) {
        await d.command(`for c in range(char2nr('a'), char2nr('z')) | call setpos("'" . nr2char(c), [${buf}, 1, 1, 0]) | endfor`);
      }
      await setDiagnostics(d, buf, 'lint', [{ lnum: 1, col: 0, severity: 1, message: 'm' }]);
    }
    for (let i = 0; i < over(STATE_LIMITS.decorations); i++) {
      await d.ok('highlight_range', { buffer: a, start: { line: 1 + (i % 300), col: 1 }, end: { line: 1 + (i % 300), col: 2 }, color: 'info' });
    }
    // Tabs, each with a window: more windows and tabs than the caps.
    await d.command(`for _ in range(${over(STATE_LIMITS.tabs)}) | tabnew | endfor | tabfirst`);
    const state = await d.ok('get_state');
    const windows = state.windows as WindowState[];
    expect(windows).toHaveLength(STATE_LIMITS.windows);
    expect(windows[0]?.folds).toHaveLength(STATE_LIMITS.foldsPerWindow);
    expect(windows[0]?.folds_truncated).toBe(true);
    expect(state.tabs).toHaveLength(STATE_LIMITS.tabs);
    expect(state.marks).toHaveLength(STATE_LIMITS.marks);
    expect(state.decorations).toHaveLength(STATE_LIMITS.decorations);
    expect((state.diagnostics as { buffers: unknown[] }).buffers).toHaveLength(STATE_LIMITS.diagnosticBuffers);
    expect(state).toMatchObject({
      windows_truncated: true,
      tabs_truncated: true,
      marks_truncated: true,
      decorations_truncated: true,
      diagnostics: { buffers_truncated: true, error: over(STATE_LIMITS.diagnosticBuffers) },
    });
    expect(jsonBytes(state)).toBeLessThanOrEqual(LIMITS.maxResultBytes);
    await d.command('silent! tabonly');
  });

  it(`stays within ${LIMITS.maxResultBytes / 1024} KB when buffers have very long names and lines`, async () => {
    // 200 buffers whose names are ~1 KB each, and windows on lines of ~1 KB: far more than fits.
    await d.command(
      `for i in range(1, 200) | let g:b = bufadd(repeat('ñ', 500) . i) | call setbufvar(g:b, '&buflisted', 1) | call bufload(g:b)` +
        ` | call setbufline(g:b, 1, repeat([repeat('"', 1000)], 20)) | if i <= 40 | execute 'tab sbuffer ' . g:b | endif | endfor`,
    );
    for (const tool of ['get_state', 'get_state_brief']) {
      const state = await d.ok(tool);
      // Cut by size, well before the count cap.
      expect(state.buffers_truncated).toBe(true);
      expect((state.buffers as unknown[]).length).toBeLessThan(LIMITS.stateMaxBuffers);
      expect(jsonBytes(state)).toBeLessThanOrEqual(LIMITS.maxResultBytes);
      expect(jsonBytes(state)).toBeGreaterThan(LIMITS.maxResultBytes / 2);
    }
    expect((await d.ok('get_state')).windows_truncated).toBe(true);
  });
});

// Vim's popup windows belong to no tab page; a focused one (a terminal popup) is the current window.
describe('get_state on Vim with a focused terminal popup', () => {
  let d: Driver;
  beforeAll(async () => {
    d = await vimDriver({ files: { 'a.txt': 'a1\n' }, open: ['a.txt'] });
  });
  afterAll(() => d.stop());

  it('gives the popup as the active, floating window of the current tab, and lists it nowhere else', async () => {
    const popup = await d.expr<number>("popup_create(term_start('cat', {'hidden': 1}), {'minwidth': 20, 'minheight': 3})");
    expect(await d.expr('win_getid()')).toBe(popup);
    const state = await d.ok('get_state');
    const windows = state.windows as WindowState[];
    expect(windows[0]).toMatchObject({ win: popup, role: 'active', floating: true, tab: 1 });
    expect(windows.slice(1).every((w) => !w.floating && w.win !== popup)).toBe(true);
    expect(state.tabs).toEqual([{ tab: 1, current: true, windows: [await d.expr("win_getid(1)")] }]);
  });
});
