/**
 * Reconnect delays: "full jitter" exponential backoff (a uniformly random delay between 0 and
 * min(cap, base * 2^attempt)). Pure; the random source is passed in.
 */
export function fullJitterDelay(attempt: number, baseMs: number, capMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * ceiling);
}
