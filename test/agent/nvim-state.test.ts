// get_state on a real Neovim: the brief's fields plus every window (folds, indent, visible lines),
// tabs, lowercase marks, the visual selection, diagnostic counts and our decorations; every list
// capped, flagged when cut, and the whole result within LIMITS.maxResultBytes.
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS, STATE_LIMITS } from '../../protocol/index.ts';
import { startEditor, waitFor, type EditorFixture } from './support.ts';

const UNI = 'héllo wörld — 日本語 🎉';
const A = [UNI, ...Array.from({ length: 29 }, (_, i) => `a${i + 2} ünï`)];

interface WindowState {
  win: number;
  role: string;
  tab: number;
  buf: number;
  floating: boolean;
  top_line: number;
  bottom_line: number;
  cursor: { line: number; col: number };
  folds: { start_line: number; end_line: number }[];
  folds_truncated: boolean;
  indent: Record<string, unknown>;
}

/** The editor's mode, asked in a way that answers even while it waits for keys. */
async function currentMode(f: EditorFixture): Promise<string> {
  return ((await f.nvim.client.request('nvim_get_mode', [])) as { mode: string }).mode;
}

/** Size of a result as the relay sends it: its JSON text. */
function jsonBytes(data: unknown): number {
  return Buffer.byteLength(JSON.stringify(data), 'utf8');
}

describe('get_state', () => {
  let f: EditorFixture;
  beforeAll(async () => {
    f = await startEditor({ files: { 'a.txt': A.join('\n') + '\n', 'b.txt': 'b1\nb2\n' }, open: ['a.txt', 'b.txt'] });
  });
  afterAll(() => f.stop());
  afterEach(async () => {
    await f.nvim.client.input('<Esc>');
    await waitFor(async () => ((await currentMode(f)) === 'n' ? true : undefined), 5_000, 'normal mode');
    await f.nvim.client.command('silent! only | silent! tabonly | buffer 1');
  });

  it('includes everything the brief says', async () => {
    const [brief, state] = [await f.ok('get_state_brief'), await f.ok('get_state')];
    for (const key of ['mode', 'cwd', 'buffers', 'buffers_truncated', 'modified_buffers'] as const) {
      expect(state[key]).toEqual(brief[key]);
    }
    const [active] = state.windows as WindowState[];
    expect(active).toMatchObject((brief.windows as unknown[])[0] as object);
    expect(state).toMatchObject({
      windows_truncated: false,
      tabs_truncated: false,
      marks_truncated: false,
      decorations_truncated: false,
      selection: null,
    });
    expect(state).not.toHaveProperty('terminals');
  });

  it('lists every window, active first, then the alternate, then by tab, with tabs', async () => {
    await f.nvim.client.command('split b.txt | vsplit | wincmd p');
    await f.nvim.client.command('tabnew');
    await f.nvim.client.command('tabprevious');
    const state = await f.ok('get_state');
    const windows = state.windows as WindowState[];
    const current = await f.nvim.lua<number>('return vim.api.nvim_get_current_win()');
    const previous = await f.nvim.lua<number>('return vim.fn.win_getid(vim.fn.winnr("#"))');
    expect(windows.map((w) => w.role)).toEqual(['active', 'alternate', 'other', 'other']);
    expect(windows[0]?.win).toBe(current);
    expect(windows[1]?.win).toBe(previous);
    expect(windows.map((w) => w.tab)).toEqual([1, 1, 1, 2]);
    const tab1 = await f.nvim.lua<number[]>('return vim.api.nvim_tabpage_list_wins(vim.api.nvim_list_tabpages()[1])');
    expect(state.tabs).toEqual([
      { tab: 1, current: true, windows: tab1 },
      { tab: 2, current: false, windows: [windows[3]?.win] },
    ]);
    expect(new Set(windows.slice(0, 3).map((w) => w.win))).toEqual(new Set(tab1));
  });

  it('gives each window its visible lines, floating flag and indent settings', async () => {
    await f.nvim.lua('vim.bo.expandtab = true; vim.bo.tabstop = 4; vim.bo.shiftwidth = 0; vim.bo.softtabstop = -1');
    await f.nvim.lua('vim.api.nvim_win_set_cursor(0, {20, 0})');
    const float = await f.nvim.lua<number>(
      'local b = vim.fn.bufnr("b.txt"); return vim.api.nvim_open_win(b, false, {relative = "editor", row = 1, col = 1, width = 10, height = 2})',
    );
    const windows = (await f.ok('get_state')).windows as WindowState[];
    const [active] = windows;
    expect(active).toMatchObject({ floating: false, indent: { expandtab: true, tabstop: 4, shiftwidth: 4, softtabstop: 4 } });
    const [top, bottom] = await f.nvim.lua<number[]>('return {vim.fn.line("w0"), vim.fn.line("w$")}');
    expect(active).toMatchObject({ top_line: top, bottom_line: bottom });
    expect(active!.top_line).toBeLessThanOrEqual(20);
    expect(active!.bottom_line).toBeGreaterThanOrEqual(20);
    const floating = windows.find((w) => w.win === float);
    expect(floating).toMatchObject({ floating: true, role: 'other', top_line: 1, bottom_line: 2 });
    expect(floating?.indent).toMatchObject({ expandtab: false, tabstop: 8, shiftwidth: 8, softtabstop: 0 });
    await f.nvim.lua('vim.api.nvim_win_close(..., true)', float);
  });

  it('lists closed folds, not open ones', async () => {
    await f.nvim.client.command('normal! zE');
    await f.nvim.client.command('3,5fold | 10,14fold | 11,12fold | 20,21fold | 20foldopen');
    const [active] = (await f.ok('get_state')).windows as WindowState[];
    expect(active?.folds).toEqual([
      { start_line: 3, end_line: 5 },
      { start_line: 10, end_line: 14 },
    ]);
    expect(active?.folds_truncated).toBe(false);
    await f.nvim.client.command('normal! zE');
  });

  it('lists lowercase marks with columns in characters', async () => {
    // Mark a on "日" (character 15 of line 1), mark c on line 3; uppercase and special marks are left out.
    await f.nvim.lua('vim.api.nvim_win_set_cursor(0, {1, #"héllo wörld — "}); vim.cmd("normal! ma")');
    await f.nvim.lua('vim.api.nvim_win_set_cursor(0, {3, 2}); vim.cmd("normal! mcmZ")');
    const marks = (await f.ok('get_state')).marks;
    expect(marks).toEqual([
      { mark: 'a', buf: 1, path: join(f.nvim.cwd, 'a.txt'), line: 1, col: 15 },
      { mark: 'c', buf: 1, path: join(f.nvim.cwd, 'a.txt'), line: 3, col: 3 },
    ]);
  });

  it.each([
    ['v', 'char'],
    ['V', 'line'],
    ['<C-v>', 'block'],
  ])('gives the selection in visual mode (%s), in characters, start before end', async (keys, kind) => {
    // From "n" (character 5 of line 2) up to line 1 and over to "r" (character 9): a backward selection.
    // Another window too, so that reading it (nvim_win_call) runs while the selection is active.
    await f.nvim.client.command('vsplit b.txt | wincmd p');
    await f.nvim.lua('vim.api.nvim_win_set_cursor(0, {2, #"a2 ü"})');
    await f.nvim.client.input(`${keys}k0llllllll`);
    const mode = { v: 'v', V: 'V', '<C-v>': '\x16' }[keys];
    await waitFor(async () => ((await currentMode(f)) === mode ? true : undefined), 5_000, `mode ${keys}`);
    const state = await f.ok('get_state');
    expect(state.mode).toBe(mode);
    expect(state.selection).toEqual({
      kind,
      buf: 1,
      path: join(f.nvim.cwd, 'a.txt'),
      start: { line: 1, col: 9 },
      end: { line: 2, col: 5 },
    });
    expect(await currentMode(f)).toBe(mode);
    expect((await f.ok('get_state')).selection).toEqual(state.selection);
  });

  it('counts diagnostics per severity and per buffer', async () => {
    await f.nvim.lua(`
      local ns = vim.api.nvim_create_namespace('test-state')
      local E, W, H = vim.diagnostic.severity.ERROR, vim.diagnostic.severity.WARN, vim.diagnostic.severity.HINT
      vim.diagnostic.set(ns, 1, {{lnum = 0, col = 0, severity = E, message = 'e'}, {lnum = 1, col = 0, severity = W, message = 'w'}, {lnum = 2, col = 0, severity = W, message = 'w2'}})
      local b = vim.fn.bufnr('b.txt'); vim.fn.bufload(b)
      vim.diagnostic.set(ns, b, {{lnum = 0, col = 0, severity = H, message = 'h'}})
    `);
    const b = await f.nvim.lua<number>('return vim.fn.bufnr("b.txt")');
    expect((await f.ok('get_state')).diagnostics).toEqual({
      error: 1,
      warn: 2,
      info: 0,
      hint: 1,
      buffers: [
        { buf: 1, path: join(f.nvim.cwd, 'a.txt'), error: 1, warn: 2, info: 0, hint: 0 },
        { buf: b, path: join(f.nvim.cwd, 'b.txt'), error: 0, warn: 0, info: 0, hint: 1 },
      ],
      buffers_truncated: false,
    });
    await f.nvim.lua('vim.diagnostic.reset()');
  });

  it('describes the decorations added with highlight_range and add_virtual_text', async () => {
    const hl = await f.ok('highlight_range', { buffer: 1, start: { line: 1, col: 15 }, end: { line: 1, col: 18 }, color: 'warning' });
    const eol = await f.ok('add_virtual_text', { buffer: 1, line: 2, text: 'note — 日本 🎉', position: 'eol', color: 'error' });
    const above = await f.ok('add_virtual_text', { buffer: 1, line: 4, text: 'one\ntwo', position: 'above' });
    const path = join(f.nvim.cwd, 'a.txt');
    expect((await f.ok('get_state')).decorations).toEqual([
      { id: hl.id, buf: 1, path, kind: 'highlight', start: { line: 1, col: 15 }, end: { line: 1, col: 18 }, text: null, position: null, color: 'warning' },
      { id: eol.id, buf: 1, path, kind: 'virtual_text', start: { line: 2, col: 1 }, end: null, text: 'note — 日本 🎉', position: 'eol', color: 'error' },
      { id: above.id, buf: 1, path, kind: 'virtual_text', start: { line: 4, col: 1 }, end: null, text: 'one\ntwo', position: 'above', color: 'info' },
    ]);
    await f.ok('clear_decorations', { buffer: 1 });
  });

  it('lists terminals when there are some', async () => {
    const term = await f.nvim.lua<number>('local b = vim.api.nvim_create_buf(true, false); vim.api.nvim_open_term(b, {}); return b');
    expect((await f.ok('get_state')).terminals).toEqual([{ buf: term, name: expect.any(String), visible: false }]);
    await f.nvim.client.command(`bwipeout! ${term}`);
  });
});

describe('get_state caps', () => {
  let f: EditorFixture;
  beforeAll(async () => {
    f = await startEditor({ files: { 'a.txt': Array.from({ length: 400 }, (_, i) => `line ${i + 1}`).join('\n') + '\n' }, open: ['a.txt'] });
  });
  afterAll(() => f.stop());

  it('caps every list and flags each cut', async () => {
    const over = (n: number): number => n + 5;
    await f.nvim.lua(
      `local caps = ...
      -- Closed folds in the current window.
      for i = 0, caps.folds - 1 do vim.cmd((i * 3 + 1) .. ',' .. (i * 3 + 2) .. 'fold') end
      -- Buffers with all 26 marks, diagnostics and decorations.
      local ns = vim.api.nvim_create_namespace('test-caps')
      local decorations = 0
      for i = 1, caps.diagnostic_buffers do
        local b = vim.api.nvim_create_buf(true, false)
        vim.api.nvim_buf_set_lines(b, 0, -1, true, {'x', 'y'})
        vim.diagnostic.set(ns, b, {{lnum = 0, col = 0, severity = 1, message = 'm'}})
        if i * 26 <= caps.marks + 26 then
          for c = string.byte('a'), string.byte('z') do vim.api.nvim_buf_set_mark(b, string.char(c), 1, 0, {}) end
        end
        if decorations < caps.decorations then
          for _ = 1, 10 do
            vim.api.nvim_buf_set_extmark(b, __vimrelay.decoration_ns, 0, 0, {end_col = 1, hl_group = __vimrelay.decoration_group('info')})
            decorations = decorations + 1
          end
        end
      end
      for _ = 1, caps.tabs do vim.cmd('tabnew') end
      vim.cmd('tabfirst')
      local scratch = vim.api.nvim_create_buf(false, true)
      for _ = 1, caps.windows do
        vim.api.nvim_open_win(scratch, false, {relative = 'editor', row = 0, col = 0, width = 5, height = 1})
      end`,
      {
        folds: over(STATE_LIMITS.foldsPerWindow),
        marks: over(STATE_LIMITS.marks),
        decorations: over(STATE_LIMITS.decorations),
        diagnostic_buffers: over(STATE_LIMITS.diagnosticBuffers),
        tabs: over(STATE_LIMITS.tabs),
        windows: over(STATE_LIMITS.windows),
      },
    );
    const state = await f.ok('get_state');
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
  });

  it(`stays within ${LIMITS.maxResultBytes / 1024} KB when buffers have very long names and lines`, async () => {
    // 200 buffers whose names are ~1 KB each, and windows on lines of ~1 KB: far more than fits.
    await f.nvim.lua(`
      for i = 1, 200 do
        local b = vim.api.nvim_create_buf(true, false)
        vim.api.nvim_buf_set_name(b, string.rep('ñ', 500) .. i)
        vim.api.nvim_buf_set_lines(b, 0, -1, true, vim.fn['repeat']({string.rep('"', 1000)}, 20))
        if i <= 40 then vim.api.nvim_open_win(b, false, {relative = 'editor', row = 0, col = 0, width = 5, height = 1}) end
      end`);
    for (const tool of ['get_state', 'get_state_brief']) {
      const state = await f.ok(tool);
      // Cut by size, well before the count cap.
      expect(state.buffers_truncated).toBe(true);
      expect((state.buffers as unknown[]).length).toBeLessThan(LIMITS.stateMaxBuffers);
      expect(jsonBytes(state)).toBeLessThanOrEqual(LIMITS.maxResultBytes);
      expect(jsonBytes(state)).toBeGreaterThan(LIMITS.maxResultBytes / 2);
    }
    expect((await f.ok('get_state')).windows_truncated).toBe(true);
  });
});
