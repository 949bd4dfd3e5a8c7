/**
 * The `requestState` of a decision asked by rounds (spec 2026-07-28 "basic/patterns/mrtr",
 * Server Requirements: state that round-trips through the client is attacker-controlled input,
 * and the server MUST protect its integrity and reject state that fails verification). Sealed
 * with HMAC-SHA256 under a key this process draws at start and never writes anywhere: only the
 * process that holds the waiting call can open it, and a restart (which ends the call) voids it.
 *
 * Wire shape: `v1.` base64url(JSON payload) `.` base64url(HMAC(key, "vimrelay.requestState.v1." + body)).
 * Signed, not encrypted: the payload holds ids and a nonce, nothing secret. Single use and expiry
 * are the caller's (elicit-rounds.ts), which knows what was used.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a sealed state says. */
export interface StatePayload {
  /** The waiting call it resumes (elicit-rounds.ts). */
  readonly call: string;
  /** The decision it answers (decisions/book.ts). */
  readonly decision: string;
  /** Random, once per state minted: what makes it single-use. */
  readonly nonce: string;
  /** When it stops being taken (epoch ms): the decision's own expiry. */
  readonly expires: number;
  /** The tool call it was minted for (its name and arguments, digested): a retry must be the same call. */
  readonly binding: string;
}

const PREFIX = 'v1.';
const DOMAIN = 'vimrelay.requestState.v1.';

export class RequestStateSeal {
  readonly #key: Buffer;

  /** `key`: at least 32 bytes; default a fresh random one. */
  constructor(key: Buffer = randomBytes(32)) {
    if (key.length < 32) throw new RangeError('a requestState key is at least 32 bytes');
    this.#key = key;
  }

  seal(payload: StatePayload): string {
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${PREFIX}${body}.${this.#mac(body).toString('base64url')}`;
  }

  /** The payload of a state this seal made, or why not: `malformed`, or `mac` (not made with this key, or changed since). */
  open(state: string): { ok: true; payload: StatePayload } | { ok: false; why: 'malformed' | 'mac' } {
    const parts = state.startsWith(PREFIX) ? state.slice(PREFIX.length).split('.') : [];
    const [body, mac] = parts;
    if (parts.length !== 2 || !body || !mac) return { ok: false, why: 'malformed' };
    const given = Buffer.from(mac, 'base64url');
    const expected = this.#mac(body);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, why: 'mac' };
    try {
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as StatePayload;
      const fields = [payload.call, payload.decision, payload.nonce, payload.binding];
      if (!fields.every((f) => typeof f === 'string') || typeof payload.expires !== 'number') return { ok: false, why: 'malformed' };
      return { ok: true, payload };
    } catch {
      return { ok: false, why: 'malformed' };
    }
  }

  #mac(body: string): Buffer {
    return createHmac('sha256', this.#key).update(DOMAIN + body).digest();
  }
}
