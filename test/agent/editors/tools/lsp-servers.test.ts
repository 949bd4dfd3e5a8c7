// The lsp_* tools when the server is missing or slow, on Neovim and on Vim: no server attached to the
// buffer (none configured, or one that cannot start; on Vim, ALE with none enabled, or no ALE at all)
// answers UNSUPPORTED naming what the editor would need; a real server made slow (its process
// stopped) answers TIMEOUT at the call's deadline, and CANCELLED when the client cancels, while the
// editor goes on answering other calls, and the editor sends the server $/cancelRequest for the
// request (seen by test/fixtures/lsp/tap.mjs on the server's stdin); once the server runs again it
// answers the next call.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lspHover } from '../../../../protocol/index.ts';
import { CallCancelled, CallDeadline, type CallControl } from '../../../../agent/editors/call.ts';
import { DRIVERS, waitFor, type Driver } from '../../../helpers/editors.ts';
import { kindOf, lspDriver, SERVERS, TAP, tapMessages, type ServerCase } from '../../../helpers/lsp.ts';

const PYRIGHT = SERVERS.find((s) => s.name === 'pyright') as ServerCase;
const hoverAt = { buffer: PYRIGHT.call.file, line: PYRIGHT.call.line, col: PYRIGHT.call.col };

describe.each(DRIVERS)('no language server on %s', (editor) => {
  const kind = kindOf(editor);
  const cases: [string, Parameters<typeof lspDriver>[2], RegExp, RegExp][] = [
    ['none configured', { noServer: true }, kind === 'nvim' ? /No language server is attached/ : /ALE has no language server enabled/, kind === 'nvim' ? /pyright or pylsp/ : /pyright.*g:ale_linters/],
    ['one that cannot start', {}, kind === 'nvim' ? /No language server is attached/ : /ALE could not start/, kind === 'nvim' ? /pyright or pylsp/ : /Install the language server/],
    ...(kind === 'vim' ? [['no ALE', { noAle: true }, /ALE is not loaded/, /vim-ale.*pyright or pylsp/] as [string, Parameters<typeof lspDriver>[2], RegExp, RegExp]] : []),
  ];

  it.each(cases)('%s: UNSUPPORTED, naming what the editor would need', async (what, options, message, hint) => {
    const server = what === 'one that cannot start' ? { ...PYRIGHT, cmd: ['/nonexistent/pyright-langserver', '--stdio'] } : PYRIGHT;
    const d = await lspDriver(kind, server, { ...options, ready: false });
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

describe.each(DRIVERS)('a slow language server on %s', (editor) => {
  let d: Driver;
  let dir: string;
  // pyright through the tap: ALE's pyright linter runs it as its executable.
  const server: ServerCase = { ...PYRIGHT, cmd: [TAP, '--stdio'] };
  const log = (): string => join(dir, 'stdin.log');
  const pid = (): number => Number(readFileSync(join(dir, 'pid'), 'utf8'));

  /** Starts a hover with the server stopped, and ends it with `reason`; its outcome, and what the server was sent. */
  const stalled = async (reason: Error) => {
    process.kill(pid(), 'SIGSTOP');
    try {
      const controller = new AbortController();
      const control: CallControl = { signal: controller.signal, deadline: Date.now() + 60_000 };
      let settled = false;
      const hover = d.call('lsp_hover', hoverAt, control).then((r) => ((settled = true), r));
      // The request reached the server; the editor still answers, and the hover still waits.
      const request = await waitFor(() => tapMessages(log()).filter((m) => m.method === 'textDocument/hover').at(-1), 20_000, 'the hover request');
      expect(await d.ok('get_state_brief')).toMatchObject({ mode: expect.any(String) });
      expect(await d.lines(await d.bufnr(PYRIGHT.call.file))).toContain(readFileSync(join(d.cwd, PYRIGHT.call.file), 'utf8').split('\n')[0]);
      expect(settled).toBe(false);
      controller.abort(reason);
      const outcome = await hover;
      const cancel = await waitFor(() => tapMessages(log()).find((m) => m.method === '$/cancelRequest' && m.params?.id === request.id), 20_000, '$/cancelRequest');
      return { outcome, cancel };
    } finally {
      process.kill(pid(), 'SIGCONT');
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vimrelay-tap-'));
    const env = { VIMRELAY_TAP_SERVER: PYRIGHT.cmd[0] ?? '', VIMRELAY_TAP_LOG: join(dir, 'stdin.log'), VIMRELAY_TAP_PID: join(dir, 'pid') };
    d = await lspDriver(kindOf(editor), server, { env });
  }, 90_000);
  afterAll(async () => {
    await d?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

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
    const r = await d.ok('lsp_hover', hoverAt);
    expect(r.text).toMatch(PYRIGHT.signature);
  });
});
