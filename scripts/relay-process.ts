/**
 * The local relay's own process, started by `local-relay.ts`: the Worker as `wrangler deploy`
 * bundles it (`worker-bundle.ts`), run by Miniflare in one workerd with the bindings wrangler.toml
 * declares. It runs as one plain JavaScript file (`relay-bundle.ts`) in the project's root, by Node
 * alone. Not `wrangler dev`, for what it adds:
 *
 * - No proxy worker: `wrangler dev` puts a second workerd in front of the Worker (to hold requests
 *   while it rebuilds), one more HTTP hop on every request and every WebSocket message, about
 *   0.9 ms and 50 MiB; the relay never rebuilds while running, and Cloudflare's edge has no such hop.
 * - No debugger: Miniflare opens V8's inspector only when asked. `wrangler dev` always opens it for
 *   the Worker (on 127.0.0.1, a free port near 9229) with no authentication: any local account
 *   could connect and read the Worker's secrets. Binding it elsewhere cannot help (every local user
 *   reaches 127.0.0.1); only not opening it does.
 * - Private state: umask 077 before anything is created, so the persisted Durable Object SQLite
 *   (the token-signing key, sessions, devices), KV and the bundle are 0600 files in 0700
 *   directories; state left by an earlier, looser run is tightened the same way first.
 * - Miniflare's loopback server (workerd's way back into Node, on 127.0.0.1, unauthenticated)
 *   serves nothing: workerd reports to a unix socket only this user may reach, where nothing but
 *   its reports is answered and no file read (`loopback-guard.ts`): the port's routes wrote files
 *   anywhere, showed any file's lines and printed anything in the log, for whoever asked.
 * - No secret on a command line (which every local user can read in the process list): the
 *   command line carries only `--port` and `--persist-to`; the Worker's variables, OWNER_SECRET
 *   included, arrive as JSON on stdin.
 *
 * - Readiness said on a pipe of the launcher's (`--ready-fd`), never read from the port: another
 *   account can take a free port between the launcher's check and workerd's bind, answer
 *   `/health`, and receive the owner secret with the launcher's first admin request.
 * - One relay per state directory: it holds the directory's lock (state-lock.ts) while it runs,
 *   and says `busy <holder>` on that pipe, and exits 2, when a live relay holds it already.
 *
 * Runs until SIGTERM or SIGINT, or until its stdin closes (the launcher stays connected to it, so
 * a launcher that dies, even by SIGKILL, takes the relay with it), then disposes of Miniflare
 * (and workerd with it).
 */
import { chmodSync, closeSync, lstatSync, mkdirSync, readdirSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parseArgs, parseEnv } from 'node:util';
import type * as MiniflareModule from 'miniflare';
import { readOptionalFile } from '../agent/config/private-file.ts';
import { guardLoopback, type LoopbackGuard } from './loopback-guard.ts';
import { lockState, StateInUse } from './state-lock.ts';
import { localWorker } from './worker-bundle.ts';

// Required, not imported: Miniflare is CommonJS, and an ES import of its named exports has Node
// scan its whole source for them first (a few tenths of a second of every start).
const { Log, LogLevel, Miniflare } = createRequire(import.meta.url)('miniflare') as typeof MiniflareModule;

/** The project's root: the launcher starts this process there (local-relay.ts). */
const ROOT = process.cwd();

/** Distinct refused routes named in the log; past them, one line says that no more are. */
const MAX_REFUSALS_NAMED = 10;

/** What `local-relay.ts` sends on stdin: the Worker's variables and secrets. */
export interface RelayProcessInput {
  vars: Record<string, string>;
}

/** Makes `dir` and everything under it the user's alone: directories 0700, files 0600 (symlinks left alone). */
function tighten(dir: string): void {
  const stat = lstatSync(dir, { throwIfNoEntry: false });
  if (!stat || stat.isSymbolicLink()) return;
  if (stat.isDirectory()) {
    chmodSync(dir, 0o700);
    for (const entry of readdirSync(dir)) tighten(join(dir, entry));
  } else {
    chmodSync(dir, 0o600);
  }
}

/** The first line on stdin (the launcher's JSON); stdin then stays open, and `onClose` runs when it closes. */
function firstLine(onClose: () => void): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    let answered = false;
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => {
      if (answered) return;
      text += chunk;
      const end = text.indexOf('\n');
      if (end >= 0) {
        answered = true;
        resolve(text.slice(0, end));
      }
    });
    process.stdin.on('end', () => (answered ? onClose() : reject(new Error('stdin closed before the options arrived'))));
    process.stdin.on('error', (error) => (answered ? onClose() : reject(error)));
  });
}

async function main(): Promise<void> {
  process.umask(0o077);
  const { values } = parseArgs({ options: { port: { type: 'string' }, 'persist-to': { type: 'string' }, 'ready-fd': { type: 'string' } } });
  const port = Number(values.port);
  const persistTo = values['persist-to'];
  // Where to say that workerd is listening (the header's "Readiness"): Miniflare's `ready` settles
  // once workerd has bound the port, and rejects when it cannot (the port taken meanwhile).
  const readyFd = values['ready-fd'] === undefined ? undefined : Number(values['ready-fd']);
  if (!Number.isInteger(port) || port <= 0 || !persistTo || (readyFd !== undefined && !Number.isInteger(readyFd))) {
    throw new Error('usage: relay-process.ts --port N --persist-to DIR [--ready-fd FD] (variables as JSON on stdin)');
  }
  const started: { relay?: MiniflareModule.Miniflare; guard?: LoopbackGuard } = {};
  let stopping = false;
  const dispose = (): void =>
    void started.relay
      ?.dispose()
      .then(() => started.guard?.close())
      .finally(() => process.exit(0));
  // Asked to stop while starting: the relay is disposed of as soon as it exists (below).
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    if (started.relay) dispose();
    else void (started.guard?.close() ?? Promise.resolve()).finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  const opts = { port, persistTo, ...(JSON.parse(await firstLine(stop)) as RelayProcessInput) };
  mkdirSync(opts.persistTo, { recursive: true, mode: 0o700 });
  tighten(opts.persistTo);
  // One relay per state directory (state-lock.ts), held until this process exits, however it does.
  let release: () => void;
  try {
    release = lockState(opts.persistTo, opts.port);
  } catch (error) {
    if (!(error instanceof StateInUse) || readyFd === undefined) throw error;
    writeSync(readyFd, `busy ${JSON.stringify(error.holder)}\n`);
    process.exit(2);
  }
  process.on('exit', release);
  const wranglerDir = join(ROOT, '.wrangler');
  mkdirSync(wranglerDir, { recursive: true, mode: 0o700 });
  tighten(wranglerDir);
  const worker = await localWorker(ROOT);
  const devVars = readOptionalFile(join(ROOT, '.dev.vars'));
  // As wrangler dev has them: wrangler.toml's [vars], then .dev.vars, then the launcher's.
  // LOCAL_RELAY last: the Worker then holds every request's URL to its Host header (worker/http/host.ts).
  const bindings = { ...worker.options.bindings, ...(devVars === undefined ? {} : parseEnv(devVars)), ...opts.vars, LOCAL_RELAY: '1' };
  const refusedRoutes = new Set<string>();
  // Miniflare's loopback server is created while it starts: its port refuses everything, and
  // workerd's reports reach this process at a private socket instead.
  const guard = await guardLoopback({
    refused: (route) => {
      if (refusedRoutes.size > MAX_REFUSALS_NAMED || refusedRoutes.has(route)) return;
      refusedRoutes.add(route);
      process.stderr.write(
        refusedRoutes.size > MAX_REFUSALS_NAMED
          ? `relay: more requests refused on Miniflare's loopback port; no more are named\n`
          : `relay: refused ${route} on Miniflare's loopback port (workerd reports to the relay at a socket of its own; nothing may use this port)\n`,
      );
    },
    error: (stack) => process.stderr.write(`relay: the Worker threw: ${stack}\n`),
    log: (level, text) => process.stderr.write(`relay: workerd ${level}: ${text}\n`),
  });
  started.guard = guard;
  const relay = new Miniflare({
    host: '127.0.0.1',
    port: opts.port,
    log: new Log(LogLevel.WARN),
    // The Worker reads nothing of `request.cf`: the placeholder, not a fetch of Cloudflare's.
    cf: false,
    // Where `wrangler dev --persist-to` keeps it, so state from earlier runs carries over.
    defaultPersistRoot: join(opts.persistTo, 'v3'),
    // The bundle is one ES module (wrangler bundles every import into it), named here rather than
    // found: with `modules: true` Miniflare parses its 2 MB to collect imports, half a second of
    // CPU at every start.
    workers: [{ ...worker.options, name: worker.name, modules: [{ type: 'ESModule', path: worker.scriptPath }], modulesRoot: dirname(worker.scriptPath), bindings }],
  });
  started.relay = relay;
  if (stopping) return dispose();
  try {
    await relay.ready;
    // Fail closed: a workerd that reported to the open port would have its reports refused there.
    if (!guard.redirected) throw new Error("workerd was not started with its loopback service at the relay's private socket");
  } catch (err) {
    await relay.dispose().catch(() => {});
    await guard.close();
    throw err;
  } finally {
    guard.disarm();
  }
  if (readyFd !== undefined) {
    writeSync(readyFd, 'ready\n');
    closeSync(readyFd);
  }
}

await main();
