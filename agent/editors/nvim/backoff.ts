/**
 * When to probe an address again after a failed probe: exponential backoff per address, so that
 * a stale socket is not re-probed every tick. An address whose identity changed (a new socket file
 * at the same path) is due at once. Pure: the clock is an argument.
 */

/** The backoff schedule: base * 2^(failures - 1), at most cap. */
export interface BackoffOptions {
  /** Wait after the first failure (ms). Default 2000. */
  baseMs?: number;
  /** Longest wait (ms). Default 30000. */
  capMs?: number;
}

interface Failure {
  identity: string;
  failures: number;
  retryAt: number;
}

/** Failed probes per address, and when each may be tried again. */
export class ProbeBackoff {
  readonly #baseMs: number;
  readonly #capMs: number;
  readonly #failed = new Map<string, Failure>();

  constructor({ baseMs = 2_000, capMs = 30_000 }: BackoffOptions = {}) {
    this.#baseMs = baseMs;
    this.#capMs = capMs;
  }

  /** May `address` (currently `identity`) be probed at `now`? */
  due(address: string, identity: string, now: number): boolean {
    const f = this.#failed.get(address);
    return !f || f.identity !== identity || now >= f.retryAt;
  }

  /** Records a failed probe at `now`. */
  failed(address: string, identity: string, now: number): void {
    const previous = this.#failed.get(address);
    const failures = previous && previous.identity === identity ? previous.failures + 1 : 1;
    const wait = Math.min(this.#capMs, this.#baseMs * 2 ** (failures - 1));
    this.#failed.set(address, { identity, failures, retryAt: now + wait });
  }

  /**
   * Records a probe at `now` that found an editor it cannot attach yet (one that waits for its
   * user): tried again `ms` later, however often, with no growing wait.
   */
  later(address: string, identity: string, now: number, ms: number): void {
    this.#failed.set(address, { identity, failures: 0, retryAt: now + ms });
  }

  /** The earliest time a failed address may be probed again, or null when none failed. */
  nextRetry(): number | null {
    let next: number | null = null;
    for (const f of this.#failed.values()) if (next === null || f.retryAt < next) next = f.retryAt;
    return next;
  }

  /** Forgets an address (it was attached, or its editor exited). */
  forget(address: string): void {
    this.#failed.delete(address);
  }

  /** Forgets every address not in `present`, so that the table stays as small as the scan. */
  retain(present: Iterable<string>): void {
    const keep = new Set(present);
    for (const address of this.#failed.keys()) if (!keep.has(address)) this.#failed.delete(address);
  }
}
