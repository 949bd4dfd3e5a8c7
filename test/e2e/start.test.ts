// `npm start` as a new user runs it: prints the MCP URL and a token that work, serves an editor
// started afterwards, and on Ctrl-C stops everything it started. What it starts, it supervises:
// the terminal closing (SIGHUP) and the launcher killed with SIGKILL leave nothing running; workerd
// dying while wrangler lives is said and stops it; a second start on the busy port, or on another
// port with the same state directory, names the running relay and exits without printing a URL or
// token or disturbing the first one's agent.
// Another account that made tsx's cache directory in $TMPDIR first gets nothing run. A
// `vimrelay agent` that takes over the device leaves the relay running for it.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ROOT, freePort } from '../../scripts/local-relay.ts';
import { isolatedEnv, runCli, startAgentProcess } from '../helpers/agent-process.ts';
import { callOk, connectMcp } from '../helpers/mcp.ts';
import { startNvim, type NvimFixture } from '../helpers/nvim.ts';
import { asOther, itAsOther } from '../helpers/other-user.ts';
import { ownerBasic } from '../helpers/relay.ts';
import { waitFor } from '../helpers/wait.ts';

let nvim: NvimFixture | undefined;
afterAll(async () => {
  await nvim?.stop();
});

/** Processes whose command line mentions `marker` (our isolated persistence directory). */
function processesMentioning(marker: string): string[] {
  const r = spawnSync('pgrep', ['-af', marker], { encoding: 'utf8' });
  return r.stdout.split('\n').filter((l) => l.trim() && !l.includes('pgrep'));
}

it('npm start prints a working MCP URL and token, and Ctrl-C leaves nothing running', async () => {
  const env = isolatedEnv({ PORT: String(await freePort()) });
  const home = String(env.HOME);
  const persist = join(home, 'persist');
  const sockets = join(home, 'sockets');
  mkdirSync(sockets);
  // detached: its own process group, so that the test can send Ctrl-C to the group as a terminal does.
  const start = spawn('npm', ['start', '--', '--persist-to', persist, '--discover-dir', sockets], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => start.once('exit', (code) => resolve(code)));
  let out = '';
  let err = '';
  start.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const printed = await new Promise<{ url: string; token: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start printed no token:\n${out}\n${err}`)), 90_000);
    start.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const url = /^MCP URL: (\S+)$/m.exec(out)?.[1];
      const token = /^Access token: (\S+)$/m.exec(out)?.[1];
      if (url && token) {
        clearTimeout(timer);
        resolve({ url, token });
      }
    });
  });
  expect(printed.url).toBe(`http://127.0.0.1:${env.PORT}/mcp`);
  const dashboard = /^Dashboard: (\S+)/m.exec(out)?.[1];
  expect(dashboard).toBe(`http://127.0.0.1:${env.PORT}/dashboard`);
  // The browser is asked for the owner secret (HTTP Basic), which opens the dashboard.
  const asked = await fetch(dashboard!, { redirect: 'manual' });
  expect([asked.status, asked.headers.get('WWW-Authenticate')]).toEqual([401, 'Basic realm="vimrelay", charset="UTF-8"']);
  const devVars = readFileSync(join(ROOT, '.dev.vars'), 'utf8');
  const secret = /^OWNER_SECRET="([^"]+)"/m.exec(devVars)?.[1] ?? '';
  expect((await fetch(dashboard!, { headers: { Authorization: ownerBasic(secret) } })).status).toBe(200);
  // The user name that sets the owner's sign-ins apart from other accounts' guesses: kept beside the secret, printed.
  const user = /^OWNER_USER="(owner-[\w-]{16})"$/m.exec(devVars)?.[1] ?? '';
  expect(out).toContain(`user name ${user}, password OWNER_SECRET from .dev.vars`);
  expect((await fetch(dashboard!, { headers: { Authorization: ownerBasic(secret, user) } })).status).toBe(200);

  nvim = await startNvim({ files: { 'a.txt': 'started after the relay\n' }, open: ['a.txt'], listen: join(sockets, 'nvim.start.0') });
  const client = await connectMcp(printed.url, printed.token);
  const count = await waitFor(async () => ((await callOk(client, 'list_editors')).count as number) || undefined, 20_000, 'the editor to be listed');
  expect(count).toBe(1);
  expect((await callOk(client, 'read_buffer', {})).lines).toEqual(['started after the relay']);
  await client.close();
  await new Promise((r) => setTimeout(r, 200));
  expect(err).toMatch(/editor online/);
  // Its state directory (status, logs, the relay's log) is private, as the agent's is.
  const state = join(String(env.XDG_STATE_HOME), 'vimrelay');
  expect(statSync(state).mode & 0o777).toBe(0o700);
  for (const file of readdirSync(state)) expect([file, statSync(join(state, file)).mode & 0o777]).toEqual([file, 0o600]);

  process.kill(-start.pid!, 'SIGINT');
  await exited;
  // npm may exit before the launcher has finished stopping the relay: give the group a moment.
  // The relay's process names its persistence directory; workerd names the port it serves.
  const left = (): string[] => [...processesMentioning(persist), ...processesMentioning(`127.0.0.1:${env.PORT}`)];
  await waitFor(() => (left().length === 0 ? true : undefined), 30_000, 'every started process to exit').catch(() => {});
  expect(left(), err).toEqual([]);
  await expect(fetch(printed.url.replace('/mcp', '/health'))).rejects.toThrow();
});

it('Ctrl-C while the relay is still starting stops it too', async () => {
  const env = isolatedEnv({ PORT: String(await freePort()) });
  const persist = join(String(env.HOME), 'persist');
  const start = spawn('npm', ['start', '--', '--persist-to', persist, '--discover-dir', String(env.XDG_RUNTIME_DIR)], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  start.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<void>((resolve) => start.once('exit', () => resolve()));
  // As soon as the relay's process is running, and before the launcher has printed anything.
  await waitFor(() => (processesMentioning(persist).some((p) => p.includes('relay-process.mjs')) ? true : undefined), 30_000, 'the relay to start');
  process.kill(-start.pid!, 'SIGINT');
  await exited;
  const left = (): string[] => [...processesMentioning(persist), ...processesMentioning(`127.0.0.1:${env.PORT}`)];
  await waitFor(() => (left().length === 0 ? true : undefined), 30_000, 'every started process to exit').catch(() => {});
  expect(left(), err).toEqual([]);
});

/** Processes of a launcher started with `persist` and `port`: the guard and wrangler by the first, workerd by the second. */
function leftovers(persist: string, port: string): string[] {
  return [...new Set([...processesMentioning(persist), ...processesMentioning(`127.0.0.1:${port}`)])];
}

interface Launched {
  pid: number;
  out(): string;
  err(): string;
  exited: Promise<number | null>;
  /** Resolves with the URL and token once printed. */
  printed: Promise<{ url: string; token: string }>;
}

/**
 * The launcher itself (scripts/start.ts under tsx, as `npm start` runs it; with `npm`, through
 * `npm start`), in its own process group as under a terminal.
 */
function launch(env: NodeJS.ProcessEnv, persist: string, sockets: string, npm = false): Launched {
  const args = ['--persist-to', persist, '--discover-dir', sockets];
  const [command, argv] = npm ? ['npm', ['start', '--', ...args]] : [process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'start.ts'), ...args]];
  const proc = spawn(command, argv, {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const printed = new Promise<{ url: string; token: string }>((resolve, reject) => {
    void exited.then(() => reject(new Error(`the launcher exited before printing a token:\n${out}\n${err}`)));
    proc.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const url = /^MCP URL: (\S+)$/m.exec(out)?.[1];
      const token = /^Access token: (\S+)$/m.exec(out)?.[1];
      if (url && token) resolve({ url, token });
    });
  });
  printed.catch(() => undefined);
  return { pid: proc.pid!, out: () => out, err: () => err, exited, printed };
}

/** A fresh home for a launcher: its environment (PORT free), persistence and discovery directories. */
async function launcherHome(): Promise<{ env: NodeJS.ProcessEnv; persist: string; sockets: string; port: string }> {
  const port = String(await freePort());
  const env = isolatedEnv({ PORT: port });
  const sockets = join(String(env.HOME), 'sockets');
  mkdirSync(sockets);
  return { env, persist: join(String(env.HOME), 'persist'), sockets, port };
}

const gone = (persist: string, port: string) => waitFor(() => (leftovers(persist, port).length === 0 ? true : undefined), 30_000, 'every started process to exit').catch(() => {});

it.each([
  ['the terminal closes (SIGHUP to its process group)', (pid: number) => process.kill(-pid, 'SIGHUP')],
  ['the launcher is killed with SIGKILL', (pid: number) => process.kill(pid, 'SIGKILL')],
])('%s: nothing it started keeps running, and the port is free', async (_what, end) => {
  const { env, persist, sockets, port } = await launcherHome();
  const launched = launch(env, persist, sockets);
  const { url } = await launched.printed;
  expect(leftovers(persist, port).length).toBeGreaterThan(0);
  end(launched.pid);
  await launched.exited;
  await gone(persist, port);
  expect(leftovers(persist, port), launched.err()).toEqual([]);
  await expect(fetch(url.replace('/mcp', '/health'))).rejects.toThrow();
}, 120_000);

// tsx keeps compiled modules in $TMPDIR/tsx-<uid> and loads what it finds there, whoever made
// the directory; another account that makes it first (in a shared, sticky temporary directory,
// as /tmp is after a reboot) could swap in code that runs as the user. Neither the launcher nor
// the relay's process may use it: a cache in use writes every module it compiles there.
itAsOther("another account's tsx cache directory in $TMPDIR: npm start writes nothing there, so reads nothing from it", async () => {
  const { env, persist, sockets, port } = await launcherHome();
  const shared = mkdtempSync(join(tmpdir(), 'vimrelay-shared-tmp-'));
  try {
    chmodSync(shared, 0o1777);
    const squatted = join(shared, `tsx-${process.getuid?.() ?? 0}`);
    expect(asOther('mkdir', ['-m', '0777', squatted]).status).toBe(0);
    expect(asOther('touch', [join(squatted, 'planted')]).status).toBe(0);
    const launched = launch({ ...env, TMPDIR: shared }, persist, sockets, true);
    await launched.printed;
    expect(readdirSync(squatted)).toEqual(['planted']);
    expect(readdirSync(shared).filter((f) => f.startsWith('tsx'))).toEqual([basename(squatted)]);
    process.kill(-launched.pid, 'SIGINT');
    await launched.exited;
    await gone(persist, port);
  } finally {
    rmSync(shared, { recursive: true, force: true });
  }
}, 120_000);

it('workerd dying while the relay process lives: the launcher says so, exits 1, and stops the rest', async () => {
  const { env, persist, sockets, port } = await launcherHome();
  const launched = launch(env, persist, sockets);
  await launched.printed;
  const workerd = processesMentioning(`socket-addr=entry=127.0.0.1:${port}`).map((l) => Number(l.split(' ')[0]));
  expect(workerd).toHaveLength(1);
  process.kill(workerd[0]!, 'SIGKILL');
  expect(await launched.exited).toBe(1);
  expect(launched.err()).toMatch(/the relay stopped answering while its process still runs/);
  await gone(persist, port);
  expect(leftovers(persist, port)).toEqual([]);
}, 120_000);

it('a second start on the busy port names the running relay and exits, printing no URL or token, the first one undisturbed', async () => {
  const { env, persist, sockets, port } = await launcherHome();
  const first = launch(env, persist, sockets);
  let editor: NvimFixture | undefined;
  try {
    const printed = await first.printed;
    editor = await startNvim({ files: { 'b.txt': 'first one\n' }, open: ['b.txt'], listen: join(sockets, 'nvim.second.0') });
    const client = await connectMcp(printed.url, printed.token);
    await waitFor(async () => ((await callOk(client, 'list_editors')).count as number) || undefined, 20_000, 'the editor to be listed');
    const before = runCli(['status'], env).stdout;
    expect(before).toContain(`agent: running (pid ${first.pid})`);

    const second = launch(env, join(String(env.HOME), 'persist-2'), sockets);
    expect(await second.exited).toBe(2);
    expect(second.err()).toMatch(new RegExp(`port ${port} is in use by a vimrelay relay that is already running`));
    expect(second.out()).not.toMatch(/MCP URL|Access token/);

    // The first relay, its agent and its status are as they were.
    expect(runCli(['status'], env).stdout).toBe(before);
    expect((await callOk(client, 'read_buffer', {})).lines).toEqual(['first one']);
    expect(first.err()).not.toMatch(/replaced/);
    await client.close();
  } finally {
    process.kill(-first.pid, 'SIGINT');
    await first.exited;
    await editor?.stop();
    await gone(persist, port);
  }
}, 120_000);

it('a second start on another port with the same state directory names the running relay and exits, printing no URL or token, the first one undisturbed', async () => {
  const { env, persist, sockets, port } = await launcherHome();
  const first = launch(env, persist, sockets);
  let editor: NvimFixture | undefined;
  try {
    const printed = await first.printed;
    editor = await startNvim({ files: { 'b.txt': 'first one\n' }, open: ['b.txt'], listen: join(sockets, 'nvim.state.0') });
    const client = await connectMcp(printed.url, printed.token);
    await waitFor(async () => ((await callOk(client, 'list_editors')).count as number) || undefined, 20_000, 'the editor to be listed');

    const second = launch({ ...env, PORT: String(await freePort()) }, persist, sockets);
    expect(await second.exited).toBe(2);
    expect(second.err()).toMatch(new RegExp(`the state directory ${persist} is in use by the vimrelay relay on port ${port}`));
    expect(second.out()).not.toMatch(/MCP URL|Access token/);

    // The first relay still serves its agent's editor, whose rows the second never reached.
    expect((await callOk(client, 'read_buffer', {})).lines).toEqual(['first one']);
    await client.close();
  } finally {
    process.kill(-first.pid, 'SIGINT');
    await first.exited;
    await editor?.stop();
    await gone(persist, port);
  }
}, 120_000);

it('a vimrelay agent that takes over the device: the launcher says so and keeps the relay running, which serves the new agent\'s editors', async () => {
  const { env, persist, sockets, port } = await launcherHome();
  const launched = launch(env, persist, sockets);
  let editor: NvimFixture | undefined;
  let agent: ReturnType<typeof startAgentProcess> | undefined;
  try {
    const printed = await launched.printed;
    // The launcher stored the device's credential where `vimrelay agent` reads it.
    agent = startAgentProcess(['--relay', printed.url.replace(/\/mcp$/, ''), '--discover-dir', sockets], env);
    await agent.waitFor('connected to relay');
    await waitFor(() => (/another agent now serves this device; the relay keeps running/.test(launched.err()) ? true : undefined), 20_000, () => `the launcher to say so; it wrote:\n${launched.err()}`);
    editor = await startNvim({ files: { 'c.txt': 'served by the new agent\n' }, open: ['c.txt'], listen: join(sockets, 'nvim.takeover.0') });
    const client = await connectMcp(printed.url, printed.token);
    await waitFor(async () => ((await callOk(client, 'list_editors')).count as number) || undefined, 20_000, 'the editor to be listed');
    expect((await callOk(client, 'read_buffer', {})).lines).toEqual(['served by the new agent']);
    await client.close();
    expect(agent.proc.exitCode).toBeNull();
  } finally {
    await agent?.stop();
    process.kill(-launched.pid, 'SIGINT');
    await launched.exited;
    await editor?.stop();
    await gone(persist, port);
  }
}, 120_000);
