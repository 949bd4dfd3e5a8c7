/**
 * How long this process was not running: stopped (SIGSTOP, a closed laptop lid, a debugger) or
 * its event loop blocked. A timer ticks every `tickMs`; a tick that comes late by more than a
 * tick measures a stall. The relay link uses it twice (relay/connection.ts): a message that
 * arrives right after a stall may have waited in the socket for all of it, so the call it carries
 * gets that much less time; and the silence of the relay is counted only over the time this
 * process was running, so that its own freeze is not taken for a dead link. Pure apart from the
 * timer and the clock, both of which may be injected.
 */

export interface StallWatchOptions {
  /** Tick period (ms). Default 500. */
  tickMs?: number;
  /** The clock (epoch ms). Default Date.now. */
  now?: () => number;
}

export class StallWatch {
  readonly #tickMs: number;
  readonly #now: () => number;
  #last: number;
  /** The last stall the ticks measured, and when it ended. */
  #lastStall = { ms: 0, endedAt: -Infinity };
  /** Every stall measured so far, added up (ms). */
  #total = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(opts: StallWatchOptions = {}) {
    this.#tickMs = opts.tickMs ?? 500;
    this.#now = opts.now ?? Date.now;
    this.#last = this.#now();
  }

  /** Starts ticking; the timer never keeps the process alive. */
  start(): void {
    if (this.#timer) return;
    this.#last = this.#now();
    this.#timer = setInterval(() => this.tick(), this.#tickMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One tick (the timer's; exposed for a test's fake clock). */
  tick(): void {
    const now = this.#now();
    const stall = now - this.#last - this.#tickMs;
    if (stall > this.#tickMs) {
      this.#lastStall = { ms: stall, endedAt: now };
      this.#total += stall;
    }
    this.#last = now;
  }

  /**
   * How long something that happens now, and could not have started waiting before `since`
   * (epoch ms; say, a message on a socket opened then), may have waited because this process was
   * not running (ms, 0 when it ran all along): the stall going on (no tick yet since it ended), or
   * the last one when it ended less than a tick ago (the tick may have run first after it) and
   * after `since`.
   */
  stalledMs(since = -Infinity): number {
    const now = this.#now();
    const ongoing = now - this.#last - this.#tickMs;
    const { ms, endedAt } = this.#lastStall;
    const recent = now - endedAt < this.#tickMs && endedAt > since ? ms : 0;
    return Math.min(Math.max(0, ongoing > this.#tickMs ? ongoing : 0, recent), Math.max(0, now - since));
  }

  /** Every stall so far, added up, the one going on included (ms): differences give the stalled time between two moments. */
  totalMs(): number {
    const ongoing = this.#now() - this.#last - this.#tickMs;
    return this.#total + (ongoing > this.#tickMs ? ongoing : 0);
  }
}
