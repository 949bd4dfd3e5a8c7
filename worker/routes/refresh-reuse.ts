/**
 * Refresh token reuse at the token endpoint (RFC 9700 §4.14.2; OAuth 2.1 "Refresh Token Grant":
 * rotation for public clients). Every refresh token is exchanged once: one presented again after
 * it was exchanged, whoever presents it, revokes its whole grant, every access and refresh token
 * of it, and is answered `invalid_grant`. The server cannot tell the thief from the client, so
 * both are cut off and the owner authorizes the client again; a stolen token's use is thereby
 * detected and ended instead of cutting off the real client alone.
 *
 * The OAuth library rotates refresh tokens but keeps the previous one valid until its successor is
 * used (for a client that lost the answer to its refresh). vimrelay keeps no such grace: a replay
 * within it is exactly the attack (a thief's use of the previous token would cut the client off
 * and keep the thief in), and a client that lost a refresh's answer signs in again.
 *
 * Wraps the library's exchange: the token is claimed in the Hub (hub/used-refresh-tokens.ts)
 * before it, and settled after it by what the library answered. Other grant types pass untouched.
 */
import { hubFor } from '../account.ts';
import { oauthHelpers } from '../auth/oauth.ts';
import type { Env } from '../env.ts';
import { readCapped } from '../http/body.ts';
import { oauthError } from '../http/responses.ts';

/** Read cap of the token request here; token-gate.ts has refused larger ones already. */
const MAX_TOKEN_BODY_BYTES = 16 * 1024;

/** The library's refresh tokens are `<user>:<grant>:<secret>`. */
const REFRESH_TOKEN = /^([^:]+):([^:]+):([^:]+)$/;

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The refresh token of a `refresh_token` grant request, with its user and grant ids; null for anything else. */
async function presentedRefreshToken(request: Request): Promise<{ token: string; userId: string; grantId: string } | null> {
  const body = await readCapped(request.clone(), MAX_TOKEN_BODY_BYTES);
  if (!body.ok) return null;
  const form = new URLSearchParams(body.text);
  if (form.get('grant_type') !== 'refresh_token') return null;
  const token = form.get('refresh_token') ?? '';
  const m = REFRESH_TOKEN.exec(token);
  if (!m?.[1] || !m[2]) return null;
  return { token, userId: m[1], grantId: m[2] };
}

const REUSED = 'This refresh token was used before: the grant is revoked. Authorize the client again.';

/**
 * Answers a token request through `exchange` (the OAuth library), refusing a reused refresh token
 * and revoking its grant. `origin` is the relay's (the library's helpers are built per origin).
 */
export async function exchangeOnce(request: Request, env: Env, origin: string, exchange: () => Promise<Response>): Promise<Response> {
  const presented = await presentedRefreshToken(request);
  if (!presented) return exchange();
  const hub = hubFor(env);
  const hash = await sha256Hex(presented.token);
  const grantKey = `${presented.userId}:${presented.grantId}`;
  const revoke = async (): Promise<Response> => {
    // Not the token or the grant id: the log is readable by whoever reads the Worker's logs.
    console.warn('vimrelay: a refresh token was used twice; its grant is revoked (RFC 9700 §4.14.2)');
    await oauthHelpers(env, origin).revokeGrant(presented.grantId, presented.userId);
    return oauthError(400, 'invalid_grant', REUSED);
  };
  if ((await hub.claimRefreshToken(hash, grantKey)) === 'replayed') return revoke();
  let response: Response;
  try {
    response = await exchange();
  } catch (err) {
    await hub.settleRefreshToken(hash, grantKey, false);
    throw err;
  }
  const { burnt } = await hub.settleRefreshToken(hash, grantKey, response.status === 200);
  // A replay came while this exchange ran, and the library may have written the grant back after
  // that replay's revocation: revoke it again, and hand out nothing.
  return burnt ? revoke() : response;
}
