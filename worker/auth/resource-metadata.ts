/**
 * The protected resource metadata of `/mcp` (RFC 9728 §2) as the relay serves it: the OAuth
 * provider's document, with `scopes_supported` naming every scope the resource takes.
 *
 * The provider writes one list for two things: the metadata's `scopes_supported` and the `scope` of
 * its 401 challenge (its `requiredScopes`). vimrelay needs them apart: the challenge asks for what
 * an ordinary session needs (auth/oauth.ts SESSION_SCOPES), which a client asks for first (MCP
 * 2025-11-25 "Scope Selection Strategy"), while the metadata says what may be asked for at all,
 * the step-up scopes included (RFC 9728 §2: "scope values ... used in authorization requests to
 * request access to this protected resource").
 */
import { ALL_SCOPES } from '../../protocol/index.ts';

/** The path of the metadata (RFC 9728 §3.1); with the resource's path, `/mcp`, after it, or without. */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** Whether `pathname` is the metadata of `/mcp` (the path-aware URL, or the root one the relay serves as it). */
export function isResourceMetadata(pathname: string): boolean {
  return pathname === RESOURCE_METADATA_PATH || pathname === `${RESOURCE_METADATA_PATH}/mcp`;
}

/** The provider's metadata `response` with every scope in `scopes_supported`; any other answer (an error, a preflight) as it is. */
export async function withEveryScope(response: Response): Promise<Response> {
  if (response.status !== 200 || !(response.headers.get('Content-Type') ?? '').startsWith('application/json')) return response;
  const document = (await response.json()) as Record<string, unknown>;
  const headers = new Headers(response.headers);
  headers.delete('Content-Length');
  return new Response(JSON.stringify({ ...document, scopes_supported: [...ALL_SCOPES] }), { status: 200, headers });
}
