// Code actions, formatting and call hierarchies end to end: an MCP SDK client through the relay
// (local workerd + `vimrelay agent`) and through `vimrelay serve --stdio`, to a real Neovim whose
// user config (test/fixtures/lsp/init.lua) runs the real clangd on the C fixture project with a file
// that gives it something to offer (helpers/lsp-actions.ts ACTIONS_C). The results match their
// outputSchema (helpers/mcp.ts callOk): the fix-it of a diagnostic listed, previewed changing
// nothing, refused with a stale changedtick, then applied unsaved; one line formatted; the function
// a call hierarchy is of; and what clangd 14 lacks (outgoing calls, type hierarchy) is UNSUPPORTED.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callErr, callOk } from '../helpers/mcp.ts';
import { fixtureFiles, serverConfig } from '../helpers/lsp.ts';
import { ACTIONS_C, CLANGD, linesOf, type Action } from '../helpers/lsp-actions.ts';
import { waitFor } from '../helpers/wait.ts';
import { START_CHAIN, type Chain } from './chains.ts';

const INIT_LUA = join(import.meta.dirname, '../fixtures/lsp/init.lua');
const FILE = 'actions.c';

describe.each(['relay', 'stdio'] as const)('code actions and formatting through %s', (kind) => {
  let chain: Chain;
  const lines = (): Promise<string[]> => chain.nvim.lua<string[]>('return vim.api.nvim_buf_get_lines(vim.fn.bufnr(...), 0, -1, true)', FILE);
  const tick = (): Promise<number> => chain.nvim.lua<number>('return vim.api.nvim_buf_get_changedtick(vim.fn.bufnr(...))', FILE);
  const undo = (): Promise<unknown> => chain.nvim.lua('vim.api.nvim_buf_call(vim.fn.bufnr(...), function() vim.cmd("silent undo") end)', FILE);

  beforeAll(async () => {
    chain = await START_CHAIN[kind]({
      files: { ...fixtureFiles(CLANGD.fixture), [FILE]: ACTIONS_C },
      open: [FILE, ...CLANGD.open],
      era: 'modern',
      nvim: { env: { VIMRELAY_TEST_LSP: serverConfig([CLANGD]) }, args: ['--cmd', `luafile ${INIT_LUA}`] },
    });
    // The missing `;` is diagnosed: clangd has analysed the file.
    await waitFor(async () => ((await chain.nvim.lua<boolean>('return vim.b[vim.fn.bufnr(...)].test_lsp_ready == true', FILE)) ? true : undefined), 60_000, 'clangd to analyse the file');
  }, 120_000);
  afterAll(() => chain?.stop());

  it('lists the fix-it of a diagnostic, previews it changing nothing, refuses a stale changedtick, and applies it unsaved', async () => {
    const at = { editor: chain.editorId, buffer: FILE, line: 6, col: 3 };
    const list = await callOk(chain.client, 'lsp_code_actions', at);
    const [fix] = list.actions as Action[];
    expect(fix).toMatchObject({ title: "insert ';'", kind: 'quickfix', preferred: true, command: null });
    const before = await tick();
    const preview = await callOk(chain.client, 'lsp_code_actions', { ...at, id: fix?.id });
    expect(preview).toMatchObject({ applied: false, edit_count: 1, files: [{ path: join(chain.nvim.cwd, FILE), changedtick: null }] });
    expect(await tick()).toBe(before);
    expect(await callErr(chain.client, 'lsp_code_actions', { ...at, id: fix?.id, apply: true, expected_changedtick: before + 1 })).toMatchObject({ code: 'STALE_CHANGEDTICK' });
    const applied = await callOk(chain.client, 'lsp_code_actions', { ...at, id: fix?.id, apply: true, expected_changedtick: before });
    expect(applied).toMatchObject({ applied: true, files: [{ changedtick: await tick() }] });
    expect((await lines())[4]).toBe('  int x = 3;');
    expect(readFileSync(join(chain.nvim.cwd, FILE), 'utf8')).toBe(ACTIONS_C);
    await undo();
    expect(await lines()).toEqual(linesOf(ACTIONS_C));
  });

  it('formats one line with apply, as one undo step', async () => {
    const applied = await callOk(chain.client, 'lsp_format', { editor: chain.editorId, buffer: FILE, start_line: 8, end_line: 8, apply: true, expected_changedtick: await tick() });
    expect(applied).toMatchObject({ server: 'clangd', applied: true });
    expect((await lines())[7]).toBe('double twice(void) { return scaled(1); }');
    await undo();
    expect(await lines()).toEqual(linesOf(ACTIONS_C));
  });

  it('names the function asked about; outgoing calls and the type hierarchy are UNSUPPORTED in clangd 14', async () => {
    // Which callers clangd knows depends on its index of the other files (the editor tests check them).
    const at = { editor: chain.editorId, buffer: 'geometry.c', line: 3, col: 8 };
    expect(await callOk(chain.client, 'lsp_calls', at)).toMatchObject({ server: 'clangd', of: { name: 'total_area', kind: 'function', path: join(chain.nvim.cwd, 'geometry.c') } });
    expect(await callErr(chain.client, 'lsp_calls', { ...at, direction: 'outgoing' })).toMatchObject({ code: 'UNSUPPORTED', reason: 'method' });
    expect(await callErr(chain.client, 'lsp_types', { editor: chain.editorId, buffer: 'geometry.h', line: 5, col: 8 })).toMatchObject({ code: 'UNSUPPORTED', reason: 'method' });
  });
});
