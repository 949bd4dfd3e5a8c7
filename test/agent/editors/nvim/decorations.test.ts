// Decorations on a real Neovim, for what only Neovim does; every other case runs on both editors in
// decorations-both.test.ts: virtual lines above line 1 scrolled into view (topfill), a decoration
// kept on a line whose change is undone, vim.diagnostic's own extmarks left alone, and the Lua
// lookup get_state reports colors with.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DECORATION_COLORS } from '../../../../protocol/index.ts';
import { nvimDriver, type NvimDriver } from '../../../helpers/editors.ts';

describe('decorations on Neovim only', () => {
  let f: NvimDriver;
  let main: number;
  /** How many of our extmarks `buf` has. */
  const marks = async (buf: number): Promise<number> =>
    (await f.nvim.lua<unknown[]>('return vim.api.nvim_buf_get_extmarks(..., vim.api.nvim_create_namespace("vimrelay"), 0, -1, {})', buf)).length;

  beforeAll(async () => {
    f = await nvimDriver({ files: { 'main.txt': 'first\nsecond\nthird\nfourth\n' }, open: ['main.txt'] });
    main = await f.nvim.lua<number>('return vim.api.nvim_get_current_buf()');
  });
  beforeEach(() => f.ok('clear_decorations', { all_buffers: true }));
  afterAll(() => f.stop());

  // Neovim only: lines above line 1 are filler (topfill); Vim draws text above a line as part of it.
  it('scrolls a window at the top so that lines above line 1 show', async () => {
    await f.nvim.client.command('normal! gg');
    await f.ok('add_virtual_text', { line: 1, text: 'one\ntwo', position: 'above' });
    expect(await f.nvim.lua('return vim.fn.winsaveview().topfill')).toBe(2);
    await f.ok('add_virtual_text', { line: 1, text: 'three', position: 'above' });
    expect(await f.nvim.lua('return vim.fn.winsaveview().topfill')).toBe(3);
  });

  // Vim: properties belong to the line's text, so undoing a change to a decorated line drops them.
  it('keeps a decoration on a line whose change is undone', async () => {
    await f.nvim.lua('vim.api.nvim_buf_set_lines(0, 3, 4, true, { "fourth, edited" }); vim.bo.undolevels = vim.bo.undolevels');
    await f.ok('highlight_range', { start: { line: 4, col: 1 }, end: { line: 4, col: 3 } });
    await f.ok('add_virtual_text', { line: 4, text: 'stays' });
    await f.nvim.client.command('undo');
    expect(await f.lines(0)).toEqual(['first', 'second', 'third', 'fourth']);
    expect(await marks(main)).toBe(2);
  });

  // Neovim only: vim.diagnostic shows diagnostics as extmarks of its own namespaces (virtual text,
  // underlines, and on 0.10+ signs too): decorations count, list and clear only ours beside them.
  it("counts, lists and clears its decorations only, a diagnostic's own extmarks left alone", async () => {
    // The extmarks vim.diagnostic keeps for the linter's diagnostics, in the namespaces it made for them.
    const theirs = 'local n = 0; for _, ns in pairs(vim.diagnostic.get_namespace(vim.api.nvim_create_namespace("a-linter")).user_data) do if type(ns) == "number" then n = n + #vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, {}) end end; return n';
    await f.nvim.lua('vim.diagnostic.set(vim.api.nvim_create_namespace("a-linter"), 0, {{lnum = 1, col = 0, end_col = 3, severity = vim.diagnostic.severity.ERROR, message = "a problem"}})');
    const before = await f.nvim.lua<number>(theirs);
    expect(before).toBeGreaterThan(0);
    const hl = await f.ok('highlight_range', { start: { line: 2, col: 1 }, end: { line: 2, col: 4 } });
    const note = await f.ok('add_virtual_text', { line: 2, text: 'ours' });
    const listed = (await f.ok('get_state')).decorations as { id: number }[];
    expect(listed.map((x) => x.id).sort()).toEqual([hl.id, note.id].sort());
    expect(await f.ok('clear_decorations', {})).toMatchObject({ removed: 2 });
    expect(await f.nvim.lua<number>(theirs)).toBe(before);
    expect(await f.nvim.lua('return #vim.diagnostic.get(0)')).toBe(1);
  });

  // Neovim only: the Lua helper get_state uses to name a mark's color.
  it('maps each VimRelay<Color> group back to its color', async () => {
    const groups = DECORATION_COLORS.map((c) => `VimRelay${c.charAt(0).toUpperCase()}${c.slice(1)}`);
    expect(await f.nvim.lua('return vim.tbl_map(__vimrelay.latest.decoration_color, ...)', groups)).toEqual([...DECORATION_COLORS]);
  });
});
