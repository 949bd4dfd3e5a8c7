/**
 * How fast the installed CLI starts, beside `node -e 0` measured in the same run (the floor: Node
 * itself), for bench/main.ts: `vimrelay --help` to exit, and `vimrelay serve --stdio` from spawn
 * to its answer to an MCP `initialize`. The compiled CLI (bin/vimrelay.js over dist/, `npm run
 * build`) is what users run.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { isolatedEnv } from '../test/helpers/agent-process.ts';
import { ROOT } from '../scripts/local-relay.ts';

const RUNS = Number(process.env.BENCH_START_RUNS ?? 15);
const CLI = join(ROOT, 'bin', 'vimrelay.js');
const env = isolatedEnv();

function timed(fn: () => void | Promise<void>): Promise<number> {
  const t0 = performance.now();
  return Promise.resolve(fn()).then(() => performance.now() - t0);
}

function run(args: string[]): void {
  const r = spawnSync(process.execPath, args, { env, stdio: 'ignore' });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}`);
}

/** Spawns `serve --stdio` and resolves when it has answered initialize; then ends it. */
function serveInitialize(): Promise<void> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [CLI, 'serve', '--stdio', '--discover-dir', String(env.XDG_RUNTIME_DIR)], { env, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (!out.includes('"id":1')) return;
      proc.stdin.end();
      proc.once('exit', () => resolve());
    });
    proc.once('error', reject);
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '0' } } };
    proc.stdin.write(JSON.stringify(initialize) + '\n');
  });
}

/** Minimum, median and maximum over RUNS runs, after one more that is not counted. */
export interface Spread {
  min: number;
  median: number;
  max: number;
}

async function sample(fn: () => void | Promise<void>): Promise<Spread> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await timed(fn));
  times.sort((a, b) => a - b);
  return { min: times[0] ?? NaN, median: times[Math.floor(times.length / 2)] ?? NaN, max: times.at(-1) ?? NaN };
}

/** The medians (and spread) of each start, and of `node -e 0` measured alongside. */
export async function cliStart(): Promise<Record<'floor' | 'help' | 'serve', Spread>> {
  return { floor: await sample(() => run(['-e', '0'])), help: await sample(() => run([CLI, '--help'])), serve: await sample(serveInitialize) };
}
