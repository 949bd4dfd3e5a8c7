/**
 * Device pairing (RFC 8628, the OAuth 2.0 device authorization grant) and device credentials: the
 * constants, the codes and the pure checks. No storage and no I/O beyond the CSPRNG and SHA-256;
 * the Hub's `hub/pairings.ts` and `hub/device-credentials.ts` keep the state, the routes speak HTTP.
 *
 * Secrets (device codes, user codes, credentials) are stored only as SHA-256 hashes, looked up by
 * hash and then compared in constant time (`sameHash`).
 */
import { toBase64url as base64url } from './base64url.ts';

/** How long a pairing request lives (RFC 8628 §3.2 `expires_in`). */
export const PAIRING_TTL_S = 600;

/** The minimum polling interval we ask for (RFC 8628 §3.2 `interval`; §3.5 adds 5 s per slow_down). */
export const POLL_INTERVAL_S = 5;

/** How much a `slow_down` adds to the interval (RFC 8628 §3.5). */
export const SLOW_DOWN_STEP_S = 5;

/**
 * Slack on the polling interval: the server's clock only advances between I/O events, so a client
 * that waits exactly `interval` may seem a little early. A poll sooner than this is `slow_down`.
 */
export const POLL_SLACK_MS = 1_000;

/**
 * Rate limits, per account (the Hub is per account) and per client address (`http/client-address.ts`),
 * so that one anonymous source cannot fill the account's queue. Over a limit: 429 with Retry-After.
 * A flood from many addresses can still fill it: the owner sees the waiting requests on /pair and
 * dismisses them, and pairs a machine of theirs with a ticket from that page, which no limit
 * refuses (hub/pairing-tickets.ts).
 */
export const PAIRING_LIMITS = {
  /** Pairing requests still waiting for the owner at once. */
  maxPending: 10,
  /** Of those, from one client address. */
  maxPendingPerClient: 3,
  /** POST /pair/device per minute. */
  startsPerMinute: 20,
  /** Of those, from one client address. */
  startsPerClientPerMinute: 5,
  /** Wrong user codes typed (or linked) per minute: RFC 8628 §5.1 brute-force protection. */
  wrongCodesPerMinute: 10,
} as const;

/** Lifetime of the short-lived device JWT an agent gets for its credential. */
export const DEVICE_JWT_TTL_S = 600;

/**
 * User code alphabet: consonants only, no vowels (so no words) and nothing that looks alike,
 * as RFC 8628 §6.1 suggests. 20^8 ≈ 2^34.6 codes; with at most PAIRING_LIMITS.wrongCodesPerMinute
 * guesses a minute over a 10-minute life, a guess succeeds with odds below 1 in 10^8 (§5.1).
 */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';

/** Characters in a user code (shown as two groups of four: `XXXX-XXXX`). */
export const USER_CODE_LENGTH = 8;

/** Prefix of a device credential, so that one is recognisable in a file or a leak scanner. */
export const CREDENTIAL_PREFIX = 'vrd_';

/** A fresh device credential: `vrd_` and 256 random bits. */
export function newCredential(): string {
  return CREDENTIAL_PREFIX + base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** A fresh device code (RFC 8628 §3.2; §5.2 asks for enough entropy): 256 random bits. */
export function newDeviceCode(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** Prefix of a pairing ticket (hub/pairing-tickets.ts), so that one is recognisable where it is pasted. */
export const TICKET_PREFIX = 'vrt_';

/** A fresh pairing ticket: `vrt_` and 128 random bits, pasted, never typed, and never guessed. */
export function newPairingTicket(): string {
  return TICKET_PREFIX + base64url(crypto.getRandomValues(new Uint8Array(16)));
}

/** A fresh user code, 8 letters of USER_CODE_ALPHABET, unbiased (rejection sampling). */
export function newUserCode(): string {
  const n = USER_CODE_ALPHABET.length;
  const limit = 256 - (256 % n);
  let code = '';
  while (code.length < USER_CODE_LENGTH) {
    for (const byte of crypto.getRandomValues(new Uint8Array(16))) {
      if (byte < limit && code.length < USER_CODE_LENGTH) code += USER_CODE_ALPHABET[byte % n];
    }
  }
  return code;
}

/**
 * A user code as typed by a person, normalised: case, dashes and spaces ignored (RFC 8628 §6.1).
 * Null when what is left cannot be a user code, so that garbage is refused before any lookup.
 */
export function normaliseUserCode(input: string): string | null {
  const code = input.toUpperCase().replace(/[\s-]/g, '');
  if (code.length !== USER_CODE_LENGTH) return null;
  return [...code].every((ch) => USER_CODE_ALPHABET.includes(ch)) ? code : null;
}

/** `BCDFGHJK` as `BCDF-GHJK`. */
export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** Hex SHA-256 of a secret: what is stored and looked up in place of the secret. */
export async function hashSecret(secret: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(secret));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Whether two hex hashes are equal, in constant time (workerd's SubtleCrypto.timingSafeEqual).
 * The row was found by an index lookup on the hash; this comparison is what decides.
 */
export function sameHash(a: string, b: string): boolean {
  const encoder = new TextEncoder();
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  if (x.byteLength !== y.byteLength) return false;
  return crypto.subtle.timingSafeEqual(x, y);
}

/** What a poll of the token endpoint finds (RFC 8628 §3.5). */
export type PollVerdict = 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token' | 'invalid_grant' | 'approved';

/** Where a pairing request stands: waiting for the owner, decided, or cancelled by its device. */
export type PairingStatus = 'pending' | 'approved' | 'denied' | 'cancelled';

/** A pairing's state as the poll check needs it. Times in ms. */
export interface PollState {
  status: PairingStatus;
  expiresAtMs: number;
  lastPollMs: number | null;
  intervalS: number;
}

/**
 * The answer to a poll at `nowMs` (RFC 8628 §3.5). Expiry first: an expired request is
 * `expired_token` whatever the owner did. Polling sooner than the interval is `slow_down`, even
 * once approved, so that a client that ignores the interval cannot hurry the answer.
 */
export function pollVerdict(state: PollState, nowMs: number): PollVerdict {
  if (nowMs >= state.expiresAtMs) return 'expired_token';
  if (state.lastPollMs !== null && nowMs - state.lastPollMs < state.intervalS * 1000 - POLL_SLACK_MS) return 'slow_down';
  // The device itself gave up (`POST /pair/cancel`): the code is as good as used.
  if (state.status === 'cancelled') return 'invalid_grant';
  if (state.status === 'denied') return 'access_denied';
  if (state.status === 'approved') return 'approved';
  return 'authorization_pending';
}
