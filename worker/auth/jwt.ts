/**
 * JWT signing and verification with jose (RFC 7519 / RFC 7515 compact serialisation). Owns the
 * cryptography only: claim policy is `claims.ts`, keys come from `keys.ts`, revocation from
 * `tokens.ts`. The algorithm is pinned both in our header check and in jose's `algorithms`.
 */
import { compactVerify, decodeProtectedHeader, SignJWT, type JWTPayload } from 'jose';
import { checkClaims, checkHeader, TOKEN_ALG, TOKEN_TYP, type Checked, type Expectation, type TokenClaims, type TokenKind } from './claims.ts';
import type { SigningKey } from './keys.ts';

/** Signs `claims` as a token of `kind`: header `{alg: ES256, typ, kid}`. */
export async function signToken(kind: TokenKind, claims: TokenClaims, key: SigningKey): Promise<string> {
  return new SignJWT(claims as unknown as JWTPayload)
    .setProtectedHeader({ alg: TOKEN_ALG, typ: TOKEN_TYP[kind], kid: key.kid })
    .sign(key.privateKey);
}

/**
 * Verifies a compact JWT: header checks first (so that `alg: none` or an HMAC header never reaches
 * a key), then the ES256 signature against our public key, then the claims at `nowMs`.
 * Does not consult storage: the caller still checks that the jti is recorded and not revoked.
 */
export async function verifyToken(token: string, expect: Expectation, key: SigningKey, nowMs: number): Promise<Checked<TokenClaims>> {
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(token) as Record<string, unknown>;
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const headerCheck = checkHeader(header, expect.kind);
  if (!headerCheck.ok) return headerCheck;
  if (header.kid !== undefined && header.kid !== key.kid) return { ok: false, reason: 'bad_signature' };

  let payloadBytes: Uint8Array;
  try {
    ({ payload: payloadBytes } = await compactVerify(token, key.publicKey, { algorithms: [TOKEN_ALG] }));
  } catch {
    return { ok: false, reason: 'bad_signature' };
  }
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder().decode(payloadBytes));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return { ok: false, reason: 'malformed' };
  return checkClaims(payload as Record<string, unknown>, expect, nowMs);
}
