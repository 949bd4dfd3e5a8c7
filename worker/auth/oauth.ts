/**
 * The relay as OAuth 2.1 authorization server and its one protected resource, `/mcp` (MCP
 * authorization spec 2025-06-18 and 2025-11-25), built on @cloudflare/workers-oauth-provider.
 *
 * For the dashboard and other pages: `oauthHelpers(env, origin)` gives the library's OAuthHelpers
 * (list clients, list and revoke the owner's grants: `listUserGrants(OWNER_ACCOUNT)`,
 * `revokeGrant(id, OWNER_ACCOUNT)`), and `OAUTH_PATHS` names the endpoints.
 *
 * Owns the provider's options and nothing else: the consent page is routes/authorize.ts, the MCP
 * handler routes/mcp.ts, which registered redirect URIs are acceptable auth/redirect-policy.ts.
 *
 * - Issuer: the relay's origin (PUBLIC_URL, else the request's); the resource is exactly
 *   `${origin}/mcp`, no trailing slash (RFC 9728 §3; RFC 8707 §2 binds it into every token's
 *   audience). One provider per origin, memoised: the options name the origin.
 * - Endpoints: `/authorize` (ours), `/oauth/token` (token, refresh and RFC 7009 revocation),
 *   `/oauth/register` (RFC 7591 DCR); RFC 8414 and RFC 9728 metadata at their well-known paths.
 * - Clients: DCR and Client ID Metadata Documents; PKCE S256 only (the library refuses `plain`;
 *   /authorize also requires a challenge from confidential clients, OAuth 2.1 §4.1.1).
 * - Refresh tokens rotate and are single-use: one presented again revokes its grant
 *   (routes/refresh-reuse.ts, RFC 9700 §4.14.2), without the library's grace for the previous one.
 *   They live REFRESH_TOKEN_TTL_S from the authorization, as long as the Hub remembers used ones.
 * - Personal access tokens (our ES256 JWTs, minted by `/admin/tokens`) are accepted at `/mcp`
 *   through `resolveExternalToken`, verified by the Hub, the verdict kept briefly in the isolate
 *   (verified-tokens.ts); a revoked one is refused by the Hub at the next tool call all the same
 *   (`patRefusal`).
 */
import { ExternalTokenError, getOAuthApi, OAuthProvider, type OAuthHelpers, type OAuthProviderOptions } from '@cloudflare/workers-oauth-provider';
import { ALL_SCOPES, parseScopes, type PermissionClass } from '../../protocol/index.ts';
import { hubFor } from '../account.ts';
import { REFRESH_TOKEN_TTL_S } from '../hub/used-refresh-tokens.ts';
import type { Env } from '../env.ts';
import type { Revocation } from './tokens.ts';
import { audienceFor, describe, type Rejection } from './claims.ts';
import { configuredRedirectUris, firstRefused } from './redirect-policy.ts';
import { VerifiedTokens } from './verified-tokens.ts';

/** The OAuth endpoints, as paths on the relay's origin. */
export const OAUTH_PATHS = {
  authorize: '/authorize',
  token: '/oauth/token',
  register: '/oauth/register',
} as const;

/**
 * The scopes an ordinary session needs, reading and editing buffers: the `scope` of the 401
 * challenge (RFC 6750 §3), which an MCP client asks for first (MCP 2025-11-25 "Scope Selection
 * Strategy"), so that the first consent covers such a session; and the baseline every
 * `insufficient_scope` challenge names beside the scope it lacks (routes/mcp.ts), so that a client
 * that asks again for exactly those keeps them. `open`, `save`, `exec` and `terminal` are asked for
 * when a call needs them (step-up). The metadata's `scopes_supported` names every scope
 * (auth/resource-metadata.ts).
 */
export const SESSION_SCOPES: readonly PermissionClass[] = ['read', 'write'];

/** The scope any access needs: the consent page ticks it whatever the client asked for. */
export const BASELINE_SCOPES: readonly PermissionClass[] = ['read'];

/**
 * What a token carries to the `/mcp` handler as `ctx.props`. OAuth grants store `oauth` at
 * consent; `grant` is a random id per grant that scopes call keys (cancellation) the way a PAT's
 * jti does; `clientName` is the name the owner consented to (absent in grants made before it was
 * kept); their scopes are the token's own (`ctx.auth.scope`). PATs carry their verified claims.
 */
export type McpProps = { kind: 'oauth'; grant: string; clientName?: string } | PatProps;

/** The props of a personal access token: its verified claims. */
export interface PatProps {
  kind: 'pat';
  jti: string;
  scopes: PermissionClass[];
  clientId: string;
}

/** Verified personal access tokens by origin and token, kept per isolate (verified-tokens.ts). */
const verifiedPats = new VerifiedTokens<PatProps>();

/** The handlers the provider routes to: `/mcp` with a valid token, everything else. */
export interface OAuthHandlers {
  readonly api: NonNullable<OAuthProviderOptions<Env>['apiHandler']>;
  readonly app: OAuthProviderOptions<Env>['defaultHandler'];
}

/** The canonical resource of the relay at `origin`: the MCP URL. */
export function mcpResource(origin: string): string {
  return audienceFor('access', origin);
}

/**
 * Longest `client_name` a client may register, or a Client ID Metadata Document may give
 * (characters): the consent page and the dashboard show it whole.
 */
export const MAX_CLIENT_NAME_CHARS = 100;

/**
 * Why a registered `client_name` (RFC 7591 §2, human-readable) is refused, or null: the owner reads
 * it on the consent page to decide, so it is one short line, with no control characters (a name
 * padded with line breaks or spaces could pass for the page's own words). Applied at registration
 * and, for a Client ID Metadata Document's (which never registers), before its consent page.
 */
export function clientNameRefusal(name: unknown): string | null {
  // Absent, or not a string: the library's own validation answers for that.
  if (typeof name !== 'string') return null;
  if ([...name].length > MAX_CLIENT_NAME_CHARS) return `client_name must be at most ${MAX_CLIENT_NAME_CHARS} characters.`;
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(name)) return 'client_name must not contain control characters or line breaks.';
  if (/\s{3,}/.test(name)) return 'client_name must not contain runs of white space.';
  return null;
}

/** The provider's options for the relay at `origin`. */
export function oauthOptions(origin: string, env: Env, handlers: OAuthHandlers): OAuthProviderOptions<Env> {
  const extraRedirects = configuredRedirectUris(env.REDIRECT_URIS);
  const resource = mcpResource(origin);
  return {
    apiRoute: '/mcp',
    apiHandler: handlers.api,
    defaultHandler: handlers.app,
    authorizeEndpoint: `${origin}${OAUTH_PATHS.authorize}`,
    tokenEndpoint: `${origin}${OAUTH_PATHS.token}`,
    clientRegistrationEndpoint: `${origin}${OAUTH_PATHS.register}`,
    // Refresh tokens come with every grant (the library issues them without `offline_access`).
    refreshTokenTTL: REFRESH_TOKEN_TTL_S,
    scopesSupported: [...ALL_SCOPES],
    // The challenge's scope; the provider writes it as the metadata's scopes_supported too, which
    // worker/index.ts replaces with every scope (auth/resource-metadata.ts).
    requiredScopes: [...SESSION_SCOPES],
    resourceMetadata: { resource, authorization_servers: [origin], bearer_methods_supported: ['header'], resource_name: 'vimrelay' },
    clientIdMetadataDocumentEnabled: true,
    // RFC 7591 §2: the server may refuse metadata by policy (auth/redirect-policy.ts).
    clientRegistrationCallback: ({ clientMetadata }) => {
      const nameRefused = clientNameRefusal(clientMetadata.client_name);
      // RFC 7591 §3.2.2: invalid_client_metadata, 400.
      if (nameRefused !== null) return { code: 'invalid_client_metadata', description: nameRefused, status: 400 };
      const uris = clientMetadata.redirect_uris;
      if (!Array.isArray(uris) || !uris.every((u): u is string => typeof u === 'string')) return undefined; // the library refuses it
      const refused = firstRefused(uris, extraRedirects);
      if (refused === null) return undefined;
      // RFC 7591 §3.2.2: invalid_redirect_uri, 400.
      return { code: 'invalid_redirect_uri', description: `Redirect URI ${refused.uri} ${refused.reason}.`, status: 400 };
    },
    resolveExternalToken: async ({ token, env: requestEnv }) => {
      const now = Date.now();
      // By origin too: a token is valid only at the relay (iss, aud) that issued it.
      const kept = `${origin}\n${token}`;
      const known = verifiedPats.get(kept, now);
      if (known) return { props: known, audience: resource };
      const verdict = await hubFor(requestEnv).verifyToken(token, 'access', origin);
      if (!verdict.valid) {
        const description = describe(verdict.reason);
        throw new ExternalTokenError('invalid_token', { description, statusCode: 401, headers: { 'WWW-Authenticate': patChallenge(origin, description) } });
      }
      const { claims } = verdict;
      const props: PatProps = { kind: 'pat', jti: claims.jti, scopes: parseScopes(claims.scope), clientId: claims.client_id ?? claims.sub };
      verifiedPats.set(kept, props, now, claims.exp * 1000);
      return { props, audience: resource };
    },
    // Token-endpoint and resource errors go to the client as the library words them; the log
    // keeps only the stable reason (never tokens or bodies).
    onError: ({ code, internal }) => {
      console.warn(`vimrelay: oauth ${code} (${internal.category}/${internal.reason})`);
    },
  };
}

/**
 * The 401 for a personal access token the Hub refused after its verdict was kept
 * (verified-tokens.ts), as the provider answers a refused one (RFC 6750 §3.1 `invalid_token`).
 */
export function patRefusal(origin: string, reason: Rejection): Response {
  const description = describe(reason);
  return new Response(JSON.stringify({ error: 'invalid_token', error_description: description }), {
    status: 401,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', Pragma: 'no-cache', 'WWW-Authenticate': patChallenge(origin, description) },
  });
}

/** Forgets the kept verdicts of the personal access token `jti`. */
export function forgetVerifiedPat(jti: string): void {
  verifiedPats.forget((props) => props.jti === jti);
}

/**
 * Revokes the access token `jti` at the Hub, and forgets this isolate's verdict of it (other
 * isolates learn at its next tool call, or within the TTL: verified-tokens.ts). Null when no token
 * has this jti.
 */
export async function revokePat(env: Env, jti: string): Promise<Revocation | null> {
  const revoked = await hubFor(env).revokeToken(jti);
  forgetVerifiedPat(jti);
  return revoked;
}

/**
 * The challenge for a refused personal access token: the library's (RFC 9728 §5.1
 * `resource_metadata`, the session's `scope`) plus why (RFC 6750 §3 `error_description`, a
 * quoted-string of %x20-21 / %x23-5B / %x5D-7E), so that a user can tell expired from revoked.
 */
function patChallenge(origin: string, description: string): string {
  const quoted = description.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '');
  const metadata = `${origin}/.well-known/oauth-protected-resource/mcp`;
  return `Bearer realm="OAuth", resource_metadata="${metadata}", error="invalid_token", error_description="${quoted}", scope="${SESSION_SCOPES.join(' ')}"`;
}

const providers = new Map<string, OAuthProvider<Env>>();
// Without PUBLIC_URL every host name the Worker answers on gets a provider; a relay answers on a
// few. The cap keeps a client that invents Host headers (local dev) from growing the map.
const MAX_PROVIDERS = 16;

/** The provider for the relay at `origin`, built once per origin and REDIRECT_URIS value. */
export function oauthProvider(origin: string, env: Env, handlers: OAuthHandlers): OAuthProvider<Env> {
  const key = `${origin}\n${env.REDIRECT_URIS ?? ''}`;
  let provider = providers.get(key);
  if (!provider) {
    if (providers.size >= MAX_PROVIDERS) providers.clear();
    provider = new OAuthProvider(oauthOptions(origin, env, handlers));
    providers.set(key, provider);
  }
  return provider;
}

// The helpers never route a request, so their options carry handlers that only say so.
const NO_ROUTE = { fetch: () => new Response(null, { status: 404 }) };

/**
 * The library's OAuthHelpers for the relay at `origin` (usually `relayOrigin(env, url)`): parse
 * and complete authorizations, list clients, list and revoke grants (user id `OWNER_ACCOUNT`).
 */
export function oauthHelpers(env: Env, origin: string): OAuthHelpers {
  return getOAuthApi(oauthOptions(origin, env, { api: NO_ROUTE, app: NO_ROUTE }), env);
}
