/**
 * The owner's browser session, for the relay's pages (dashboard, pairing approval, OAuth consent).
 * Signing in with OWNER_SECRET sets `__Host-vimrelay-session` (RFC 6265bis §4.1.3.2: Secure,
 * Path=/, no Domain; HttpOnly; SameSite=Lax so that a consent link opened from an assistant's site
 * still finds it) holding `<expiry ms>.<random id>.<HMAC-SHA256>`, keyed by OWNER_SECRET.
 * This module checks a cookie's authenticity and expiry only: whether its session is still live
 * (not signed out) is recorded in the Hub (`owner-session.ts`). Changing the secret signs every
 * browser out.
 *
 * CSRF (OWASP synchronizer-token pattern, bound to the session): every form that changes state
 * carries `HMAC(secret, "csrf:" + id)`, checked in constant time. The Origin header is not relied
 * on: with `Referrer-Policy: no-referrer` browsers send `Origin: null` on form posts.
 */
import { fromBase64url, toBase64url } from './base64url.ts';

/** Name of the session cookie. */
export const SESSION_COOKIE = '__Host-vimrelay-session';

/** How long a sign-in lasts. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** A verified session. `id` is random per sign-in. */
export interface Session {
  readonly id: string;
  readonly expiresAtMs: number;
}

const encoder = new TextEncoder();

function key(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
}

/** HMAC-SHA256 of `message` under `secret`, base64url: what the relay signs its cookies and forms with. */
export async function mac(secret: string, message: string): Promise<string> {
  return toBase64url(new Uint8Array(await crypto.subtle.sign('HMAC', await key(secret), encoder.encode(message))));
}

/** Constant-time check of a MAC made by `mac` (SubtleCrypto.verify compares in constant time). */
export async function macValid(secret: string, message: string, presented: string): Promise<boolean> {
  const bytes = fromBase64url(presented);
  if (bytes === null || bytes.byteLength !== 32) return false;
  return crypto.subtle.verify('HMAC', await key(secret), bytes, encoder.encode(message));
}

function cookieAttributes(maxAgeSeconds: number): string {
  return `Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}`;
}

/** Starts a session: the session and the Set-Cookie header value that carries it. */
export async function startSession(secret: string, nowMs: number): Promise<{ session: Session; setCookie: string }> {
  const id = toBase64url(crypto.getRandomValues(new Uint8Array(16)));
  const expiresAtMs = nowMs + SESSION_TTL_MS;
  const payload = `${expiresAtMs}.${id}`;
  const value = `${payload}.${await mac(secret, `session:${payload}`)}`;
  return { session: { id, expiresAtMs }, setCookie: `${SESSION_COOKIE}=${value}; ${cookieAttributes(SESSION_TTL_MS / 1000)}` };
}

/**
 * The session of a request that presents the owner secret itself (the local relay's HTTP Basic
 * sign-in, `basic-owner.ts`): one id per secret, so that its CSRF tokens and sealed reveals hold
 * from one request to the next, for as long as the secret does.
 */
export async function secretSession(secret: string, nowMs: number): Promise<Session> {
  return { id: await mac(secret, 'basic-session'), expiresAtMs: nowMs + SESSION_TTL_MS };
}

/** The Set-Cookie header value that ends the session in this browser. */
export function endSessionCookie(): string {
  return `${SESSION_COOKIE}=; ${cookieAttributes(0)}`;
}

/** The value of cookie `name` in a Cookie header (RFC 6265 §5.4 syntax), or null. */
export function cookieValue(header: string | null, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** The request's session if its cookie is authentic and unexpired at `nowMs`; else null. */
export async function readSession(request: Request, secret: string, nowMs: number): Promise<Session | null> {
  if (!secret) return null;
  const value = cookieValue(request.headers.get('Cookie'), SESSION_COOKIE);
  const parts = value?.split('.');
  if (!parts || parts.length !== 3) return null;
  const [expiry, id, tag] = parts as [string, string, string];
  const expiresAtMs = Number(expiry);
  if (!Number.isSafeInteger(expiresAtMs) || expiresAtMs <= nowMs) return null;
  if (!(await macValid(secret, `session:${expiry}.${id}`, tag))) return null;
  return { id, expiresAtMs };
}

/** The CSRF token that forms of this session carry. */
export function csrfToken(secret: string, session: Session): Promise<string> {
  return mac(secret, `csrf:${session.id}`);
}

/** Whether `presented` is this session's CSRF token (constant time). */
export function csrfValid(secret: string, session: Session, presented: unknown): Promise<boolean> {
  return typeof presented === 'string' ? macValid(secret, `csrf:${session.id}`, presented) : Promise.resolve(false);
}

/**
 * `next` if it is a path on this origin (one leading `/`, not `//` or `/\`, which browsers read
 * as another host); else `fallback`. Keeps sign-in from becoming an open redirect.
 */
export function localPath(next: unknown, fallback = '/dashboard'): string {
  if (typeof next !== 'string' || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return fallback;
  return [...next].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f) ? fallback : next;
}
