/**
 * `startNvim()`: a real `nvim --headless --clean -n --listen <socket>` in an isolated temporary
 * home (HOME, XDG_* and TMPDIR all inside it, so nothing lands in the user's home), with files
 * written into its working directory, and a direct `neovim` client for driving and asserting.
 * `stop()` quits it (`qa!`), waits for the exit, kills it if it lingers, waits for the processes
 * it started (language servers) to end too, and removes the temporary directory; `kill()` simulates a crash. Shared by the agent and end-to-end tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { isolatedHome } from './home.ts';
import { descendants, ended } from './procs.ts';
import { waitFor } from './wait.ts';
import { attach, type NeovimClient } from 'neovim';

export interface StartNvimOptions {
  /** Files to create, relative to the working directory (or absolute), with their content. */
  files?: Record<string, string | Uint8Array>;
  /** Files to open at startup (first one shown), relative to the working directory. */
  open?: string[];
  /**
   * Address to listen on: a socket path (parent directories are created) or host:port. Default:
   * `<home>/editor.sock`, a name no agent's default discovery looks for (it scans /tmp for `nvim*`):
   * an agent running elsewhere on the machine would attach the test's Neovim, reinstall its Lua and
   * send requests of its own under the test's feet. Tests of discovery pass their own `nvim*` path.
   */
  listen?: string;
  /** Extra environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /** Extra arguments for nvim, after the others. */
  args?: string[];
}

export interface NvimFixture {
  /** The address it listens on. */
  socket: string;
  pid: number;
  /** The temporary home; the working directory is `<home>/work`. */
  home: string;
  cwd: string;
  /** A direct client, for driving the editor and checking what tools did. */
  client: NeovimClient;
  proc: ChildProcess;
  /** Resolves with the exit code (or null when killed by a signal). */
  exited: Promise<number | null>;
  /** Runs Lua in the editor and returns its result. */
  lua<T = unknown>(code: string, ...args: unknown[]): Promise<T>;
  /**
   * Makes the editor busy for `ms` (a blocking sleep in Lua: it answers no request meanwhile) and
   * resolves once it is: a request sent after that waits. (A notification alone does not promise
   * that: Neovim may serve a request on another channel before it.)
   */
  busy(ms: number): Promise<void>;
  /** Kills the process (SIGKILL by default) without quitting, as a crash would. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Quits, waits for the exit (killing after a grace period) and removes the temporary home. */
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 10_000;
const QUIT_GRACE_MS = 3_000;
/** The client's logger: silent, so that it never patches `console`. */
const quietLogger = { level: 'error', info() {}, warn() {}, error() {}, debug() {} };

/** Starts an isolated headless Neovim and connects a client to it. */
export async function startNvim(options: StartNvimOptions = {}): Promise<NvimFixture> {
  const { home, env } = isolatedHome('vimrelay-nvim-');
  const cwd = join(home, 'work');
  mkdirSync(cwd);
  for (const [file, content] of Object.entries(options.files ?? {})) {
    const path = file.startsWith('/') ? file : join(cwd, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
  const socket = options.listen ?? join(home, 'editor.sock');
  const tcp = /^([^/]+):(\d+)$/.exec(socket);
  if (!tcp) mkdirSync(dirname(socket), { recursive: true });

  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }

  const proc = spawn('nvim', ['--headless', '--clean', '-n', '--listen', socket, ...(options.open ?? []), ...(options.args ?? [])], {
    cwd,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  proc.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const pid = proc.pid;
  if (pid === undefined) throw new Error('nvim did not start');

  let conn: Socket;
  try {
    conn = await connectWhenReady(socket, tcp ? { host: tcp[1] ?? '', port: Number(tcp[2]) } : { path: socket }, exited, () => stderr);
  } catch (error) {
    proc.kill('SIGKILL');
    await exited;
    rmSync(home, { recursive: true, force: true });
    throw error;
  }
  const reader = new PassThrough();
  conn.on('data', (chunk: Buffer) => reader.write(chunk));
  conn.on('close', () => reader.end());
  // `as never`: the option is typed as winston's Logger; the client only calls these methods.
  const client = attach({ reader, writer: conn, options: { logger: quietLogger as never } });

  const alive = (): boolean => proc.exitCode === null && proc.signalCode === null;
  // What the editor started (language servers, terminal jobs), found before it goes: they are
  // orphans after, and may still write into its home (a compile cache in its TMPDIR).
  let family: number[] = [];
  let busyCount = 0;
  const fixture: NvimFixture = {
    socket,
    pid,
    home,
    cwd,
    client,
    proc,
    exited,
    lua: <T>(code: string, ...args: unknown[]) => client.request('nvim_exec_lua', [code, args]) as Promise<T>,
    async busy(ms) {
      const marker = join(home, `busy-${++busyCount}`);
      client.notify('nvim_exec_lua', [`vim.fn.writefile({}, ...); (vim.uv or vim.loop).sleep(${ms})`, [marker]]);
      await waitFor(() => (existsSync(marker) ? true : undefined), START_TIMEOUT_MS, 'the editor to be busy');
    },
    async kill(signal = 'SIGKILL') {
      if (alive()) {
        family = descendants(pid);
        proc.kill(signal);
      }
      await exited;
      conn.destroy();
    },
    async stop() {
      if (alive()) {
        family = descendants(pid);
        // `qa!` never gets an answer (the editor exits): notify, then wait for the exit.
        if (!conn.destroyed) client.notify('nvim_command', ['qa!']);
        const timer = setTimeout(() => proc.kill('SIGKILL'), QUIT_GRACE_MS);
        await exited;
        clearTimeout(timer);
      }
      conn.destroy();
      await ended(family, QUIT_GRACE_MS);
      rmSync(home, { recursive: true, force: true });
    },
  };
  return fixture;
}

/** Connects to `socket` once nvim listens on it; fails if nvim exits or takes too long. */
async function connectWhenReady(
  socket: string,
  target: { path: string } | { host: string; port: number },
  exited: Promise<number | null>,
  stderr: () => string,
): Promise<Socket> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (gone) throw new Error(`nvim exited before listening on ${socket}: ${stderr()}`);
    if (Date.now() > deadline) throw new Error(`nvim did not listen on ${socket} within ${START_TIMEOUT_MS} ms: ${stderr()}`);
    const conn = await new Promise<Socket | undefined>((resolve) => {
      const s = 'path' in target ? createConnection(target.path) : createConnection(target.port, target.host);
      s.once('connect', () => resolve(s));
      s.once('error', () => resolve(undefined));
    });
    if (conn) {
      conn.on('error', () => {});
      return conn;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}
