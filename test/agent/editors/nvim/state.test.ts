// get_state on a real Neovim, what only Neovim has (the shared cases, get_state_brief's too, are in
// state-both): floating windows, which Vim does not have (its popups are no windows of a tab page).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nvimDriver, type NvimDriver } from '../../../helpers/editors.ts';

interface WindowState {
  win: number;
  role: string;
  floating: boolean;
  top_line: number;
  bottom_line: number;
  indent: Record<string, unknown>;
}

describe('get_state on Neovim', () => {
  let f: NvimDriver;
  beforeAll(async () => {
    f = await nvimDriver({ files: { 'a.txt': 'a1\na2\n', 'b.txt': 'b1\nb2\nb3\n' }, open: ['a.txt', 'b.txt'] });
  });
  afterAll(() => f.stop());

  it('lists floating windows as such, with their visible lines and their buffer\'s indent settings', async () => {
    await f.nvim.lua('vim.bo.expandtab = true');
    const float = await f.nvim.lua<number>(
      'local b = vim.fn.bufnr("b.txt"); return vim.api.nvim_open_win(b, false, {relative = "editor", row = 1, col = 1, width = 10, height = 2})',
    );
    const windows = (await f.ok('get_state')).windows as WindowState[];
    expect(windows[0]).toMatchObject({ role: 'active', floating: false, indent: { expandtab: true } });
    expect(windows.find((w) => w.win === float)).toMatchObject({
      floating: true,
      role: 'other',
      top_line: 1,
      bottom_line: 2,
      indent: { expandtab: false, tabstop: 8, shiftwidth: 8, softtabstop: 0 },
    });
  });
});
