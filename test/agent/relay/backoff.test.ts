// When the relay link tries again (agent/relay/backoff.ts), on a fake clock: full jitter between 0
// and min(cap, base * 2^attempt); a relay that refused waits out the backoff, probed never; an
// unreachable one is probed every probeMs (jittered) and retried at the first answering probe, so
// the agent is back within a probe period however long the backoff grew; a 5xx relay is retried
// when its /health comes back after failing, not while it answers all along; aborting ends the wait.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LIMITS } from '../../../protocol/index.ts';
import { fullJitterDelay, waitToRetry, type Failure, type RetryCause } from '../../../agent/relay/backoff.ts';

describe('fullJitterDelay', () => {
  it('stays between 0 and min(cap, base * 2^attempt)', () => {
    const { reconnectBaseMs: base, reconnectCapMs: cap } = LIMITS;
    expect(fullJitterDelay(0, base, cap, () => 0.999)).toBe(999);
    expect(fullJitterDelay(3, base, cap, () => 0.5)).toBe(4_000);
    expect(fullJitterDelay(10, base, cap, () => 0.999)).toBe(29_970);
    expect(fullJitterDelay(50, base, cap, () => 0)).toBe(0);
  });
});

describe('waitToRetry', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Starts a wait after attempt 10 (backoff ceiling 30 s) with a random of 0.9; `answers` says what each probe finds. */
  function wait(failure: Failure, answers: (probe: number) => boolean, signal = new AbortController().signal) {
    const probes: number[] = [];
    let scheduled = -1;
    let cause: RetryCause | undefined;
    const started = Date.now();
    void waitToRetry({
      attempt: 10,
      failure,
      baseMs: LIMITS.reconnectBaseMs,
      capMs: LIMITS.reconnectCapMs,
      probeMs: LIMITS.healthProbeMs,
      random: () => 0.9,
      probe: async () => {
        probes.push(Date.now() - started);
        return answers(probes.length);
      },
      signal,
      onScheduled: (ms) => (scheduled = ms),
    }).then((c) => (cause = c));
    return { probes, scheduled: () => scheduled, cause: () => cause, elapsed: () => Date.now() - started };
  }

  it('a relay that refused waits the whole jittered backoff, and is never probed', async () => {
    const w = wait('refused', () => true);
    expect(w.scheduled()).toBe(27_000);
    await vi.advanceTimersByTimeAsync(26_999);
    expect(w.cause()).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(w.cause()).toBe('backoff');
    expect(w.probes).toEqual([]);
  });

  it('an unreachable relay is probed every probe period and retried at the first probe that answers', async () => {
    // Down for the first 5 probes, then back.
    const w = wait('unreachable', (n) => n > 5);
    expect(w.scheduled()).toBe(27_000);
    await vi.advanceTimersByTimeAsync(27_000);
    expect(w.cause()).toBe('probe');
    const period = Math.floor(LIMITS.healthProbeMs / 2 + (0.9 * LIMITS.healthProbeMs) / 2);
    expect(w.probes).toEqual([1, 2, 3, 4, 5, 6].map((n) => n * period));
    // Back within one probe period of the relay answering, not at the end of the backoff.
    expect(w.probes.at(-1)).toBeLessThan(w.scheduled());
  });

  it('a relay answering 5xx is retried when its /health comes back after failing, not while it answered all along', async () => {
    const steady = wait('server', () => true);
    await vi.advanceTimersByTimeAsync(27_000);
    expect(steady.cause()).toBe('backoff');
    expect(steady.probes.length).toBeGreaterThan(5);

    const recovering = wait('server', (n) => n > 2);
    await vi.advanceTimersByTimeAsync(27_000);
    expect(recovering.cause()).toBe('probe');
    expect(recovering.probes).toHaveLength(3);
  });

  it('does not probe when the backoff is shorter than a probe period', async () => {
    const probes: number[] = [];
    const cause = waitToRetry({ attempt: 0, failure: 'unreachable', baseMs: 1_000, capMs: 30_000, probeMs: 2_000, random: () => 0.5, probe: async () => (probes.push(1), true), signal: new AbortController().signal });
    await vi.advanceTimersByTimeAsync(500);
    expect(await cause).toBe('backoff');
    expect(probes).toEqual([]);
  });

  it('ends when its signal aborts, probing no more', async () => {
    const stop = new AbortController();
    const w = wait('unreachable', () => false, stop.signal);
    await vi.advanceTimersByTimeAsync(5_000);
    stop.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(w.cause()).toBe('aborted');
    const probed = w.probes.length;
    await vi.advanceTimersByTimeAsync(30_000);
    expect(w.probes.length).toBe(probed);
  });
});
