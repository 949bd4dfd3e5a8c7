/**
 * Throttling of owner-secret guesses (`POST /signin`, `/admin/*`), in the Hub's SQLite through
 * `rate-limits.ts`, never in isolate memory. Wrong secrets are counted per client address
 * (`http/client-address.ts`) and for the whole account; over either limit every attempt, the
 * right secret included, is refused until its window ends, without comparing anything, so that
 * a refused guess teaches nothing (OWASP Authentication Cheat Sheet, "Protect Against Automated
 * Attacks"). Right secrets are not counted: the launcher and the CLI call the admin API often.
 *
 * The account-wide limit alone would let anyone lock the owner out: six addresses guessing (one
 * IPv6 customer holds hundreds of /64s) fill it every minute. So an address that presented the
 * right secret in the last KNOWN_ADDRESS_MS is not held back by it, only by its own limit (the
 * address form of OWASP's "device cookies", Slow Down Online Guessing Attacks); its wrong guesses
 * still count in both. This module owns the `owner_addresses` table of those addresses.
 *
 * On the local relay every attempt comes from 127.0.0.1, and any local account can name any
 * address (http/client-address.ts): ten wrong guesses from another account held the owner out
 * too. So an attempt that names OWNER_USER (a random user name that `npm start` keeps in the
 * owner's 0600 `.dev.vars` and prints on the owner's terminal; the Basic user name) is counted in a
 * bucket of its own, OWNER_USER_BUCKET, at the per-address limit and in nothing else: nobody else
 * knows the name, so nobody else's guesses fill it, and guesses still meet a limit either way.
 * The name is 96 random bits: that a locked bucket answers 429 and the named one does not tells a
 * guesser whether a name is the one, at no cost in secret guesses, and 2^96 names are too many.
 *
 * An attempt reserves its place in its buckets before the comparison and gives it back when the
 * secret matches, so that concurrent guesses cannot all pass the check before any is counted.
 */
import { ownerSecretMatches } from '../auth/owner.ts';
import { UNKNOWN_CLIENT } from '../http/client-address.ts';
import { RateLimits } from './rate-limits.ts';

/** Wrong owner secrets allowed per minute. */
export const OWNER_GUESS_LIMITS = {
  /** From one client address (an IPv6 /64). */
  perClientPerMinute: 10,
  /** From everyone together. */
  allPerMinute: 60,
} as const;

/** How long an address that presented the right secret stays exempt from the account-wide limit. */
export const KNOWN_ADDRESS_MS = 30 * 24 * 60 * 60 * 1000;

const SCHEMA = `CREATE TABLE IF NOT EXISTS owner_addresses (
  client TEXT PRIMARY KEY,
  last_ok INTEGER NOT NULL
)`;

const ALL = 'owner-secret:all';

/** The client bucket of attempts that named OWNER_USER: never an address, exempt from the account-wide limit. */
export const OWNER_USER_BUCKET = 'owner-user';
const perClient = (client: string): string => `owner-secret:client:${client}`;

/** The answer to one attempt. */
export type OwnerSecretCheck = { ok: true } | { ok: false; limited: false } | { ok: false; limited: true; retryAfterS: number };

export class OwnerGuesses {
  private readonly limits: RateLimits;

  constructor(private readonly sql: SqlStorage) {
    this.limits = new RateLimits(sql);
    sql.exec(SCHEMA);
  }

  /**
   * Whether `presented` is `secret`, for an attempt from `client` (an address bucket, or
   * OWNER_USER_BUCKET) at `nowMs`, or that it is refused unread.
   */
  async check(presented: string, secret: string, client: string, nowMs: number): Promise<OwnerSecretCheck> {
    // Synchronous from here to the reservation: no other attempt can interleave.
    this.limits.sweep(nowMs);
    this.sql.exec('DELETE FROM owner_addresses WHERE ? - last_ok >= ?', nowMs, KNOWN_ADDRESS_MS);
    const named = client === OWNER_USER_BUCKET;
    const buckets = named ? [perClient(client)] : [perClient(client), ALL];
    const mine = this.limits.check(perClient(client), OWNER_GUESS_LIMITS.perClientPerMinute, nowMs);
    const everyone = named || this.known(client) ? ({ ok: true } as const) : this.limits.check(ALL, OWNER_GUESS_LIMITS.allPerMinute, nowMs);
    if (!mine.ok || !everyone.ok) {
      return { ok: false, limited: true, retryAfterS: Math.max(mine.ok ? 0 : mine.retryAfterS, everyone.ok ? 0 : everyone.retryAfterS) };
    }
    for (const bucket of buckets) this.limits.hit(bucket, nowMs);
    if (!(await ownerSecretMatches(presented, secret))) return { ok: false, limited: false };
    for (const bucket of buckets) this.limits.refund(bucket, nowMs);
    // Requests that name no address share one bucket (http/client-address.ts): never exempt; nor
    // is a name an address.
    if (client !== UNKNOWN_CLIENT && !named) {
      this.sql.exec('INSERT INTO owner_addresses (client, last_ok) VALUES (?, ?) ON CONFLICT(client) DO UPDATE SET last_ok = excluded.last_ok', client, nowMs);
    }
    return { ok: true };
  }

  /** Whether `client` presented the right secret within KNOWN_ADDRESS_MS (rows older are swept first). */
  private known(client: string): boolean {
    return this.sql.exec('SELECT 1 FROM owner_addresses WHERE client = ?', client).toArray().length > 0;
  }
}
