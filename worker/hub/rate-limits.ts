/**
 * Fixed-window rate limits in the Hub's SQLite storage. Owns the `rate_limits` table: one row per
 * named bucket with the start of its current one-minute window and the count in it. State lives
 * in the Durable Object, never in isolate memory, so every Worker isolate sees the same counts.
 * Callers decide what to count and what a refusal means.
 */

const SCHEMA = `CREATE TABLE IF NOT EXISTS rate_limits (
  bucket TEXT PRIMARY KEY,
  window_start INTEGER NOT NULL,
  count INTEGER NOT NULL
)`;

/** Length of one window. */
export const RATE_WINDOW_MS = 60_000;

/** Under the limit, or over it until `retryAfterS` seconds from now. */
export type RateCheck = { ok: true } | { ok: false; retryAfterS: number };

export class RateLimits {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(SCHEMA);
  }

  /** Whether `bucket` has room for one more event in the window at `nowMs` (counts nothing). */
  check(bucket: string, limit: number, nowMs: number): RateCheck {
    const row = this.current(bucket, nowMs);
    if (row.count < limit) return { ok: true };
    return { ok: false, retryAfterS: Math.max(1, Math.ceil((row.windowStart + RATE_WINDOW_MS - nowMs) / 1000)) };
  }

  /** Counts one event in `bucket`'s window at `nowMs`. */
  hit(bucket: string, nowMs: number): void {
    const row = this.current(bucket, nowMs);
    this.sql.exec(
      'INSERT INTO rate_limits (bucket, window_start, count) VALUES (?, ?, ?) ON CONFLICT(bucket) DO UPDATE SET window_start = excluded.window_start, count = excluded.count',
      bucket,
      row.windowStart,
      row.count + 1,
    );
  }

  /** Takes back one event counted in `bucket`'s current window (never below zero). */
  refund(bucket: string, nowMs: number): void {
    this.sql.exec('UPDATE rate_limits SET count = MAX(0, count - 1) WHERE bucket = ? AND ? - window_start < ?', bucket, nowMs, RATE_WINDOW_MS);
  }

  /** Forgets the buckets whose window ended before `nowMs`, so that one row per client address does not pile up. */
  sweep(nowMs: number): void {
    this.sql.exec('DELETE FROM rate_limits WHERE ? - window_start >= ?', nowMs, RATE_WINDOW_MS);
  }

  private current(bucket: string, nowMs: number): { windowStart: number; count: number } {
    const row = this.sql.exec<{ window_start: number; count: number }>('SELECT window_start, count FROM rate_limits WHERE bucket = ?', bucket).toArray()[0];
    if (!row || nowMs - row.window_start >= RATE_WINDOW_MS) return { windowStart: nowMs, count: 0 };
    return { windowStart: row.window_start, count: row.count };
  }
}
