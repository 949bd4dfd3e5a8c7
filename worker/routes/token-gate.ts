/**
 * The token endpoint's gate for Client ID Metadata Document clients, before the OAuth library sees
 * the request. Presenting a URL as `client_id` at `POST /oauth/token` makes the library fetch that
 * document, and the endpoint is anonymous: left alone, anyone could make the relay fetch any URL.
 * A CIMD client gets to the library only when its document may be fetched at all
 * (`auth/cimd-policy.ts`) and the owner has approved it (a grant of the owner's names it); every
 * other one is answered `401 invalid_client` here (RFC 6749 §5.2), without a fetch.
 *
 * The client id is looked for where RFC 6749 §2.3.1 and RFC 7523 §3 put it: the Basic credentials'
 * user, the `client_id` field, and the `iss` of a `client_assertion`. Requests without a CIMD
 * client id pass untouched.
 */
import { fromBase64url } from '../auth/base64url.ts';
import { cimdUrlRefusal, isCimdClientId } from '../auth/cimd-policy.ts';
import { ownerGrants } from '../auth/owner-grants.ts';
import type { Env } from '../env.ts';
import { readCapped } from '../http/body.ts';
import { oauthError } from '../http/responses.ts';

/** Largest token request read here (bytes); a larger one is refused before the library reads it. */
const MAX_TOKEN_BODY_BYTES = 16 * 1024;

/** RFC 6749 §5.2: a 401 names the scheme the client may authenticate with. */
const BASIC_CHALLENGE = { 'WWW-Authenticate': 'Basic realm="OAuth"' };

/** The Basic credentials' user (RFC 6749 §2.3.1: form-encoded, then base64), or null. */
function basicUser(header: string | null): string | null {
  const m = /^basic[ \t]+(\S+)$/i.exec(header ?? '');
  if (!m?.[1]) return null;
  try {
    const decoded = atob(m[1]);
    const colon = decoded.indexOf(':');
    return colon < 0 ? null : decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/** The `iss` of a client assertion JWT (RFC 7523 §3), read without verifying it, or null. */
function assertionIssuer(jwt: string | null): string | null {
  const payload = fromBase64url(jwt?.split('.')[1] ?? '');
  if (!payload) return null;
  try {
    const iss = (JSON.parse(new TextDecoder().decode(payload)) as { iss?: unknown }).iss;
    return typeof iss === 'string' ? iss : null;
  } catch {
    return null;
  }
}

/** Whether the owner holds a grant for `clientId`. */
async function ownerApproved(env: Env, origin: string, clientId: string): Promise<boolean> {
  return (await ownerGrants(env, origin)).some((g) => g.clientId === clientId);
}

/** The refusal of a token request that would make the library fetch a CIMD it must not; null to pass it on. */
export async function tokenRequestRefusal(request: Request, env: Env, origin: string): Promise<Response | null> {
  const body = await readCapped(request.clone(), MAX_TOKEN_BODY_BYTES);
  if (!body.ok) return oauthError(413, 'invalid_request', `The request body must not exceed ${MAX_TOKEN_BODY_BYTES} bytes.`);
  const form = new URLSearchParams(body.text);
  const candidates = [basicUser(request.headers.get('Authorization')), ...form.getAll('client_id'), assertionIssuer(form.get('client_assertion'))];
  for (const clientId of new Set(candidates)) {
    if (clientId === null || !isCimdClientId(clientId)) continue;
    if (cimdUrlRefusal(new URL(clientId)) !== null || !(await ownerApproved(env, origin, clientId))) {
      return oauthError(401, 'invalid_client', 'Client not found.', BASIC_CHALLENGE);
    }
  }
  return null;
}
