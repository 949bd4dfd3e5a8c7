/**
 * Measuring for `npm run bench`: latency samples (p50, p99) after a warm-up, throughput of many
 * callers at once, and what a process costs (its resident memory now and at its peak, and the
 * share of a core it used), read from /proc. Every sampled call's result is checked by the caller's
 * `check`; a wrong result throws, it is never a sample.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

export interface Latency {
  p50: number;
  p99: number;
}

/** `fn` run `warmup` times, then `calls` times one after another; its results checked. */
export async function latency<T>(calls: number, warmup: number, fn: () => Promise<T>, check: (result: T) => void): Promise<Latency> {
  for (let i = 0; i < warmup; i++) check(await fn());
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    const result = await fn();
    samples.push(performance.now() - t0);
    check(result);
  }
  return percentiles(samples);
}

/** The p50 and p99 of `samples` (ms). */
export function percentiles(samples: readonly number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { p50: at(0.5), p99: at(0.99) };
}

/** Calls per second with `callers` loops running `fn` at once until `total` calls are done; results checked. */
export async function throughput<T>(callers: number, total: number, fn: () => Promise<T>, check: (result: T) => void): Promise<number> {
  let left = total;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (left > 0) {
        left--;
        check(await fn());
      }
    }),
  );
  return total / ((performance.now() - t0) / 1000);
}

/** A process's resident memory now and at its peak (VmRSS, VmHWM), in MiB. */
export function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

/**
 * The process listening on TCP `port` (IPv4 or IPv6), from /proc/net/tcp{,6} and the sockets in
 * /proc/<pid>/fd: the local workerd behind a relay's URL. Null when none of this user's does.
 */
export function listenerPid(port: number): number | null {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address is ADDR:PORT in hex; state 0A is LISTEN; the inode is the 10th field.
      if (f[1]?.endsWith(`:${hexPort}`) && f[3] === '0A' && f[9]) inodes.add(`socket:[${f[9]}]`);
    }
  }
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (inodes.has(readlinkSync(`/proc/${pid}/fd/${fd}`))) return Number(pid);
      } catch {
        // gone meanwhile
      }
    }
  }
  return null;
}

/** CPU time (user + system) a process has used so far, in seconds. */
function cpuSeconds(pid: number): number {
  // Fields after the command name (which may hold spaces, so split after its closing paren).
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks / 100;
}

/** What a process keeps: its resident memory and its JS heap in use, both after a full collection (MiB). */
export interface Kept {
  rss: number;
  heap: number;
}

/**
 * What `pid` keeps once collected: it must run bench/gc-probe.mjs, which on SIGUSR2 collects and
 * appends its memoryUsage() to `out`. The resident figure is the least seen over `windowMs`
 * after the collection (glibc and V8 give pages back over a moment).
 */
export async function kept(pid: number, out: string, windowMs = 2_000): Promise<Kept> {
  const lines = (): string[] => readFileSync(out, 'utf8').split('\n').filter((l) => l.includes(`"pid":${pid},`));
  const before = lines().length;
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + 30_000;
  while (lines().length === before) {
    if (Date.now() > deadline) throw new Error(`process ${pid} did not report its memory (is bench/gc-probe.mjs loaded?)`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const usage = JSON.parse(lines().at(-1) ?? '{}') as { heapUsed: number };
  let rss = Infinity;
  for (const end = Date.now() + windowMs; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) rss = Math.min(rss, memory(pid).rss);
  return { rss, heap: usage.heapUsed / 1024 / 1024 };
}

/** The least resident memory of `pid` over the next `ms`, sampled every 100 ms, without a collection (MiB). */
export async function leastRss(pid: number, ms: number): Promise<number> {
  let rss = Infinity;
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) rss = Math.min(rss, memory(pid).rss);
  return rss;
}

/**
 * The user-space instructions each of `pids` runs over the next `ms`, counted together by `perf
 * stat` (a count a loaded machine does not skew as it does time), or null where perf cannot count.
 */
export function instructions(pids: readonly number[], ms: number): Promise<(number | null)[]> {
  return Promise.all(
    pids.map(
      (pid) =>
        new Promise<number | null>((resolve) => {
          const perf = spawn('perf', ['stat', '-x', ',', '-e', 'instructions:u', '-p', String(pid), '--', 'sleep', String(ms / 1000)], { stdio: ['ignore', 'ignore', 'pipe'] });
          let err = '';
          perf.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
          perf.once('error', () => resolve(null));
          perf.once('close', (code) => {
            const count = Number(err.split('\n').find((l) => l.includes('instructions'))?.split(',')[0]);
            resolve(code === 0 && Number.isFinite(count) ? count : null);
          });
        }),
    ),
  );
}

/** The share of one core (percent) each of `pids` uses over the same next `ms` milliseconds. */
export async function cpuShares(pids: readonly number[], ms: number): Promise<number[]> {
  const before = pids.map(cpuSeconds);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, ms));
  const seconds = (performance.now() - t0) / 1000;
  return pids.map((pid, i) => ((cpuSeconds(pid) - (before[i] ?? 0)) / seconds) * 100);
}

/** The machine's load averages, for the report. */
export function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}
