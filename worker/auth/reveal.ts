/**
 * Showing a freshly created personal access token exactly once, with Post/Redirect/Get: the
 * create form's POST mints the token and answers 303 with `__Host-vimrelay-reveal`, a short-lived
 * cookie holding the token sealed with AES-256-GCM (key derived from OWNER_SECRET by HKDF-SHA-256,
 * RFC 5869; the session id as additional data, so another session cannot open it). The GET that
 * follows opens it, shows the token and clears the cookie; a reload finds nothing. The relay never
 * stores the token text. "Once" is the browser's: it drops the cleared cookie. A copy of the cookie
 * taken before (which already means holding the session) could open it again until it expires.
 *
 * Cookie (RFC 6265bis §4.1.3.2): `__Host-`, Secure, Path=/, HttpOnly, SameSite=Strict, and it
 * expires by itself after `REVEAL_TTL_MS` if the GET never comes.
 */
import type { Session } from './session.ts';
import { fromBase64url, toBase64url as base64url } from './base64url.ts';

/** Name of the reveal cookie. */
export const REVEAL_COOKIE = '__Host-vimrelay-reveal';

/** How long a created token waits for its one showing. */
export const REVEAL_TTL_MS = 5 * 60 * 1000;

/** What the shown-once page shows: the token and what it is. */
export interface Reveal {
  token: string;
  name: string;
  scopes: string[];
  expires_at: string;
}

const encoder = new TextEncoder();

async function sealingKey(secret: string): Promise<CryptoKey> {
  const base = await crypto.subtle.importKey('raw', encoder.encode(secret), 'HKDF', false, ['deriveKey']);
  return crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: encoder.encode('vimrelay token reveal v1') },
    base,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

const additionalData = (session: Session): Uint8Array => encoder.encode(`reveal:${session.id}`);

/** The Set-Cookie value carrying `reveal`, sealed for `session`, until `nowMs + REVEAL_TTL_MS`. */
export async function revealCookie(secret: string, session: Session, reveal: Reveal, nowMs: number): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const plaintext = encoder.encode(JSON.stringify({ ...reveal, until: nowMs + REVEAL_TTL_MS }));
  const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: additionalData(session) }, await sealingKey(secret), plaintext);
  const value = `${base64url(iv)}.${base64url(new Uint8Array(sealed))}`;
  return `${REVEAL_COOKIE}=${value}; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=${REVEAL_TTL_MS / 1000}`;
}

/** The Set-Cookie value that removes the reveal cookie. */
export function clearRevealCookie(): string {
  return `${REVEAL_COOKIE}=; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=0`;
}

/**
 * Opens a reveal cookie value: the token if it was sealed with this secret for this session and
 * has not expired at `nowMs`; else null (GCM authentication refuses any tampering).
 */
export async function openReveal(secret: string, session: Session, value: string | null, nowMs: number): Promise<Reveal | null> {
  const [ivText, sealedText, extra] = (value ?? '').split('.');
  if (ivText === undefined || sealedText === undefined || extra !== undefined) return null;
  const iv = fromBase64url(ivText);
  const sealed = fromBase64url(sealedText);
  if (!iv || iv.byteLength !== 12 || !sealed) return null;
  let opened: unknown;
  try {
    const plaintext = await crypto.subtle.decrypt({ name: 'AES-GCM', iv, additionalData: additionalData(session) }, await sealingKey(secret), sealed);
    opened = JSON.parse(new TextDecoder().decode(plaintext));
  } catch {
    return null;
  }
  const r = opened as Partial<Reveal & { until: number }>;
  if (typeof r.until !== 'number' || r.until <= nowMs) return null;
  if (typeof r.token !== 'string' || typeof r.name !== 'string' || typeof r.expires_at !== 'string' || !Array.isArray(r.scopes)) return null;
  return { token: r.token, name: r.name, scopes: r.scopes.filter((s): s is string => typeof s === 'string'), expires_at: r.expires_at };
}
