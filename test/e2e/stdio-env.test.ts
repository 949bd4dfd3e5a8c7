// `vimrelay serve --stdio` started as an MCP client starts it, with only HOME, PATH, SHELL and TERM
// (the SDK's stdio client passes no more): it still finds the user's Neovims where Neovim puts
// them without $XDG_RUNTIME_DIR or $TMPDIR: in /run/user/<uid> (the login session's runtime
// directory) and in Neovim's own temp layout (/tmp/nvimXXXXXX/0). Its state directory is then
// private like the agent's (0700, files 0600).
//
// As root, the server runs in a mount namespace of its own (unshare(1)) whose /run/user and /tmp
// are directories of this test's: the machine's /run/user and /tmp are never touched, so no other
// test's process sees a runtime directory appear (or the Vim socket the server makes in it), and no
// agent running on the machine sees the test's Neovims. Without that privilege the test needs the
// user's own /run/user/<uid>, as a login session makes it, and its Neovim listens in the real /tmp.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ownUid } from '../../agent/config/trusted-path.ts';
import { CLI } from '../helpers/agent-process.ts';
import { isolatedHome } from '../helpers/home.ts';
import { callOk, connectStdio, type StdioConnection } from '../helpers/mcp.ts';
import { startNvim, type NvimFixture } from '../helpers/nvim.ts';
import { writePermissivePolicy } from '../helpers/policy.ts';
import { waitFor } from '../helpers/wait.ts';

const RUN_USER = '/run/user';
const uid = ownUid();

/** Whether this process may give a child a mount namespace with its own /run/user. */
function canUnshare(): boolean {
  if (uid !== 0 || !existsSync(RUN_USER)) return false;
  try {
    execFileSync('unshare', ['--mount', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const namespaced = canUnshare();
const skip = namespaced || existsSync(join(RUN_USER, String(uid))) ? null : `${RUN_USER}/${uid} does not exist, and only root may give the server a /run/user of its own`;

let home: string;
/** What the server sees as /run/user: this test's directory when namespaced, else the real one. */
let runUser = RUN_USER;
/** What the server sees as /tmp: this test's directory when namespaced, else the real one. */
let tmp = '/tmp';
/** The /tmp/nvimXXXXXX the second Neovim listens in (Neovim's own layout, made here: removed after). */
let tmpSocketDir: string | undefined;
let nvims: NvimFixture[] = [];
let connection: StdioConnection | undefined;

beforeAll(() => {
  home = isolatedHome('vimrelay-stdio-env-').home;
  if (namespaced) {
    // Under /run, beside the real one: no root the server scans for sockets reaches it but
    // through the namespace's /run/user.
    runUser = mkdtempSync('/run/vimrelay-test-run-user-');
    mkdirSync(join(runUser, String(uid)), { mode: 0o700 });
    // Root's and sticky, as /tmp is: the server trusts a socket below it as it would below /tmp.
    tmp = mkdtempSync(join(tmpdir(), 'vimrelay-test-tmp-'));
    chmodSync(tmp, 0o1777);
  }
  // Its XDG directories are not passed on: the policy the server reads is the one under ~/.config.
  writePermissivePolicy(join(home, '.config'));
});

afterAll(async () => {
  await connection?.client.close();
  await Promise.all(nvims.map((n) => n.stop()));
  if (tmpSocketDir !== undefined) rmSync(tmpSocketDir, { recursive: true, force: true });
  if (runUser !== RUN_USER) rmSync(runUser, { recursive: true, force: true });
  if (tmp !== '/tmp') rmSync(tmp, { recursive: true, force: true });
});

/** `vimrelay serve --stdio`, in its own mount namespace with this test's /run/user and /tmp when namespaced. */
function serveCommand(): [string, string[]] {
  if (!namespaced) return [process.execPath, [CLI, 'serve', '--stdio']];
  // unshare execs sh in the new namespace, and sh execs node: the client's pid is the server's.
  const script = 'mount --bind "$1" /run/user && mount --bind "$2" /tmp && exec "$3" "$4" serve --stdio';
  return ['unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', runUser, tmp, process.execPath, CLI]];
}

it.skipIf(skip !== null)(`lists Neovims in ${RUN_USER}/${uid} and in /tmp/nvimXXXXXX/0 when started with HOME, PATH, SHELL and TERM only${skip ? ` (skipped: ${skip})` : ''}`, async () => {
  const runtimeNvim = await startNvim({ listen: join(runUser, String(uid), `nvim.${process.pid}.0`) });
  // Where the server, started without TMPDIR, looks: /tmp as it sees it, whatever TMPDIR the tests have.
  tmpSocketDir = mkdtempSync(join(tmp, 'nvim'));
  const tmpNvim = await startNvim({ listen: join(tmpSocketDir, '0') });
  nvims = [runtimeNvim, tmpNvim];
  const env = { HOME: home, PATH: process.env.PATH, SHELL: process.env.SHELL ?? '/bin/sh', TERM: process.env.TERM ?? 'xterm' };
  const [command, args] = serveCommand();
  connection = await connectStdio(command, args, env);
  const client = connection.client;
  const pids = await waitFor(async () => {
    const listed = ((await callOk(client, 'list_editors')).editors as { pid: number }[]).map((e) => e.pid);
    return nvims.every((n) => listed.includes(n.pid)) ? listed : undefined;
  }, 20_000, () => `both Neovims in list_editors; stderr:\n${connection?.stderr() ?? ''}`);
  expect(pids).toEqual(expect.arrayContaining([runtimeNvim.pid, tmpNvim.pid]));
  await client.close();
  connection = undefined;

  const state = join(home, '.local', 'state', 'vimrelay');
  await waitFor(() => (readdirSync(state).includes('agent.log') ? true : undefined), 10_000, 'the log');
  expect(statSync(state).mode & 0o777).toBe(0o700);
  for (const file of readdirSync(state)) expect([file, statSync(join(state, file)).mode & 0o777]).toEqual([file, 0o600]);
});
