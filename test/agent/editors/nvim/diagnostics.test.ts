// get_diagnostics on a real Neovim, what only Neovim can show (the shared cases are in
// diagnostics-both): hints, and diagnostics with neither source nor code, which ALE never gives
// (it has no hint type and always names its linter).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nvimDriver, type NvimDriver } from '../../../helpers/editors.ts';

describe('get_diagnostics on Neovim', () => {
  let f: NvimDriver;
  beforeAll(async () => {
    f = await nvimDriver({ files: { 'a.txt': 'one\ntwo\n' }, open: ['a.txt'] });
  });
  afterAll(() => f.stop());

  it('gives hints, and null source and code when the producer gave none', async () => {
    await f.nvim.lua('vim.diagnostic.set(vim.api.nvim_create_namespace("test"), 1, {{lnum = 1, col = 0, end_col = 3, severity = 4, message = "a hint"}})');
    expect(await f.ok('get_diagnostics', { severity: 'hint', severity_match: 'exact' })).toMatchObject({
      total: 1,
      counts: { error: 0, warn: 0, info: 0, hint: 1 },
      diagnostics: [{ buf: 1, line: 2, col: 1, end_line: 2, end_col: 4, severity: 'hint', message: 'a hint', source: null, code: null }],
    });
  });
});
