/**
 * The toolset endpoints `/mcp/<set>[+<set>…]` (protocol/toolsets.ts) as OAuth protected resources.
 * Each is a resource of its own to a client: its URL, its protected resource metadata at the
 * path-aware well-known URL (RFC 9728 §3.1, `/.well-known/oauth-protected-resource/mcp/read`)
 * whose `resource` is that URL (§3.3) and whose `scopes_supported` are the classes the set serves,
 * and a 401 challenge naming that metadata and the scopes its tools' plainest calls need (MCP
 * 2025-11-25 "Scope Selection Strategy": a client asks for the challenge's scopes). So a
 * connector for `/mcp/read` asks for `read` alone.
 *
 * To the authorization server they are the relay's one resource, `/mcp`: a client names the
 * toolset's URL as its RFC 8707 `resource`, and the token is bound to `/mcp`, "a more general URI"
 * for it (RFC 8707 §2 lets the authorization server map a requested resource so). The OAuth
 * library knows one resource (auth/oauth.ts), and a token for `/mcp` is valid below it (RFC 9728
 * path-boundary matching). The authority is the token's scopes, the same wherever it is used; a
 * toolset narrows what an endpoint lists and which classes of call it serves.
 *
 * Pure functions over requests and responses; worker/index.ts applies them.
 */
import { parseToolset, WHOLE_CATALOG, type Toolset } from '../../protocol/index.ts';
import { RESOURCE_METADATA_PATH } from './resource-metadata.ts';

/** What a path below `/mcp` names: the whole catalog (`/mcp`), a toolset, or a refusal. */
export type McpPath = { ok: true; toolset: Toolset } | { ok: false; message: string };

/**
 * The toolset of the MCP endpoint at `pathname` (`/mcp` or `/mcp/<set>`), or why there is none.
 * Null for a path that is not an MCP endpoint's. The set name may be percent-encoded (`%2B`).
 */
export function mcpPath(pathname: string): McpPath | null {
  if (pathname === '/mcp') return { ok: true, toolset: WHOLE_CATALOG };
  if (!pathname.startsWith('/mcp/')) return null;
  let name: string;
  try {
    name = decodeURIComponent(pathname.slice('/mcp/'.length));
  } catch {
    return { ok: false, message: 'the toolset name is not valid percent-encoding.' };
  }
  if (name.includes('/')) return { ok: false, message: 'an MCP endpoint is /mcp or /mcp/<toolset>, nothing below it.' };
  const parsed = parseToolset(name);
  return parsed.ok ? parsed : { ok: false, message: parsed.message };
}

/** The toolset endpoint whose metadata `pathname` is (`/.well-known/oauth-protected-resource/mcp/<set>`), or null. */
export function toolsetMetadataPath(pathname: string): { endpoint: string; parsed: McpPath } | null {
  const prefix = `${RESOURCE_METADATA_PATH}/mcp/`;
  if (!pathname.startsWith(prefix)) return null;
  const endpoint = pathname.slice(RESOURCE_METADATA_PATH.length);
  const parsed = mcpPath(endpoint);
  return parsed === null ? null : { endpoint, parsed };
}

/**
 * The metadata of the toolset endpoint `${origin}${endpoint}`, from the provider's document for
 * `/mcp` (`base`, a 200 JSON response): the same authorization server and methods, its own
 * `resource` and the scopes it serves.
 */
export async function toolsetMetadata(base: Response, origin: string, endpoint: string, toolset: Toolset): Promise<Response> {
  if (base.status !== 200 || !(base.headers.get('Content-Type') ?? '').startsWith('application/json')) return base;
  const document = (await base.json()) as Record<string, unknown>;
  const headers = new Headers(base.headers);
  headers.delete('Content-Length');
  return new Response(JSON.stringify({ ...document, resource: `${origin}${endpoint}`, scopes_supported: [...toolset.classes] }), { status: 200, headers });
}

/** Whether `value` is the URL of a toolset endpoint of the relay at `origin`. */
function isToolsetResource(value: string, origin: string): boolean {
  if (!value.startsWith(`${origin}/mcp/`)) return false;
  const parsed = mcpPath(value.slice(origin.length));
  return parsed !== null && parsed.ok;
}

/**
 * `params` with every RFC 8707 `resource` that names a toolset endpoint as `${origin}/mcp`, the
 * resource the authorization server binds tokens to; null when there is none to map.
 */
export function generalResources(params: URLSearchParams, origin: string): URLSearchParams | null {
  const resources = params.getAll('resource');
  if (!resources.some((r) => isToolsetResource(r, origin))) return null;
  const out = new URLSearchParams(params);
  out.delete('resource');
  for (const r of resources) out.append('resource', isToolsetResource(r, origin) ? `${origin}/mcp` : r);
  return out;
}

/**
 * `request` to `/authorize` (its query) or `/oauth/token` (its form body) with the toolset
 * resources mapped (`generalResources`); the request itself when there are none.
 */
export async function withGeneralResource(request: Request, origin: string): Promise<Request> {
  const url = new URL(request.url);
  if (request.method === 'GET') {
    const mapped = generalResources(url.searchParams, origin);
    if (mapped === null) return request;
    url.search = mapped.toString();
    return new Request(url, request);
  }
  const type = request.headers.get('Content-Type') ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded')) return request;
  const mapped = generalResources(new URLSearchParams(await request.clone().text()), origin);
  if (mapped === null) return request;
  const headers = new Headers(request.headers);
  headers.delete('Content-Length');
  return new Request(url, { method: request.method, headers, body: mapped.toString() });
}

/** `header` (a `WWW-Authenticate` Bearer challenge) with its `param` set to `value` (RFC 6750 §3 auth-params). */
function withParam(header: string, param: string, value: string): string {
  const pattern = new RegExp(`(^|[ ,])${param}="[^"]*"`);
  return pattern.test(header) ? header.replace(pattern, `$1${param}="${value}"`) : `${header}, ${param}="${value}"`;
}

/**
 * The challenge of a 401 at a toolset endpoint: the provider writes `/mcp`'s metadata URL and an
 * ordinary session's scopes; this one names the endpoint's own metadata (RFC 9728 §5.1) and the
 * scopes of its tools' plainest calls. Any other response as it is.
 */
export function toolsetChallenge(response: Response, origin: string, endpoint: string, toolset: Toolset): Response {
  const header = response.headers.get('WWW-Authenticate');
  if (response.status !== 401 || header === null || !/^Bearer /i.test(header)) return response;
  const out = new Response(response.body, response);
  const scoped = withParam(withParam(header, 'resource_metadata', `${origin}${RESOURCE_METADATA_PATH}${endpoint}`), 'scope', toolset.plainClasses.join(' '));
  out.headers.set('WWW-Authenticate', scoped);
  return out;
}
