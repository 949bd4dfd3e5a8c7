/**
 * Runs the relay in local workerd as a child process in its own process group
 * (`relay-process.ts`: Miniflare alone, with no proxy worker and no debugger, its state 0600/0700, its secrets
 * passed on stdin), waits until it says on a pipe of its own that workerd listens on the port
 * (never for whatever answers there: another account may have taken the port between the check
 * below and workerd's bind), and stops the whole group (wrangler and workerd) on
 * request, so nothing is left running. The child also stops when its stdin, a pipe from here,
 * closes: however this process ends, SIGKILL included, the relay does not outlive it. A port
 * already in use is refused before anything starts, naming the vimrelay relay that holds it if
 * one does (its `/health`); so is a state directory a live relay holds (state-lock.ts), naming it.
 * Used by the `npm start` launcher, the end-to-end tests and the benchmark.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { RelayProcessInput } from './relay-process.ts';
import { relayScript } from './relay-bundle.ts';
import { RelayLog } from './relay-log.ts';
import { stateHolder, StateInUse, type StateHolder } from './state-lock.ts';

export { StateInUse } from './state-lock.ts';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface LocalRelayOptions {
  port?: number;
  /** Durable Object and KV persistence directory. */
  persistTo: string;
  /** Worker variables and secrets, e.g. OWNER_SECRET (sent on the child's stdin, never its command line). */
  vars?: Record<string, string>;
  /**
   * Where the relay's own output goes (Miniflare's log, the Worker's, a bundling failure): escaped,
   * cut and rotated by `relay-log.ts`, since any local account can make the relay print.
   */
  logFile: string;
  /** How long to wait for the relay to be ready (ms). */
  readyTimeoutMs?: number;
  /** Aborting while waiting for the relay to be ready stops it, then rejects. */
  signal?: AbortSignal;
}

export interface LocalRelay {
  url: string;
  process: ChildProcess;
  /** Stops the relay's whole process group; resolves once its port is free again (or RELEASE_MS on). */
  stop(): Promise<void>;
}

/** The port is taken; `vimrelay` says whether a vimrelay relay answers there. */
export class PortInUse extends Error {
  constructor(
    readonly port: number,
    readonly vimrelay: boolean,
  ) {
    super(
      vimrelay
        ? `port ${port} is in use by a vimrelay relay that is already running (another npm start?): stop it, or set PORT to another port`
        : `port ${port} is in use by another program: stop it, or set PORT to another port`,
    );
  }
}

/** Rejects with PortInUse when something listens on 127.0.0.1:`port`. */
async function assertPortFree(port: number): Promise<void> {
  const free = await new Promise<boolean>((resolve, reject) => {
    const srv = createServer();
    srv.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve(false) : reject(err)));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
  if (free) return;
  let vimrelay = false;
  try {
    const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2_000) });
    vimrelay = ((await res.json()) as { name?: unknown }).name === 'vimrelay';
  } catch {
    // Not an HTTP server answering JSON: another program.
  }
  throw new PortInUse(port, vimrelay);
}

/** How long `stop` waits for the port to be released by a workerd being killed (ms). */
const RELEASE_MS = 5_000;

/**
 * Resolves once 127.0.0.1:`port` can be listened on again, or after `withinMs` whatever holds it
 * (then the next start says who does).
 */
async function portReleased(port: number, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await canListen(port)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
}

/** The lowest port the system hands out to a bind to port 0 (Linux's ip_local_port_range; else the IANA range, macOS's). */
function firstEphemeralPort(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 2_048) return low;
  } catch {
    // Not Linux.
  }
  return 49_152;
}

/** Whether `port` can be listened on at 127.0.0.1 now (it is released again before this answers). */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * A TCP port that was free a moment ago on 127.0.0.1, chosen below the range the system hands out
 * to binds to port 0: a port from that range, once released, can go to the next process asking
 * for any port before the relay binds it, and Miniflare's own loopback server asks for one while
 * the relay starts (the relay then failed with EADDRINUSE, its health probe answered by that
 * server).
 */
export async function freePort(): Promise<number> {
  const high = firstEphemeralPort() - 1;
  const low = Math.min(10_000, Math.floor(high / 2));
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${low} and ${high} on 127.0.0.1`);
}

export async function startLocalRelay(opts: LocalRelayOptions): Promise<LocalRelay> {
  const port = opts.port ?? (await freePort());
  await assertPortFree(port);
  // Before anything starts: a live relay on this state directory is named, as a busy port is.
  const persistTo = resolve(opts.persistTo);
  const holder = stateHolder(persistTo);
  if (holder !== null) throw new StateInUse(persistTo, holder);
  mkdirSync(dirname(opts.logFile), { recursive: true, mode: 0o700 });
  const log = new RelayLog(opts.logFile);
  const out = log.stream();
  const err = log.stream();
  const script = await relayScript(ROOT);
  const child = spawn(process.execPath, [script, '--port', String(port), '--persist-to', persistTo, '--ready-fd', '3'], {
    cwd: ROOT,
    detached: true, // its own process group, so that stop() reaches workerd too
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1' },
  });
  // One line of JSON, and stdin left open: the child stops when it closes, so that it cannot
  // outlive this process (relay-process.ts).
  const input: RelayProcessInput = { vars: opts.vars ?? {} };
  child.stdin?.on('error', () => {});
  child.stdin?.write(`${JSON.stringify(input)}\n`);
  child.stdout?.on('data', (chunk: Buffer) => out.write(chunk));
  child.stderr?.on('data', (chunk: Buffer) => err.write(chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;

  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    // workerd may outlive the relay's process by a moment; make sure the group is gone, and that
    // its port is free again, so that a relay started next on it is not refused (PortInUse).
    killGroup(child, 'SIGKILL');
    await portReleased(port, RELEASE_MS);
    out.end();
    err.end();
  };

  // Ready when the child says so on its own pipe (relay-process.ts: workerd has bound the port),
  // never when something answers on the port: another account may have taken it first. It says
  // `busy <holder>` instead when another relay took the state directory since the check above.
  let busy: StateHolder | null = null;
  const ready = new Promise<boolean>((resolve) => {
    let said = '';
    const pipe = child.stdio[3] as Readable | null;
    pipe?.setEncoding('utf8').on('data', (chunk: string) => {
      said += chunk;
      const line = /^busy (.*)\n/.exec(said);
      if (line) busy = JSON.parse(line[1] ?? 'null') as StateHolder;
      if (said.includes('ready\n')) resolve(true);
    });
    void exited.then(() => resolve(false));
  });
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    ready.then((ok) => (ok ? 'ready' : 'exited')),
    new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), opts.readyTimeoutMs ?? 60_000))),
    new Promise<'aborted'>((resolve) => {
      if (opts.signal?.aborted) resolve('aborted');
      opts.signal?.addEventListener('abort', () => resolve('aborted'), { once: true });
    }),
  ]);
  clearTimeout(timer);
  if (outcome !== 'ready') {
    const exit = `${child.signalCode ?? `code ${child.exitCode}`}`;
    await stop();
    if (outcome === 'aborted') throw new Error('stopped before the relay was ready');
    if (outcome === 'timeout') throw new Error(`the relay was not ready within the timeout; see ${opts.logFile}`);
    if (busy !== null) throw new StateInUse(persistTo, busy);
    throw new Error(`the relay (local workerd) exited (${exit}); see ${opts.logFile}`);
  }
  return { url, process: child, stop };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}
