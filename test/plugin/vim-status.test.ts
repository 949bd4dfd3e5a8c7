// plugin/vim on a real screen (Vim in tmux, read with capture-pane, no key pressed but to run a
// command): started before any agent, :VimRelayConnect says why it cannot connect and retries;
// :VimRelayStatus says no agent has run and what to do; once a real `vimrelay serve` runs for the
// same user, the retry connects and the command line says so instead of the stale error; and
// :VimRelayStatus then says the same things as :checkhealth vimrelay in Neovim: connected, which
// process serves this machine's editors and how, and that it lists this Vim.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { isolatedEnv } from '../helpers/agent-process.ts';
import { startServeHttp, type ServeHttpProcess } from '../helpers/serve-process.ts';
import { startTmux, type TmuxScreen } from '../helpers/tmux.ts';
import { vimArgs } from '../helpers/vim.ts';
import { waitFor } from '../helpers/wait.ts';

const env = isolatedEnv();
const cwd = join(String(env.HOME), 'notes');
mkdirSync(cwd);
let term: TmuxScreen | undefined;
let serve: ServeHttpProcess | undefined;

afterAll(async () => {
  await term?.stop();
  await serve?.stop();
});

/** The screen once `wanted` is on it. */
const screenWith = (wanted: string | RegExp, what: string): Promise<string> =>
  waitFor(() => {
    const text = term?.screen().join('\n') ?? '';
    return (typeof wanted === 'string' ? text.includes(wanted) : wanted.test(text)) ? text : undefined;
  }, 15_000, () => `${what}; the screen shows:\n${term?.screen().join('\n') ?? ''}`);

it('says why it cannot connect, then that it connected, on the command line, with no key pressed', async () => {
  // A Normal-mode Vim on a terminal; vimArgs connects it at startup (:VimRelayConnect notes).
  term = startTmux({ command: ['vim', ...vimArgs({ name: 'notes', normal: true })], env, cwd });
  await screenWith(/vimrelay: cannot read .*; retrying/, "the connection error");

  term.type(':VimRelayStatus');
  term.key('Enter');
  const none = await screenWith('agent: none has run for this user', 'the status without an agent');
  expect(none).toContain('vimrelay: not connected, retrying');
  expect(none).toContain('do: vimrelay pair <relay>, then vimrelay agent (or vimrelay service install)');
  term.key('Enter');

  serve = await startServeHttp(['--port', '0', '--discover-dir', String(env.XDG_RUNTIME_DIR)], env);
  const connected = await screenWith('vimrelay: connected as notes', 'the connection, said once it happened');
  expect(connected).not.toContain('retrying');
});

it(':VimRelayStatus says which process serves this machine\'s editors, and that it lists this Vim', async () => {
  term?.type(':VimRelayStatus');
  term?.key('Enter');
  const status = await screenWith('this Vim: listed', 'the status with serve running');
  expect(status).toContain('vimrelay: connected as notes');
  expect(status).toContain(`serve: pid ${serve?.proc.pid} serves this machine's editors locally, over ${serve?.mcpUrl}`);
  term?.key('Enter');
});
