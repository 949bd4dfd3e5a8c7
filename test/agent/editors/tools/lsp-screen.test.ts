// The user's view while a language server is slow: a real Neovim TUI in tmux, a real pyright
// stopped (SIGSTOP, through test/fixtures/lsp/tap.mjs) while lsp_hover waits for it. Keys the user
// types meanwhile show on the screen (tmux capture-pane) and land in the buffer before the call
// ends; the call then answers TIMEOUT, nothing of it shows on the screen, and once the server runs
// again the next hover answers.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallDeadline, controlWithin, type CallControl } from '../../../../agent/editors/call.ts';
import { NvimEditor } from '../../../../agent/editors/nvim/editor.ts';
import { editorTool } from '../../../../agent/editors/tools/index.ts';
import { parseArgs, type ToolOutcome } from '../../../../protocol/index.ts';
import { isolatedHome } from '../../../helpers/home.ts';
import { fixtureFiles, serverConfig, SERVERS, TAP, tapMessages, type ServerCase } from '../../../helpers/lsp.ts';
import { startTmux, type TmuxScreen } from '../../../helpers/tmux.ts';
import { waitFor } from '../../../helpers/wait.ts';

const PYRIGHT = SERVERS.find((s) => s.name === 'pyright') as ServerCase;
const INIT_LUA = join(import.meta.dirname, '../../../fixtures/lsp/init.lua');
/** Whether process `pid` still runs (signal 0 tests it). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const hoverAt = { buffer: PYRIGHT.call.file, line: PYRIGHT.call.line, col: PYRIGHT.call.col };

describe('a slow language server, on the screen of a Neovim in tmux', () => {
  const { home, env } = isolatedHome('vimrelay-lsp-tui-');
  const cwd = join(home, 'work');
  const socket = join(home, 'nvim.sock');
  let term: TmuxScreen;
  const screen = (): string => term.screen().join('\n');
  let editor: NvimEditor;

  const call = async (tool: string, args: Record<string, unknown>, control: CallControl = controlWithin(30_000)): Promise<ToolOutcome> => {
    const record = editorTool(tool);
    const parsed = record && parseArgs(record.spec, args);
    if (!record || !parsed?.ok) throw new Error(`bad call of ${tool}`);
    return editor.run(record, parsed.args, control);
  };
  const serverPid = (): number => Number(readFileSync(join(home, 'pid'), 'utf8'));

  beforeAll(async () => {
    for (const [file, text] of Object.entries(fixtureFiles(PYRIGHT.fixture))) {
      mkdirSync(dirname(join(cwd, file)), { recursive: true });
      writeFileSync(join(cwd, file), text);
    }
    Object.assign(env, {
      TERM: 'xterm-256color',
      VIMRELAY_TEST_LSP: serverConfig([{ ...PYRIGHT, cmd: [TAP, '--stdio'] }]),
      VIMRELAY_TAP_SERVER: PYRIGHT.cmd[0] ?? '',
      VIMRELAY_TAP_LOG: join(home, 'stdin.log'),
      VIMRELAY_TAP_PID: join(home, 'pid'),
    });
    term = startTmux({ command: ['nvim', '--clean', '-n', '--listen', socket, '--cmd', `luafile ${INIT_LUA}`, PYRIGHT.call.file], cwd, env, cols: 80, rows: 12 });
    editor = await waitFor(() => NvimEditor.attach(socket, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined), 20_000, 'Neovim in tmux');
    // Ready once pyright has published the buffer's first diagnostics (init.lua).
    await waitFor(async () => {
      const r = await call('run_command', { commands: 'echo get(b:, "test_lsp_ready", 0)' });
      return r.ok && (r.data.results as { output: string }[])[0]?.output === 'v:true' ? true : undefined;
    }, 60_000, 'pyright to analyse the file');
    await waitFor(() => (screen().includes('total_area(circles)') ? true : undefined), 10_000, 'the file on the screen');
  }, 90_000);
  afterAll(async () => {
    await editor?.close();
    const server = existsSync(join(home, 'pid')) ? serverPid() : undefined;
    await term?.stop();
    // The language server outlives Neovim by a moment (its stdin closing ends it), writing in the
    // home until then: the home goes once it has gone.
    if (server !== undefined) await waitFor(() => (alive(server) ? undefined : true), 20_000, 'the language server to exit');
  });

  it('shows what the user types while the request waits, then answers TIMEOUT, and the server answers again later', async () => {
    process.kill(serverPid(), 'SIGSTOP');
    let settled = false;
    const controller = new AbortController();
    try {
      const hover = call('lsp_hover', hoverAt, { signal: controller.signal, deadline: Date.now() + 60_000 }).then((r) => ((settled = true), r));
      await waitFor(() => tapMessages(join(home, 'stdin.log')).find((m) => m.method === 'textDocument/hover'), 20_000, 'the hover request');
      term.key('O');
      term.type('# typed while the server is busy');
      term.key('Escape');
      await waitFor(() => (screen().includes('# typed while the server is busy') ? true : undefined), 20_000, () => `the typed text on the screen:\n${screen()}`);
      expect(settled).toBe(false);
      // `O` opened a line above the cursor, which the file put on line 1.
      const lines = await call('read_buffer', { buffer: PYRIGHT.call.file, start_line: 1, end_line: 1 });
      expect(lines).toMatchObject({ ok: true, data: { lines: ['# typed while the server is busy'] } });
      controller.abort(new CallDeadline());
      expect(await hover).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    } finally {
      process.kill(serverPid(), 'SIGCONT');
    }
    const next = await call('lsp_hover', { ...hoverAt, line: PYRIGHT.call.line + 1 });
    expect(next).toMatchObject({ ok: true, data: { text: expect.stringMatching(PYRIGHT.signature) } });
    expect(screen()).not.toMatch(/E\d{3,4}:|Error/);
  });
});
