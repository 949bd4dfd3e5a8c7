/**
 * Bearer credentials in HTTP (RFC 6750): reading `Authorization: Bearer <token>` and writing the
 * `WWW-Authenticate` challenge of a 401. Pure string handling, shared by the relay and the local
 * server (`vimrelay serve --http`); which token is valid is decided elsewhere. The relay's `/mcp`
 * challenges (with `resource_metadata`, RFC 9728 §5.1) come from its OAuth provider instead.
 */

/** The realm every vimrelay challenge names (RFC 6750 §3). */
export const REALM = 'vimrelay';

// RFC 6750 §2.1: credentials = "Bearer" 1*SP b64token; the scheme is case-insensitive (RFC 9110 §11.1).
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The token of an `Authorization: Bearer` header, or null when absent or not a bearer credential. */
export function bearerToken(authorization: string | null | undefined): string | null {
  if (!authorization) return null;
  const match = BEARER.exec(authorization);
  return match?.[1] ?? null;
}

/**
 * A `WWW-Authenticate` value (RFC 6750 §3). Without `error` when the request carried no
 * credentials (§3.1: the server SHOULD NOT include an error code then); with
 * `error="invalid_token"` and a description when it carried a bad one.
 */
export function challenge(error?: { code: 'invalid_token' | 'invalid_request'; description: string }): string {
  if (!error) return `Bearer realm="${REALM}"`;
  // §3: error_description is a quoted-string of %x20-21 / %x23-5B / %x5D-7E: no `"` or `\`.
  const description = error.description.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '');
  return `Bearer realm="${REALM}", error="${error.code}", error_description="${description}"`;
}
