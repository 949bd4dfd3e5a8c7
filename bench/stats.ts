/**
 * Measuring for `npm run bench`: latency samples (p50, p99) after a warm-up, throughput of many
 * callers at once, and what a process costs (its resident memory now and at its peak, and the
 * share of a core it used), read from /proc. Every sampled call's result is checked by the caller's
 * `check`; a wrong result throws, it is never a sample.
 */
import { readFileSync } from 'node:fs';
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

/** CPU time (user + system) a process has used so far, in seconds. */
function cpuSeconds(pid: number): number {
  // Fields after the command name (which may hold spaces, so split after its closing paren).
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks / 100;
}

/** The share of one core (percent) that `pid` uses over the next `ms` milliseconds. */
export async function cpuShare(pid: number, ms: number): Promise<number> {
  const before = cpuSeconds(pid);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, ms));
  return ((cpuSeconds(pid) - before) / ((performance.now() - t0) / 1000)) * 100;
}

/** The machine's load averages, for the report. */
export function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}
