/**
 * The forms of the Pending page (PROTOCOL.md "Pending decisions"): besides the session's CSRF token
 * (session.ts), each form carries a nonce made for it alone — for this sign-in and this decision,
 * good for DECISION_LIMITS.formTtlMs — so that the relay carries only answers to decisions it
 * showed this owner: a form whose decision was changed, or made up, is FORGED. The nonce is
 * `<random>.<expiry ms>.<HMAC-SHA256(OWNER_SECRET, "decide:" session id ":" decision ":" random ":" expiry)>`;
 * its SHA-256 is what the Hub records when the form is sent (hub/used-forms.ts), so that it works
 * once (a second send is REPLAYED).
 */
import { DECISION_LIMITS } from '../../protocol/index.ts';
import { toBase64url } from './base64url.ts';
import { hashSecret } from './pairing.ts';
import { mac, macValid, type Session } from './session.ts';

const message = (session: Session, decision: string, random: string, expiry: string): string => `decide:${session.id}:${decision}:${random}:${expiry}`;

/** A nonce for a form answering `decision`, made at `nowMs` for `session`. */
export async function decisionNonce(secret: string, session: Session, decision: string, nowMs: number): Promise<string> {
  const random = toBase64url(crypto.getRandomValues(new Uint8Array(16)));
  const expiry = String(nowMs + DECISION_LIMITS.formTtlMs);
  return `${random}.${expiry}.${await mac(secret, message(session, decision, random, expiry))}`;
}

/**
 * The form `presented` (a nonce) for `decision` in `session` at `nowMs`: its hash and expiry when
 * this relay made it so and it has not expired; null otherwise (FORGED).
 */
export async function checkDecisionNonce(secret: string, session: Session, decision: string, presented: unknown, nowMs: number): Promise<{ hash: string; expiresAtMs: number } | null> {
  if (typeof presented !== 'string' || presented.length > 200) return null;
  const [random, expiry, tag, extra] = presented.split('.');
  if (random === undefined || expiry === undefined || tag === undefined || extra !== undefined) return null;
  const expiresAtMs = /^[0-9]{1,16}$/.test(expiry) ? Number(expiry) : NaN;
  if (!Number.isSafeInteger(expiresAtMs) || expiresAtMs <= nowMs) return null;
  if (!(await macValid(secret, message(session, decision, random, expiry), tag))) return null;
  return { hash: await hashSecret(presented), expiresAtMs };
}
