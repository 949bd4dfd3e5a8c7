/**
 * Rate limits of anonymous client registration (`POST /oauth/register`, RFC 7591): the endpoint
 * takes requests without authentication, which "MAY be rate-limited or otherwise limited to
 * prevent a denial-of-service attack" (RFC 7591 §3); every registration is a record kept in the
 * OAuth provider's storage. Counted per client address first, then for the account, through
 * `rate-limits.ts`; a refused request counts in neither.
 */
import { RateLimits, type RateCheck } from './rate-limits.ts';

/** Registrations per minute: from one client address, and in all. */
export const REGISTRATION_LIMITS = { perClientPerMinute: 10, perMinute: 60 } as const;

const BUCKET_ALL = 'register';
const bucketClient = (client: string): string => `register:${client}`;

export class RegistrationLimits {
  private readonly limits: RateLimits;

  constructor(sql: SqlStorage) {
    this.limits = new RateLimits(sql);
  }

  /** Counts one registration from `client` (a client-address bucket) at `nowMs`, or refuses it. */
  admit(client: string, nowMs: number): RateCheck {
    const mine = this.limits.check(bucketClient(client), REGISTRATION_LIMITS.perClientPerMinute, nowMs);
    if (!mine.ok) return mine;
    const all = this.limits.check(BUCKET_ALL, REGISTRATION_LIMITS.perMinute, nowMs);
    if (!all.ok) return all;
    this.limits.hit(bucketClient(client), nowMs);
    this.limits.hit(BUCKET_ALL, nowMs);
    return { ok: true };
  }
}
