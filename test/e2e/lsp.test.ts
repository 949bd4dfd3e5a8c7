// Code navigation end to end: an MCP SDK client through the relay (local workerd + `vimrelay agent`)
// and through `vimrelay serve --stdio`, to a real Neovim whose user config (test/fixtures/lsp/
// init.lua) runs the real pyright on the Python fixture project. Every lsp_* tool is listed and
// answers with results that match its outputSchema (helpers/mcp.ts callOk): a definition in another
// file, references paged with the cursor, hover, a file's symbol tree and a project query; a rename
// previewed (nothing changes), then applied with the changedtick (both files changed in their
// buffers, nothing saved).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callErr, callOk } from '../helpers/mcp.ts';
import { fixtureFiles, serverConfig, SERVERS, type ServerCase } from '../helpers/lsp.ts';
import { waitFor } from '../helpers/wait.ts';
import { START_CHAIN, type Chain } from './chains.ts';

const PYRIGHT = SERVERS.find((s) => s.name === 'pyright') as ServerCase;
const INIT_LUA = join(import.meta.dirname, '../fixtures/lsp/init.lua');
const LSP_TOOLS = ['lsp_definition', 'lsp_references', 'lsp_hover', 'lsp_symbols', 'lsp_calls', 'lsp_types', 'lsp_rename', 'lsp_code_actions', 'lsp_format'];
/** The lsp_* tools that may edit (their previews read). */
const EDITING = ['lsp_rename', 'lsp_code_actions', 'lsp_format'];

describe.each(['relay', 'stdio'] as const)('code navigation through %s', (kind) => {
  let chain: Chain;
  const at = (place: { file: string; line: number; col: number }) => ({ editor: chain.editorId, buffer: place.file, line: place.line, col: place.col });

  beforeAll(async () => {
    chain = await START_CHAIN[kind]({
      files: fixtureFiles(PYRIGHT.fixture),
      open: [PYRIGHT.call.file],
      era: 'modern',
      nvim: { env: { VIMRELAY_TEST_LSP: serverConfig([PYRIGHT]) }, args: ['--cmd', `luafile ${INIT_LUA}`] },
    });
    await waitFor(async () => ((await chain.nvim.lua<boolean>('return vim.b.test_lsp_ready == true')) ? true : undefined), 60_000, 'pyright to analyse the file');
  }, 120_000);
  afterAll(() => chain?.stop());

  it('lists the lsp tools with their schemas and annotations', async () => {
    const { tools } = await chain.client.listTools();
    const lsp = tools.filter((t) => LSP_TOOLS.includes(t.name));
    expect(lsp.map((t) => t.name)).toEqual(LSP_TOOLS);
    for (const t of lsp) expect(t.annotations?.readOnlyHint, t.name).toBe(!EDITING.includes(t.name));
  });

  it('navigates: a definition in another file, references paged, hover, symbols', async () => {
    const def = await callOk(chain.client, 'lsp_definition', at(PYRIGHT.member));
    expect(def.locations).toEqual([expect.objectContaining({ path: join(chain.nvim.cwd, PYRIGHT.memberDefinition.file), line: PYRIGHT.memberDefinition.line, col: PYRIGHT.memberDefinition.col })]);
    const first = await callOk(chain.client, 'lsp_references', { ...at(PYRIGHT.call), max_results: 3 });
    expect(first).toMatchObject({ total: 4, truncated: true, withheld: 0 });
    const rest = await callOk(chain.client, 'lsp_references', { ...at(PYRIGHT.call), max_results: 3, cursor: first.cursor });
    expect(rest).toMatchObject({ total: 4, truncated: false, cursor: null });
    const count = (r: Record<string, unknown>): number => (r.files as { references: unknown[] }[]).reduce((n, f) => n + f.references.length, 0);
    expect(count(first) + count(rest)).toBe(4);
    const hover = await callOk(chain.client, 'lsp_hover', at(PYRIGHT.call));
    expect(hover.signature).toMatch(PYRIGHT.signature);
    const symbols = await callOk(chain.client, 'lsp_symbols', { editor: chain.editorId, query: PYRIGHT.query });
    expect(symbols.symbols).toContainEqual(expect.objectContaining({ name: PYRIGHT.querySymbol, kind: 'function' }));
    const tree = await callOk(chain.client, 'lsp_symbols', { editor: chain.editorId });
    expect(tree).toMatchObject({ scope: 'document', truncated: false });
  });

  it('previews a rename changing nothing, refuses an apply without the changedtick, then applies it unsaved', async () => {
    const rename = { ...at(PYRIGHT.rename), new_name: PYRIGHT.renameTo };
    const preview = await callOk(chain.client, 'lsp_rename', rename);
    expect((preview.files as { path: string }[]).map((f) => f.path.slice(chain.nvim.cwd.length + 1))).toEqual(PYRIGHT.renamed);
    expect(await chain.nvim.lua('return vim.bo.modified')).toBe(false);
    expect(await callErr(chain.client, 'lsp_rename', { ...rename, apply: true })).toMatchObject({ code: 'INVALID_ARGUMENT' });
    const tick = await chain.nvim.lua<number>('return vim.api.nvim_buf_get_changedtick(0)');
    const applied = await callOk(chain.client, 'lsp_rename', { ...rename, apply: true, expected_changedtick: tick });
    expect(applied).toMatchObject({ applied: true, edit_count: preview.edit_count });
    for (const file of PYRIGHT.renamed) {
      const text = await chain.nvim.lua<string[]>('return vim.api.nvim_buf_get_lines(vim.fn.bufnr(...), 0, -1, true)', file);
      expect(text.join('\n'), file).toContain(PYRIGHT.renameTo);
      expect(readFileSync(join(chain.nvim.cwd, file), 'utf8'), `${file} on disk`).toBe(fixtureFiles(PYRIGHT.fixture)[file]);
    }
  });
});
