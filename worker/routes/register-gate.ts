/**
 * The client registration endpoint's gate (`POST /oauth/register`, RFC 7591), before the OAuth
 * library sees the request: the endpoint is anonymous, and each registration a record kept in
 * storage, so a body larger than any client's metadata is refused (413), and registrations are
 * rate-limited per client address and for the account (hub/registration-limits.ts; 429 with
 * Retry-After, in OAuth's error shape so that clients read it) — except on the local relay
 * (LOCAL_RELAY), whose every client is this machine, one address, and whose storage is the user's
 * own disk. Whatever passes is the library's to validate, with the relay's policy on its metadata
 * (auth/oauth.ts).
 */
import type { Env } from '../env.ts';
import { hubFor } from '../account.ts';
import { readCapped } from '../http/body.ts';
import { clientAddress } from '../http/client-address.ts';
import { oauthError } from '../http/responses.ts';

/** Largest registration request read (bytes): client metadata is a few hundred bytes. */
export const MAX_REGISTRATION_BODY_BYTES = 16 * 1024;

/** The refusal of a registration request; null to pass it on. */
export async function registrationRefusal(request: Request, env: Env): Promise<Response | null> {
  const body = await readCapped(request.clone(), MAX_REGISTRATION_BODY_BYTES);
  if (!body.ok) return oauthError(413, 'invalid_client_metadata', `The client metadata must not exceed ${MAX_REGISTRATION_BODY_BYTES} bytes.`);
  if (env.LOCAL_RELAY) return null;
  const admitted = await hubFor(env).admitRegistration(clientAddress(request));
  if (admitted.ok) return null;
  return oauthError(429, 'temporarily_unavailable', `Too many client registrations; try again in ${admitted.retryAfterS} seconds.`, { 'Retry-After': String(admitted.retryAfterS) });
}
