/**
 * When the relay link tries again (PROTOCOL.md "Wire protocol"). Every failed attempt waits a
 * "full jitter" exponential backoff: a uniformly random delay between 0 and min(cap, base *
 * 2^attempt), so that a relay that is up but failing is not hammered. When the relay may simply
 * be down, the agent also asks the relay's `/health` every `probeMs` (full jitter between half
 * and all of it) while it waits, and tries again as soon as the relay is back:
 *   - `unreachable` (nothing answered: connection refused, DNS, timeout; the relay is down, being
 *     redeployed, or the network is gone): the first probe that answers ends the wait;
 *   - `server` (a 5xx: the relay or its edge is not serving): a probe that answers after one that
 *     did not ends it; a relay whose `/health` answers all along while it refuses the agent gets
 *     the plain backoff;
 *   - `refused` (any other HTTP status): the plain backoff.
 * A probe of a relay that is down costs it nothing, and one that is up costs it one request the
 * Worker answers alone (no Durable Object), so the agent serves again within about `probeMs` of
 * the relay coming back, however long the outage grew the backoff.
 * The delay computation is pure; `waitToRetry` does the waiting with the global timers (which a
 * test may fake) and the probe it is given.
 */

/** A uniformly random delay between 0 and min(capMs, baseMs * 2^attempt). */
export function fullJitterDelay(attempt: number, baseMs: number, capMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * ceiling);
}

/** How the last attempt failed; see the module header. */
export type Failure = 'unreachable' | 'server' | 'refused';

export interface RetryOptions {
  /** The attempt that failed, from 0 (the backoff grows with it). */
  attempt: number;
  failure: Failure;
  baseMs: number;
  capMs: number;
  /** The health probe's period (ms). */
  probeMs: number;
  /** Whether the relay answers its `/health` now; never rejects. */
  probe: (signal: AbortSignal) => Promise<boolean>;
  signal: AbortSignal;
  random?: () => number;
  /** Told the delay the backoff chose, before waiting. */
  onScheduled?: (delayMs: number) => void;
}

/** Why the wait ended: the backoff ran out, a probe found the relay answering, or `signal` aborted. */
export type RetryCause = 'backoff' | 'probe' | 'aborted';

/** Waits before the next attempt, as the module header says. */
export function waitToRetry(opts: RetryOptions): Promise<RetryCause> {
  const random = opts.random ?? Math.random;
  const delay = fullJitterDelay(opts.attempt, opts.baseMs, opts.capMs, random);
  opts.onScheduled?.(delay);
  return new Promise((resolve) => {
    const probing = new AbortController();
    let probeTimer: ReturnType<typeof setTimeout> | undefined;
    const finish = (cause: RetryCause): void => {
      clearTimeout(backoffTimer);
      clearTimeout(probeTimer);
      probing.abort();
      opts.signal.removeEventListener('abort', onAbort);
      resolve(cause);
    };
    const onAbort = (): void => finish('aborted');
    if (opts.signal.aborted) return finish('aborted');
    opts.signal.addEventListener('abort', onAbort, { once: true });
    const backoffTimer = setTimeout(() => finish('backoff'), delay);
    if (opts.failure === 'refused') return;
    // Whether the relay was seen not answering: the attempt itself, or a probe.
    let down = opts.failure === 'unreachable';
    const next = (): void => {
      probeTimer = setTimeout(() => {
        void opts.probe(probing.signal).then((answers) => {
          if (probing.signal.aborted) return;
          if (answers && down) return finish('probe');
          down = !answers;
          next();
        });
      }, Math.floor(opts.probeMs / 2 + (random() * opts.probeMs) / 2));
    };
    // Probing only pays when the backoff is longer than a probe's period.
    if (delay > opts.probeMs) next();
  });
}
