/**
 * Miniflare's loopback server: the HTTP server in this Node process through which workerd calls
 * back into Miniflare (an error to report, a log line). It listens on 127.0.0.1 with no
 * authentication, and its routes act as this user: `/core/store-temp-file` writes a request's
 * body to a path the request can steer anywhere (`extension=/../../..`), `/core/error` renders a
 * page of the source lines around each frame of the stack it is sent, reading whatever file a
 * frame names, and returns it to the caller; `/core/log` prints whatever it is sent, of any size,
 * in the relay's log; others list or delete Durable Object and Workflow storage or start a
 * browser. Every local account reaches 127.0.0.1, so any of them could have written
 * `~/.ssh/authorized_keys` of the user running `npm start`, read their private key, or filled
 * their disk and terminal through the relay's log.
 *
 * `guardLoopback` takes workerd's reports off that port. The port still listens (Miniflare needs
 * it), but every HTTP server created while the guard is armed (that one, created while Miniflare
 * starts) answers every request and upgrade with 403. Every workerd started while it is armed is
 * told to reach its loopback service at a unix socket instead (`--external-addr=loopback=unix:…`,
 * workerd.capnp `ExternalServer.address`), in a directory that only this user may enter: the
 * file system's permissions authenticate the caller, as ssh-agent's socket does. There, this
 * module answers two routes, reading no file: `POST /core/error` (the error's stack to `reports`,
 * a plain 500 back, as Cloudflare's edge answers a Worker that threw) and `POST /core/log` (a
 * warning or error line to `reports`), each read up to a cap. Miniflare offers no option for any
 * of this (its loopback address is not configurable), hence the interception of
 * `http.createServer` and `child_process.spawn`, undone once Miniflare is ready.
 */
import childProcess, { type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';

/** The most of one report read (bytes): an error's stack, a log line; the rest is dropped. */
export const REPORT_MAX_BYTES = { error: 64 * 1024, log: 16 * 1024 } as const;

/** The argument of workerd's command line that says where its loopback service is. */
const LOOPBACK_ARG = '--external-addr=loopback=';

/** Miniflare's log levels (`MF-Log-Level`): 1 error, 2 warn; the relay prints these two. */
const LOG_LEVELS: Record<string, 'error' | 'warn'> = { '1': 'error', '2': 'warn' };

/** What a guarded server tells its owner. */
export interface LoopbackReports {
  /** A request refused on Miniflare's port (its method and path). */
  refused(route: string): void;
  /** An error workerd reported (its stack, or what was sent). */
  error(text: string): void;
  /** A line workerd logged at warn or error. */
  log(level: 'error' | 'warn', text: string): void;
}

export interface LoopbackGuard {
  /** Whether a workerd was started with its loopback service at the private socket. */
  readonly redirected: boolean;
  /** Stops guarding what is created from now on (guarded servers stay guarded). */
  disarm(): void;
  /** Disarms, closes the private socket and removes its directory. */
  close(): Promise<void>;
}

/** The method and path of `req`. */
function routeOf(req: IncomingMessage): string {
  return `${req.method ?? ''} ${new URL(req.url ?? '/', 'http://loopback').pathname}`;
}

/** Reads `req`'s body up to `max` bytes (the rest is read and dropped), then calls `done` with it. */
function readCapped(req: IncomingMessage, max: number, done: (text: string) => void): void {
  const kept: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    if (size < max) kept.push(chunk.subarray(0, max - size));
    size += chunk.length;
  });
  req.on('end', () => done(Buffer.concat(kept).toString('utf8')));
}

/** The stack of an error report (workerd's JSON of an error: name, message, stack), else what came. */
function stackOf(text: string): string {
  try {
    const error = JSON.parse(text) as { stack?: unknown; message?: unknown };
    return typeof error.stack === 'string' ? error.stack : String(error.message ?? text);
  } catch {
    return text;
  }
}

/** The private socket's answers: workerd's two reports, nothing else. */
function answerReport(req: IncomingMessage, res: ServerResponse, reports: LoopbackReports): void {
  const route = routeOf(req);
  if (route === 'POST /core/error') {
    readCapped(req, REPORT_MAX_BYTES.error, (text) => {
      reports.error(stackOf(text));
      res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error\n');
    });
    return;
  }
  if (route === 'POST /core/log') {
    const level = LOG_LEVELS[String(req.headers['mf-log-level'])];
    readCapped(req, REPORT_MAX_BYTES.log, (text) => {
      if (level) reports.log(level, text);
      res.writeHead(204).end();
    });
    return;
  }
  res.writeHead(404).end();
}

/** Has `server` (Miniflare's loopback port) refuse every request and upgrade, whoever listens for them. */
function refuseAll(server: Server, reports: LoopbackReports): void {
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: unknown[]) => boolean;
  server.emit = ((event: string | symbol, ...args: unknown[]): boolean => {
    if (event !== 'request' && event !== 'upgrade') return emit(event, ...args);
    reports.refused(routeOf(args[0] as IncomingMessage));
    if (event === 'request') (args[1] as ServerResponse).writeHead(403, { 'content-type': 'text/plain' }).end('Forbidden\n');
    else (args[1] as Duplex).end('HTTP/1.1 403 Forbidden\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    return true;
  }) as typeof server.emit;
}

type Spawn = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

/**
 * Guards every HTTP server created, and redirects every workerd started, from now until
 * `disarm` (see the module header). Rejects when the private socket cannot be made.
 */
export async function guardLoopback(reports: LoopbackReports): Promise<LoopbackGuard> {
  // mkdtemp makes the directory 0700, under a fresh name no other account could have made first.
  const dir = mkdtempSync(join(tmpdir(), 'vimrelay-loopback-'));
  const socket = join(dir, 'reports.sock');
  const originalCreateServer = http.createServer;
  const originalSpawn = childProcess.spawn;
  const reportServer = originalCreateServer((req, res) => answerReport(req, res, reports));
  reportServer.on('upgrade', (_req: IncomingMessage, duplex: Duplex) => duplex.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n'));
  // Removed however this process ends but SIGKILL: Miniflare's own signal handlers exit at once,
  // before anything asynchronous could run.
  const removeDir = (): void => rmSync(dir, { recursive: true, force: true });
  process.once('exit', removeDir);
  try {
    await new Promise<void>((resolve, reject) => {
      reportServer.once('error', reject);
      reportServer.listen(socket, () => resolve());
    });
  } catch (err) {
    process.removeListener('exit', removeDir);
    removeDir();
    throw err;
  }
  let redirected = false;
  http.createServer = ((...args: Parameters<typeof http.createServer>) => {
    const server = originalCreateServer(...args);
    refuseAll(server, reports);
    return server;
  }) as typeof http.createServer;
  const spawn: Spawn = (command, args, options) => {
    const rewritten = args.map((arg) => {
      if (!arg.startsWith(LOOPBACK_ARG)) return arg;
      redirected = true;
      return `${LOOPBACK_ARG}unix:${socket}`;
    });
    return (originalSpawn as Spawn)(command, rewritten, options);
  };
  // Miniflare calls `spawn(command, args, options)` on the module object: only that form is redirected.
  childProcess.spawn = ((command: string, args?: unknown, options?: unknown) =>
    Array.isArray(args) && args.every((a): a is string => typeof a === 'string')
      ? spawn(command, args, (options ?? {}) as SpawnOptions)
      : (originalSpawn as (...a: unknown[]) => ChildProcess)(command, args, options)) as typeof childProcess.spawn;
  const disarm = (): void => {
    http.createServer = originalCreateServer;
    childProcess.spawn = originalSpawn;
  };
  return {
    get redirected() {
      return redirected;
    },
    disarm,
    close: async () => {
      disarm();
      const closed = new Promise<void>((resolve) => reportServer.close(() => resolve()));
      reportServer.closeAllConnections();
      await closed;
      process.removeListener('exit', removeDir);
      removeDir();
    },
  };
}
