// never_read end to end: an MCP SDK client through the relay (local workerd + `vimrelay agent`) and
// through `vimrelay serve --stdio`, to a real Neovim holding `.env`. The processes run with their
// isolated home's policy file, which keeps the default never_read list: read_buffer of `.env` is
// PERMISSION_DENIED naming the glob, and grep_buffers, get_state_brief, run_command and
// get_diagnostics answer without its text (get_diagnostics without its counts either). The secret
// never appears in any result.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callErr, callOk } from '../helpers/mcp.ts';
import { START_CHAIN, type Chain } from './chains.ts';

const SECRET = 'API_TOKEN=sk-live-e2e-0123456789';

describe.each(['relay', 'stdio'] as const)('never_read through %s', (kind) => {
  let chain: Chain;
  const noSecret = (value: unknown): void => expect(JSON.stringify(value)).not.toContain('sk-live-e2e');

  beforeAll(async () => {
    chain = await START_CHAIN[kind]({ files: { 'notes.md': 'TOKEN notes\n', '.env': `TOKEN\n${SECRET}\n` }, open: ['notes.md', '.env'], era: 'modern' });
    // .env loaded (so grep_buffers searches it and getbufline reads it), notes.md current.
    await chain.nvim.lua("vim.fn.bufload(vim.fn.bufadd('.env'))");
  }, 90_000);
  afterAll(() => chain?.stop());

  it('refuses read_buffer of .env with the glob, and leaves its text out of every other result', async () => {
    const editor = chain.editorId;
    const err = await callErr(chain.client, 'read_buffer', { editor, buffer: '.env' });
    expect(err).toMatchObject({ code: 'PERMISSION_DENIED', glob: '.env*' });
    noSecret(err);
    const grep = await callOk(chain.client, 'grep_buffers', { editor, pattern: 'TOKEN', buffers: ['notes.md'] });
    expect((grep.hits as unknown[]).length).toBe(1);
    const all = await callOk(chain.client, 'grep_buffers', { editor, pattern: 'TOKEN' });
    expect((all.hits as { path: string }[]).map((h) => h.path.endsWith('notes.md'))).toEqual([true]);
    noSecret(all);
    const brief = await callOk(chain.client, 'get_state_brief', { editor });
    noSecret(brief);
    const run = await callOk(chain.client, 'run_command', { editor, commands: 'echo getbufline(bufnr(".env"), 2)' });
    expect((run.results as { output: string }[])[0]?.output).toBe('[withheld: never_read]');
    noSecret(run);
  });

  it('get_diagnostics over every buffer counts none of .env, its items, counts or total', async () => {
    const set = (file: string, severity: number, message: string): Promise<unknown> =>
      chain.nvim.lua('local file, severity, message = ...; vim.diagnostic.set(vim.api.nvim_create_namespace("e2e"), vim.fn.bufnr(file), { { lnum = 0, col = 0, severity = severity, message = message } })', file, severity, message);
    await set('.env', 1, `bad ${SECRET}`);
    await set('notes.md', 2, 'a note');
    try {
      const all = await callOk(chain.client, 'get_diagnostics', { editor: chain.editorId });
      expect(all).toMatchObject({ total: 1, counts: { error: 0, warn: 1, info: 0, hint: 0 }, truncated: false });
      expect((all.diagnostics as { message: string }[]).map((x) => x.message)).toEqual(['a note']);
      noSecret(all);
    } finally {
      await chain.nvim.lua('vim.diagnostic.reset()');
    }
  });
});
