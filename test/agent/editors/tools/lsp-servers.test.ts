// The lsp_* tools when the server is missing or slow, on Neovim and on Vim (ALE, and vim-lsp): no
// server attached to the buffer (none configured, or one that cannot start; on Vim, ALE or vim-lsp
// with none for the filetype, or neither loaded) answers UNSUPPORTED naming what the editor would
// need; a real server (clangd) made slow (its process stopped) answers TIMEOUT at the call's
// deadline, and CANCELLED when the client cancels, while the editor goes on answering other
// calls, and the editor sends the server $/cancelRequest for the request (seen by
// test/fixtures/lsp/tap.mjs on the server's stdin); once the server runs again it answers the
// next call. A server killed while a request waits answers EDITOR_ERROR saying it exited, not
// TIMEOUT at the deadline (on Vim, the next call starts it again and is answered); an agent that
// goes away (its channel closed) while a request waits gets it cancelled in the server. A Vim with
// both clients asks ALE when it has a server installed, else vim-lsp; and every editor sends the
// server the unsaved text of the request's buffer and of other loaded ones.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lspHover } from '../../../../protocol/index.ts';
import { CallCancelled, CallDeadline, type CallControl } from '../../../../agent/editors/call.ts';
import { waitFor, type Driver } from '../../../helpers/editors.ts';
import { clientOf, LSP_EDITORS, lspDriver, SERVERS, TAP, tapMessages, type LspEditor, type ServerCase, type TapMessage } from '../../../helpers/lsp.ts';

const PYRIGHT = SERVERS.find((s) => s.name === 'pyright') as ServerCase;
const hoverAt = { buffer: PYRIGHT.call.file, line: PYRIGHT.call.line, col: PYRIGHT.call.col };

describe.each(LSP_EDITORS)('no language server on %s', (editor) => {
  const client = clientOf(editor);
  type Case = [string, Parameters<typeof lspDriver>[2], RegExp, RegExp];
  const missing: Record<typeof client, [RegExp, RegExp]> = {
    nvim: [/No language server is attached/, /pyright or pylsp/],
    ale: [/ALE has no language server enabled/, /pyright.*g:ale_linters.*or register one with vim-lsp/],
    'vim-lsp': [/vim-lsp has no language server allowed/, /lsp#register_server.*pyright or pylsp.*or enable one in ALE/],
  };
  const failed: Record<typeof client, [RegExp, RegExp]> = {
    nvim: [/No language server is attached/, /pyright or pylsp/],
    ale: [/ALE could not start/, /Install the language server/],
    'vim-lsp': [/vim-lsp could not start pyright/, /Install the language server pyright/],
  };
  const cases: Case[] = [
    ['none configured', { noServer: true }, ...missing[client]],
    ['one that cannot start', {}, ...failed[client]],
    ...(client === 'ale' ? [['neither ALE nor vim-lsp', { noClient: true }, /neither ALE nor vim-lsp is loaded/, /vim-ale.*or vim-lsp.*pyright or pylsp/] as Case] : []),
  ];

  it.each(cases)('%s: UNSUPPORTED, naming what the editor would need', async (what, options, message, hint) => {
    const server = what === 'one that cannot start' ? { ...PYRIGHT, cmd: ['/nonexistent/pyright-langserver', '--stdio'] } : PYRIGHT;
    const d = await lspDriver(client, server, { ...options, ready: false });
    try {
      for (const tool of ['lsp_hover', 'lsp_definition', 'lsp_references', 'lsp_rename']) {
        const r = await d.call(tool, { ...hoverAt, ...(tool === 'lsp_rename' ? { new_name: 'x' } : {}) });
        expect(r, tool).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED', reason: 'no_server', message: expect.stringMatching(message), hint: expect.stringMatching(hint) } });
      }
    } finally {
      await d.stop();
    }
  });
});

/**
 * The server the tapped tests stop, kill and cancel: what they ask of it is the editor's client's
 * part (a request waiting, cancelled, its server gone), so the cheapest real server to start does.
 */
const CLANGD = SERVERS.find((s) => s.name === 'clangd') as ServerCase;
const tappedHover = { buffer: CLANGD.call.file, line: CLANGD.call.line, col: CLANGD.call.col };

/**
 * For the describe it is called in: a driver on `editor` whose clangd runs through the tap (made
 * before its tests, stopped after), the server's pid, and the tap's log of what the editor sent it.
 */
function tappedServer(editor: LspEditor): { d(): Driver; pid(): number; log(): string } {
  let d: Driver | undefined;
  let dir = '';
  // clangd through the tap: ALE's clangd linter, or vim-lsp's server, runs it as its executable.
  const server: ServerCase = { ...CLANGD, cmd: [TAP, ...CLANGD.cmd.slice(1)] };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vimrelay-tap-'));
    const env = { VIMRELAY_TAP_SERVER: CLANGD.cmd[0] ?? '', VIMRELAY_TAP_LOG: join(dir, 'stdin.log'), VIMRELAY_TAP_PID: join(dir, 'pid') };
    d = await lspDriver(clientOf(editor), server, { env });
  }, 90_000);
  afterAll(async () => {
    await d?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    d: () => d as Driver,
    pid: () => Number(readFileSync(join(dir, 'pid'), 'utf8')),
    log: () => join(dir, 'stdin.log'),
  };
}

/** The last hover request the tap at `log` has seen, once there is one. */
const hoverRequest = (log: string): Promise<TapMessage> => waitFor(() => tapMessages(log).filter((m) => m.method === 'textDocument/hover').at(-1), 20_000, 'the hover request');

/** The $/cancelRequest of `request` in the tap's `log`, once it is there. */
const cancelOf = (log: string, request: TapMessage): Promise<TapMessage> =>
  waitFor(() => tapMessages(log).find((m) => m.method === '$/cancelRequest' && m.params?.id === request.id), 20_000, '$/cancelRequest');

describe.each(LSP_EDITORS)('a slow language server on %s', (editor) => {
  const tapped = tappedServer(editor);

  /** Starts a hover with the server stopped, and ends it with `reason`; its outcome, and what the server was sent. */
  const stalled = async (reason: Error) => {
    const d = tapped.d();
    process.kill(tapped.pid(), 'SIGSTOP');
    try {
      const controller = new AbortController();
      const control: CallControl = { signal: controller.signal, deadline: Date.now() + 60_000 };
      let settled = false;
      const hover = d.call('lsp_hover', tappedHover, control).then((r) => ((settled = true), r));
      // The request reached the server; the editor still answers, and the hover still waits.
      const request = await hoverRequest(tapped.log());
      expect(await d.ok('get_state_brief')).toMatchObject({ mode: expect.any(String) });
      expect(await d.lines(await d.bufnr(CLANGD.call.file))).toContain(readFileSync(join(d.cwd, CLANGD.call.file), 'utf8').split('\n')[0]);
      expect(settled).toBe(false);
      controller.abort(reason);
      const outcome = await hover;
      return { outcome, cancel: await cancelOf(tapped.log(), request) };
    } finally {
      process.kill(tapped.pid(), 'SIGCONT');
    }
  };

  it('answers TIMEOUT at the deadline, with the request cancelled in the server', async () => {
    const { outcome, cancel } = await stalled(new CallDeadline());
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT', hint: lspHover.timeoutHint } });
    expect(cancel.params?.id).toEqual(expect.any(Number));
  });

  it('answers CANCELLED when the client cancels, with the request cancelled in the server', async () => {
    const { outcome } = await stalled(new CallCancelled());
    expect(outcome).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
  });

  it('answers the next call once the server runs again', async () => {
    const r = await tapped.d().ok('lsp_hover', tappedHover);
    expect(r.text).toMatch(CLANGD.signature);
  });
});

describe.each(LSP_EDITORS)('a language server that exits mid-request on %s', (editor) => {
  const tapped = tappedServer(editor);

  it('answers EDITOR_ERROR saying the server exited, not TIMEOUT at the deadline', async () => {
    const d = tapped.d();
    // Stopped first, so that the request is surely still unanswered when the server dies.
    process.kill(tapped.pid(), 'SIGSTOP');
    const control: CallControl = { signal: new AbortController().signal, deadline: Date.now() + 60_000 };
    const hover = d.call('lsp_hover', tappedHover, control);
    await hoverRequest(tapped.log());
    process.kill(tapped.pid(), 'SIGKILL');
    expect(await hover).toMatchObject({ ok: false, error: { code: 'EDITOR_ERROR', message: expect.stringMatching(/exited before it answered/), hint: expect.stringMatching(clientOf(editor) === 'nvim' ? /:LspRestart/ : /starts the server again/) } });
    expect(await d.ok('get_state_brief')).toMatchObject({ mode: expect.any(String) });
    if (clientOf(editor) !== 'nvim') expect((await d.ok('lsp_hover', tappedHover)).text).toMatch(CLANGD.signature);
  });
});

describe.each(LSP_EDITORS)('the agent going away while a request waits on %s', (editor) => {
  const tapped = tappedServer(editor);

  it('cancels the request in the server: nobody is left to answer', async () => {
    const d = tapped.d();
    process.kill(tapped.pid(), 'SIGSTOP');
    try {
      const hover = d.call('lsp_hover', tappedHover);
      const request = await hoverRequest(tapped.log());
      await d.editor.close();
      expect(await hover).toMatchObject({ ok: false, error: { code: 'EDITOR_OFFLINE' } });
      await cancelOf(tapped.log(), request);
    } finally {
      process.kill(tapped.pid(), 'SIGCONT');
    }
  });
});

const PYLSP = SERVERS.find((s) => s.name === 'pylsp') as ServerCase;
/** ALE's pylsp linter, its executable missing. */
const NO_PYLSP: ServerCase = { ...PYLSP, cmd: ['/nonexistent/pylsp'] };

describe('a Vim with both ALE and vim-lsp', () => {
  // vim-lsp registers pyright; ALE has pylsp, or no server, for Python. pyright through vim-lsp
  // answers markdown, pylsp through ALE plain text.
  it.each([
    ['ALE has a server: ALE answers', PYLSP, {}, 'pylsp', 'plaintext'],
    ['ALE has none: vim-lsp answers', PYRIGHT, { noServer: true }, 'pyright', 'markdown'],
    ["ALE's is not installed: vim-lsp answers", NO_PYLSP, {}, 'pyright', 'markdown'],
  ] as const)('%s', async (_what, ale, options, name, format) => {
    const d = await lspDriver('ale', ale, { ...options, vimLsp: PYRIGHT });
    try {
      expect(await d.ok('lsp_hover', hoverAt)).toMatchObject({ server: name, format, text: expect.stringMatching(PYRIGHT.signature) });
    } finally {
      await d.stop();
    }
  });
});

describe.each(LSP_EDITORS)('unsaved text on %s', (editor) => {
  let d: Driver;
  beforeAll(async () => {
    d = await lspDriver(clientOf(editor), PYRIGHT);
  }, 90_000);
  afterAll(() => d?.stop());

  it("answers from the unsaved text of the request's buffer and of another loaded buffer", async () => {
    const at = { buffer: PYRIGHT.call.file, line: PYRIGHT.call.line, col: PYRIGHT.call.col };
    expect(await d.ok('lsp_references', at)).toMatchObject({ total: 4 });
    await d.ok('open_file', { path: 'shapes/geometry.py' });
    // A call of the function added at the end of each file, in its buffer only.
    for (const file of [PYRIGHT.call.file, 'shapes/geometry.py']) await d.expr(`appendbufline(${await d.bufnr(file)}, '$', 'print(total_area([]))')`);
    const r = await d.ok('lsp_references', at);
    const counts = Object.fromEntries((r.files as { path: string; references: unknown[] }[]).map((f) => [f.path.slice(d.cwd.length + 1), f.references.length]));
    expect(counts).toEqual({ 'shapes/geometry.py': 2, 'shapes/main.py': 4 });
  });
});
