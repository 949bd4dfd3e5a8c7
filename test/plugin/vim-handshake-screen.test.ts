// plugin/vim on a real screen (Vim in tmux, read with capture-pane) when the socket it dials is
// held by a listener that accepts and never answers, as a stopped agent's is: the user types and
// sees the text at once while the handshake waits, and once Vim gives up, the command line says
// why and that it retries, on one line (no hit-enter prompt, whatever 'ruler' and 'showcmd' take
// of it), and :messages has it whole.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { vimFiles } from '../../agent/editors/vim/rendezvous.ts';
import { isolatedEnv } from '../helpers/agent-process.ts';
import { squeezed, startTmux, type TmuxScreen } from '../helpers/tmux.ts';
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
  const reason = `vimrelay: the listener at unix:${files.socket} did not answer within 5 s (an agent that is stopped?); not connecting; retrying`;
  // One line, cut to the room left of the ruler and the partial command ('ruler' and 'showcmd',
  // on by default from Vim 9.1): no hit-enter prompt stops the user.
  const rows = await term.until((r) => r.some((l) => l.startsWith('vimrelay: the listener at')), 'the reason on the command line', 20_000);
  const shown = /^(vimrelay: .*)…/.exec(rows.at(-1) ?? '')?.[1] ?? '';
  expect(reason.startsWith(shown) && shown.length > 'vimrelay: the listener at'.length, rows.at(-1)).toBe(true);
  expect(rows.join('\n')).not.toContain('Press ENTER');
  expect(rows[0]).toBe('typed while it waits');
  // Whole in :messages.
  term.type(':messages');
  term.key('Enter');
  const messages = await term.until((r) => r.some((l) => l.includes('not connecting; retrying')), ':messages');
  expect(squeezed(messages)).toContain(reason.replaceAll(' ', ''));
  term.key('Enter');
  // And it let that connection go (seen here once its close arrives).
  await waitFor(() => (first.ended ? true : undefined), 10_000, 'Vim to close the connection it gave up');
});
