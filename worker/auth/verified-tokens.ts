/**
 * Personal access tokens this isolate verified a moment ago, so that a client's every request does
 * not cost a round trip to the Hub (which holds the signing key and the token records) before its
 * MCP message is even read. A verdict is kept for VERIFIED_TOKEN_TTL_MS at most, never past the
 * token's own expiry, and only for valid tokens: a refused one is asked about again each time.
 *
 * Revocation still takes effect at once where it matters: every tool call carries the PAT's jti to
 * the Hub, which checks the record before routing it (hub/call-router.ts), and a refusal there
 * turns the whole response into the 401 a fresh verification would have given (routes/mcp.ts),
 * and drops the verdict. What a cached verdict can still reach for at most the TTL is what needs no
 * editor: `initialize`, `tools/list`, `ping`.
 */

/** How long a verdict is kept (ms). */
export const VERIFIED_TOKEN_TTL_MS = 30_000;

/** Verdicts kept at most; the oldest goes first (a client that invents tokens cannot grow the map). */
const MAX_VERDICTS = 256;

/** Verdicts by key: whatever the caller verified, the token and what else it was checked against. */
export class VerifiedTokens<T> {
  readonly #verdicts = new Map<string, { value: T; untilMs: number }>();

  /** What was verified under `key`, while it is fresh. */
  get(key: string, nowMs: number): T | undefined {
    const verdict = this.#verdicts.get(key);
    if (!verdict) return undefined;
    if (nowMs < verdict.untilMs) return verdict.value;
    this.#verdicts.delete(key);
    return undefined;
  }

  /** Keeps `value` under `key` until the TTL or `expiresAtMs`, whichever comes first. */
  set(key: string, value: T, nowMs: number, expiresAtMs: number): void {
    this.#verdicts.delete(key);
    if (this.#verdicts.size >= MAX_VERDICTS) this.#verdicts.delete(this.#verdicts.keys().next().value as string);
    this.#verdicts.set(key, { value, untilMs: Math.min(nowMs + VERIFIED_TOKEN_TTL_MS, expiresAtMs) });
  }

  /** Drops every verdict whose value matches `test` (a jti the Hub refused). */
  forget(test: (value: T) => boolean): void {
    for (const [key, verdict] of this.#verdicts) if (test(verdict.value)) this.#verdicts.delete(key);
  }
}
