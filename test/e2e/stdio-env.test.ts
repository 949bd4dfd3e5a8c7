// `vimrelay serve --stdio` started as an MCP client starts it, with only HOME, PATH, SHELL and TERM
// (the SDK's stdio client passes no more): it still finds the user's Neovims where Neovim puts
// them without $XDG_RUNTIME_DIR or $TMPDIR: in /run/user/<uid> (the login session's runtime
// directory) and in Neovim's own temp layout (/tmp/nvimXXXXXX/0). Its state directory is then
// private like the agent's (0700, files 0600).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
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

const RUNTIME = `/run/user/${ownUid()}`;
/** Made by this test (as root, where no login session made it), and removed after. */
const madeRuntime = !existsSync(RUNTIME) && ownUid() === 0;
const skip = existsSync(RUNTIME) || madeRuntime ? null : `${RUNTIME} does not exist and only root may make it`;

let home: string;
/** The /tmp/nvimXXXXXX the second Neovim listens in (Neovim's own layout, made here: removed after). */
let tmpSocketDir: string | undefined;
let nvims: NvimFixture[] = [];
let connection: StdioConnection | undefined;

beforeAll(() => {
  if (madeRuntime) mkdirSync(RUNTIME, { recursive: true, mode: 0o700 });
  home = isolatedHome('vimrelay-stdio-env-').home;
  // Its XDG directories are not passed on: the policy the server reads is the one under ~/.config.
  writePermissivePolicy(join(home, '.config'));
});

afterAll(async () => {
  await connection?.client.close();
  await Promise.all(nvims.map((n) => n.stop()));
  if (madeRuntime) rmSync(RUNTIME, { recursive: true, force: true });
  if (tmpSocketDir !== undefined) rmSync(tmpSocketDir, { recursive: true, force: true });
});

it.skipIf(skip !== null)(`lists Neovims in ${RUNTIME} and in /tmp/nvimXXXXXX/0 when started with HOME, PATH, SHELL and TERM only${skip ? ` (skipped: ${skip})` : ''}`, async () => {
  const runtimeNvim = await startNvim({ listen: join(RUNTIME, `nvim.${process.pid}.0`) });
  tmpSocketDir = mkdtempSync(join(tmpdir(), 'nvim'));
  const tmpNvim = await startNvim({ listen: join(tmpSocketDir, '0') });
  nvims = [runtimeNvim, tmpNvim];
  const env = { HOME: home, PATH: process.env.PATH, SHELL: process.env.SHELL ?? '/bin/sh', TERM: process.env.TERM ?? 'xterm' };
  connection = await connectStdio(process.execPath, [CLI, 'serve', '--stdio'], env);
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
