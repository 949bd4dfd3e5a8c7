// plugin/vim on a real screen (Vim in tmux, 80 columns, read with capture-pane, no key pressed but
// to run a command): started before any agent, :VimRelayConnect says why it cannot connect in one
// line that fits the screen, with no hit-enter prompt (however long the paths of the user's
// directories), and retries; typed again, the same; :VimRelayStatus says no agent has run and what
// to do; once a real `vimrelay serve` runs for the same user, the retry connects and the command
// line says so instead of the stale error; and :VimRelayStatus then says the same things as
// :checkhealth vimrelay in Neovim: connected, which process serves this machine's editors and how,
// and that it lists this Vim. With g:vimrelay_autoconnect, the message at startup fits one line too.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { isolatedEnv } from '../helpers/agent-process.ts';
import { startServeHttp, type ServeHttpProcess } from '../helpers/serve-process.ts';
import { commandLine, squeezed, startTmux, type TmuxScreen } from '../helpers/tmux.ts';
import { vimArgs } from '../helpers/vim.ts';
import { waitFor } from '../helpers/wait.ts';

const COLUMNS = 80;
// A user's XDG directories may be long: the message must fit the screen all the same.
const env = isolatedEnv();
const deep = join(String(env.HOME), 'a-user-whose-directories-have-rather-long-names', 'and-nest-them-deeply');
env.XDG_CONFIG_HOME = join(deep, 'config');
env.XDG_STATE_HOME = join(deep, 'state');
const cwd = join(String(env.HOME), 'notes');
mkdirSync(cwd);
let term: TmuxScreen | undefined;
let serve: ServeHttpProcess | undefined;

afterAll(async () => {
  await term?.stop();
  await serve?.stop();
});

/** The screen once `wanted` is on it (or holds for its text). */
const screenWith = (screen: () => TmuxScreen | undefined, wanted: string | ((text: string) => boolean), what: string): Promise<string[]> =>
  waitFor(() => {
    const rows = screen()?.screen() ?? [];
    const text = rows.join('\n');
    return (typeof wanted === 'string' ? text.includes(wanted) : wanted(text)) ? rows : undefined;
  }, 15_000, () => `${what}; the screen shows:\n${screen()?.screen().join('\n') ?? ''}`);

const NO_AGENT = 'vimrelay: no agent has run for this user';

/** What the plugin says of `reason` (s:fit): the first of its forms that fits left of the ruler
 * and the partial command (18 + 10 columns) when they are shown, else the whole screen. */
function said(reason: string, ruler: boolean): string {
  const room = COLUMNS - (ruler ? 28 : 0);
  const forms = [`${reason}; retrying, see :VimRelayStatus`, `${reason} (:VimRelayStatus)`, `${reason.replace(/^vimrelay: /, '')} (:VimRelayStatus)`];
  return forms.find((line) => line.length < room) ?? '';
}

/** Expects the command line in `rows` to say `reason` in one line that fits, with no hit-enter prompt. */
function saysInOneLine(rows: readonly string[], reason: string): void {
  const { message, ruler } = commandLine(rows);
  expect(message).toBe(said(reason, ruler));
  expect(rows.join('\n')).not.toContain('Press ENTER');
}

it('says why it cannot connect in one line that fits, then that it connected, with no key pressed', async () => {
  // A Normal-mode Vim on a terminal; vimArgs connects it at startup (:VimRelayConnect notes).
  term = startTmux({ command: ['vim', ...vimArgs({ name: 'notes', normal: true })], env, cwd, cols: COLUMNS });
  saysInOneLine(await screenWith(() => term, (text) => text.includes(':VimRelayStatus'), 'the connection error'), NO_AGENT);

  // Typed again by the user: the same one line, no hit-enter prompt.
  term.type(':VimRelayConnect notes');
  term.key('Enter');
  saysInOneLine(await screenWith(() => term, (text) => !text.includes(':VimRelayConnect') && text.includes(':VimRelayStatus'), 'the command to have run'), NO_AGENT);

  term.type(':VimRelayStatus');
  term.key('Enter');
  const none = squeezed(await screenWith(() => term, 'agent: none has run for this user', 'the status without an agent'));
  expect(none).toContain(squeezed(['vimrelay: not connected, retrying']));
  // The whole reason, with the file it could not read.
  expect(none).toContain(squeezed([`why: no agent has run for this user (cannot read ${join(deep, 'config', 'vimrelay', 'vim-token')})`]));
  expect(none).toContain(squeezed(['do: vimrelay pair <relay>, then vimrelay agent (or vimrelay service install)']));
  term.key('Enter');

  serve = await startServeHttp(['--port', '0', '--discover-dir', String(env.XDG_RUNTIME_DIR)], env);
  const connected = await screenWith(() => term, 'vimrelay: connected as notes', 'the connection, said once it happened');
  expect(connected.join('\n')).not.toContain('retrying');
});

it(':VimRelayStatus says which process serves this machine\'s editors, and that it lists this Vim', async () => {
  term?.type(':VimRelayStatus');
  term?.key('Enter');
  const status = squeezed(await screenWith(() => term, 'this Vim: listed', 'the status with serve running'));
  expect(status).toContain(squeezed(['vimrelay: connected as notes']));
  expect(status).toContain(squeezed([`serve: pid ${serve?.proc.pid} serves this machine's editors locally, over ${serve?.mcpUrl}`]));
  term?.key('Enter');
});

it('with g:vimrelay_autoconnect and no agent, says at startup in one line that fits what is wrong', async () => {
  const alone = isolatedEnv();
  alone.XDG_STATE_HOME = join(deep, 'state-elsewhere');
  alone.XDG_CONFIG_HOME = join(deep, 'config');
  // The token of the agent above is there, but no agent runs for this state directory.
  const auto = startTmux({ command: ['vim', ...vimArgs({ name: null, normal: true, cmds: ['let g:vimrelay_autoconnect = 1'] })], env: alone, cwd, cols: COLUMNS });
  try {
    saysInOneLine(await screenWith(() => auto, ':VimRelayStatus', 'the message at startup'), 'vimrelay: no agent is running');
  } finally {
    await auto.stop();
  }
});
