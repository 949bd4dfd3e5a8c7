/**
 * Token claims: what a vimrelay JWT carries and the pure checks a verifier runs on its header and
 * payload. Pure: no keys, no storage, the clock is an argument. Signature checks live in `jwt.ts`;
 * the revocation check (jti recorded and not revoked) lives in `tokens.ts`.
 *
 * Access tokens follow RFC 9068 (JWT profile for OAuth 2.0 access tokens); device tokens use the
 * same checks with their own `typ` and audience.
 */

/** `access`: an MCP client's bearer token for `/mcp`. `device`: an agent's token for `/agent`. */
export type TokenKind = 'access' | 'device';

/** The only signing algorithm we issue and accept (RFC 7518 §3.4, ECDSA P-256 SHA-256). */
export const TOKEN_ALG = 'ES256';

/** JOSE `typ` per kind (RFC 7515 §4.1.9). Access tokens use RFC 9068 §2.1's `at+jwt`. */
export const TOKEN_TYP: { readonly [K in TokenKind]: string } = {
  access: 'at+jwt',
  device: 'vimrelay-device+jwt',
};

/** Clock skew allowed on `exp`, `iat` and `nbf` (seconds). Issuer and verifier share a clock today. */
export const CLOCK_TOLERANCE_S = 1;

/** The audience of a token of `kind` issued by the relay at `origin`: the resource it is for. */
export function audienceFor(kind: TokenKind, origin: string): string {
  return kind === 'access' ? `${origin}/mcp` : `${origin}/agent`;
}

/** `client_id` of a personal access token minted with `name` (RFC 9068 §2.2 requires one). */
export function patClientId(name: string): string {
  return `pat:${name}`;
}

/** Claims of a valid token, as the relay reads them back. */
export interface TokenClaims {
  iss: string;
  aud: string;
  sub: string;
  exp: number;
  iat: number;
  jti: string;
  /** Access tokens only: space-separated scopes (RFC 9068 §2.2.3). */
  scope?: string;
  /** Access tokens only. */
  client_id?: string;
}

/** What the verifier expects: the kind of token and the relay origin that must have issued it. */
export interface Expectation {
  kind: TokenKind;
  origin: string;
}

/**
 * Why a token was refused. Stable strings (the admin verify route returns them); `describe`
 * maps each to the text sent in `error_description`.
 */
export type Rejection =
  | 'malformed'
  | 'unsupported_alg'
  | 'wrong_type'
  | 'bad_signature'
  | 'wrong_issuer'
  | 'wrong_audience'
  | 'expired'
  | 'not_yet_valid'
  | 'unknown'
  | 'revoked';

export type Checked<T> = { ok: true; value: T } | { ok: false; reason: Rejection };

const DESCRIPTIONS: { readonly [R in Rejection]: string } = {
  malformed: 'The token is not a well-formed vimrelay JWT.',
  unsupported_alg: `The token is not signed with ${TOKEN_ALG}.`,
  wrong_type: 'The token is of the wrong type for this endpoint.',
  bad_signature: 'The token signature does not verify.',
  wrong_issuer: 'The token was issued by another relay.',
  wrong_audience: 'The token is not meant for this endpoint.',
  expired: 'The token has expired.',
  not_yet_valid: 'The token is not valid yet.',
  unknown: 'The token is not known to this relay.',
  revoked: 'The token has been revoked.',
};

/** Human text for a rejection; used as RFC 6750 `error_description` (no quotes or backslashes). */
export function describe(reason: Rejection): string {
  return DESCRIPTIONS[reason];
}

/**
 * Checks the JOSE header: `alg` pinned to ES256 (never `none`, never HMAC; RFC 8725 §3.1) and
 * `typ` equal to the kind's type (RFC 8725 §3.11). `typ` is a media type, compared without case;
 * `application/` may prefix it (RFC 7515 §4.1.9, RFC 9068 §4 step 1).
 */
export function checkHeader(header: Record<string, unknown>, kind: TokenKind): Checked<null> {
  if (header.alg !== TOKEN_ALG) return { ok: false, reason: 'unsupported_alg' };
  if (typeof header.typ !== 'string') return { ok: false, reason: 'wrong_type' };
  const typ = header.typ.toLowerCase().replace(/^application\//, '');
  if (typ !== TOKEN_TYP[kind]) return { ok: false, reason: 'wrong_type' };
  return { ok: true, value: null };
}

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isNumericDate = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * Checks the payload of a token whose signature already verified (RFC 7519 §7.2 step 10, RFC 9068
 * §4): `iss` exact, `aud` containing our audience (RFC 7519 §4.1.3), `exp` in the future and
 * `iat` / `nbf` not in it, within CLOCK_TOLERANCE_S, plus the presence of `sub` and `jti` and, for
 * access tokens, `client_id` and `scope`. `nowMs` is the verifier's clock in milliseconds.
 */
export function checkClaims(payload: Record<string, unknown>, expect: Expectation, nowMs: number): Checked<TokenClaims> {
  const { iss, aud, sub, exp, iat, nbf, jti, scope, client_id } = payload;
  if (!isString(sub) || !isString(jti) || !isNumericDate(exp) || !isNumericDate(iat)) {
    return { ok: false, reason: 'malformed' };
  }
  if (iss !== expect.origin) return { ok: false, reason: 'wrong_issuer' };
  const audience = audienceFor(expect.kind, expect.origin);
  const audiences = Array.isArray(aud) ? aud : [aud];
  if (!audiences.includes(audience)) return { ok: false, reason: 'wrong_audience' };
  const now = nowMs / 1000;
  // RFC 7519 §4.1.4: the current time MUST be before exp.
  if (now >= exp + CLOCK_TOLERANCE_S) return { ok: false, reason: 'expired' };
  if (iat > now + CLOCK_TOLERANCE_S) return { ok: false, reason: 'not_yet_valid' };
  if (nbf !== undefined && (!isNumericDate(nbf) || nbf > now + CLOCK_TOLERANCE_S)) {
    return { ok: false, reason: 'not_yet_valid' };
  }
  const claims: TokenClaims = { iss, aud: audience, sub, exp, iat, jti };
  if (expect.kind === 'access') {
    if (!isString(client_id) || typeof scope !== 'string') return { ok: false, reason: 'malformed' };
    claims.scope = scope;
    claims.client_id = client_id;
  }
  return { ok: true, value: claims };
}
