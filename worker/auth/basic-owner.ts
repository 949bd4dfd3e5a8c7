/**
 * The local relay's owner sign-in (LOCAL_RELAY): HTTP Basic (RFC 7617), the owner secret as the
 * password, checked under the same guess limits as `/signin` (`owner-check.ts`). Any user name
 * will do; OWNER_USER as the user name sets the owner's attempts apart from everyone's guesses,
 * which on the local relay all come from 127.0.0.1 (`hub/owner-guesses.ts`).
 *
 * Why not the session cookie there: browsers keep cookies apart by host, not by port (RFC 6265
 * §8.5), so every program listening on another port of 127.0.0.1 that the browser is sent to —
 * an OAuth client's loopback redirect after Allow or Deny, any link — would receive it, and any
 * local account can listen on such a port. Basic credentials are kept per protection space, the
 * origin with its port and the realm (RFC 7235 §2.2), and sent nowhere else.
 */
import type { Env } from '../env.ts';
import { checkOwnerSecret, type OwnerSecretCheck } from './owner-check.ts';

/** The realm of the challenge (RFC 7617 §2; `charset` as its §2.1 defines). */
export const BASIC_CHALLENGE = 'Basic realm="vimrelay", charset="UTF-8"';

/** The user name and password of a `Basic` Authorization header (user-id ":" password, UTF-8), or null. */
export function basicCredentials(request: Request): { user: string; password: string } | null {
  const match = /^Basic[ ]+([A-Za-z0-9+/]+={0,2})[ ]*$/i.exec(request.headers.get('Authorization') ?? '');
  if (!match) return null;
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(atob(match[1] as string), (ch) => ch.charCodeAt(0));
  } catch {
    return null;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
  const colon = text.indexOf(':');
  return colon < 0 ? null : { user: text.slice(0, colon), password: text.slice(colon + 1) };
}

/** What a request's Basic credentials say: no password at all is `absent`, never a guess. */
export type BasicOwner = OwnerSecretCheck | { ok: false; limited: false; absent: true };

/** Checks the request's Basic password against OWNER_SECRET (which the caller has found set). */
export async function basicOwner(env: Env, request: Request, secret: string): Promise<BasicOwner> {
  const credentials = basicCredentials(request);
  if (credentials === null || credentials.password === '') return { ok: false, limited: false, absent: true };
  return checkOwnerSecret(env, request, credentials.password, secret, credentials.user);
}
