// plugin/vim on a real screen (Vim in tmux, read with capture-pane) when the socket it dials is
// held by a listener that accepts and never answers, as a stopped agent's is: the user types and
// sees the text at once while the handshake waits, and once Vim gives up, the command line says
// why and that it retries, on one line (no hit-enter prompt), and :VimRelayStatus has it whole.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { vimFiles } from '../../agent/editors/vim/rendezvous.ts';
import { isolatedEnv } from '../helpers/agent-process.ts';
import { commandLine, squeezed, startTmux, type TmuxScreen } from '../helpers/tmux.ts';
import { silentListener, type SilentListener } from '../helpers/silent-listener.ts';
import { vimArgs } from '../helpers/vim.ts';
import { waitFor } from '../helpers/wait.ts';

const env = isolatedEnv();
const cwd = join(String(env.HOME), 'notes');
mkdirSync(cwd);
const files = vimFiles(env);
let silent: SilentListener | undefined;
let term: TmuxScreen | undefined;

afterAll(async () => {
  await term?.stop();
  await silent?.close();
});

it('types while the handshake waits, then says on the command line that the listener did not answer', async () => {
  mkdirSync(dirname(files.socket), { recursive: true, mode: 0o700 });
  silent = await silentListener(files.socket);
  const { held } = silent;
  for (const [file, text] of [
    [files.token, 'a token this listener cannot prove it holds\n'],
    [files.address, `unix:${files.socket}\n`],
  ] as const) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, text, { mode: 0o600 });
  }
  // A Normal-mode Vim on a terminal; vimArgs connects it at startup (:VimRelayConnect notes).
  term = startTmux({ command: ['vim', ...vimArgs({ name: 'notes', normal: true })], env, cwd });
  const first = await waitFor(() => held[0], 15_000, 'Vim to dial the silent listener');
  term.type('ityped while it waits');
  term.key('Escape');
  await term.until((rows) => rows[0] === 'typed while it waits', 'the typed text on the screen');
  expect(first.ended).toBe(false);
  // One line that fits the screen: no hit-enter prompt stops the user.
  const line = 'vimrelay: the agent did not answer, not connecting; retrying, see :VimRelayStatus';
  const rows = await term.until((r) => commandLine(r).message === line, 'the reason on the command line', 20_000);
  expect(commandLine(rows).message).toBe(line);
  expect(rows[0]).toBe('typed while it waits');
  // Whole, with the address it dialled, in :VimRelayStatus (and the line in :messages).
  term.type(':VimRelayStatus');
  term.key('Enter');
  const status = await term.until((r) => r.some((l) => l.includes('why:')), ':VimRelayStatus');
  expect(squeezed(status)).toContain(squeezed([`why: the agent did not answer, not connecting (the listener at unix:${files.socket} did not answer within 5 s: an agent that is stopped?)`]));
  term.key('Enter');
  term.type(':messages');
  term.key('Enter');
  await term.until((r) => commandLine(r).message === line, ':messages');
  // And it let that connection go (seen here once its close arrives).
  await waitFor(() => (first.ended ? true : undefined), 10_000, 'Vim to close the connection it gave up');
});
