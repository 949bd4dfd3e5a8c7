/**
 * Throttling of owner-secret guesses (`POST /signin`, `/admin/*`), in the Hub's SQLite through
 * `rate-limits.ts`, never in isolate memory. Wrong secrets are counted per client address
 * (`http/client-address.ts`) and for the whole account; over either limit every attempt, the
 * right secret included, is refused until its window ends, without comparing anything, so that
 * a refused guess teaches nothing (OWASP Authentication Cheat Sheet, "Protect Against Automated
 * Attacks"). Right secrets are not counted: the launcher and the CLI call the admin API often.
 *
 * An attempt reserves its place in both buckets before the comparison and gives it back when the
 * secret matches, so that concurrent guesses cannot all pass the check before any is counted.
 */
import { ownerSecretMatches } from '../auth/owner.ts';
import { RateLimits } from './rate-limits.ts';

/** Wrong owner secrets allowed per minute. */
export const OWNER_GUESS_LIMITS = {
  /** From one client address (an IPv6 /64). */
  perClientPerMinute: 10,
  /** From everyone together. */
  allPerMinute: 60,
} as const;

const ALL = 'owner-secret:all';
const perClient = (client: string): string => `owner-secret:client:${client}`;

/** The answer to one attempt. */
export type OwnerSecretCheck = { ok: true } | { ok: false; limited: false } | { ok: false; limited: true; retryAfterS: number };

export class OwnerGuesses {
  private readonly limits: RateLimits;

  constructor(sql: SqlStorage) {
    this.limits = new RateLimits(sql);
  }

  /** Whether `presented` is `secret`, for an attempt from `client` at `nowMs`, or that it is refused unread. */
  async check(presented: string, secret: string, client: string, nowMs: number): Promise<OwnerSecretCheck> {
    // Synchronous from here to the reservation: no other attempt can interleave.
    this.limits.sweep(nowMs);
    const mine = this.limits.check(perClient(client), OWNER_GUESS_LIMITS.perClientPerMinute, nowMs);
    const everyone = this.limits.check(ALL, OWNER_GUESS_LIMITS.allPerMinute, nowMs);
    if (!mine.ok || !everyone.ok) {
      return { ok: false, limited: true, retryAfterS: Math.max(mine.ok ? 0 : mine.retryAfterS, everyone.ok ? 0 : everyone.retryAfterS) };
    }
    this.limits.hit(perClient(client), nowMs);
    this.limits.hit(ALL, nowMs);
    if (!(await ownerSecretMatches(presented, secret))) return { ok: false, limited: false };
    this.limits.refund(perClient(client), nowMs);
    this.limits.refund(ALL, nowMs);
    return { ok: true };
  }
}
