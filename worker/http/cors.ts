/**
 * CORS on `/mcp` and the OAuth metadata documents, for browser-based MCP clients (the MCP
 * Inspector, web apps). The OAuth provider already reflects the Origin and answers preflights
 * (204); this completes its headers with what MCP clients need (expose `WWW-Authenticate`
 * and `Mcp-Session-Id`; allow `authorization`, `content-type`, `mcp-protocol-version`, and the
 * 2026-07-28 `mcp-method` and `mcp-name`), and
 * leaves every other path alone. Bearer tokens are not ambient credentials, so a reflected Origin
 * grants nothing by itself; `/mcp` refuses foreign Origins before this runs (routes/mcp.ts).
 */
import { MCP_CORS } from '../../protocol/http/mcp-edge.ts';

/** Whether `pathname` is `/mcp` (or below) or an RFC 8414 / RFC 9728 metadata document. */
export function corsPath(pathname: string): boolean {
  return (
    pathname === '/mcp' ||
    pathname.startsWith('/mcp/') ||
    pathname.startsWith('/.well-known/oauth-protected-resource') ||
    pathname.startsWith('/.well-known/oauth-authorization-server')
  );
}

function addListed(headers: Headers, name: string, values: readonly string[]): void {
  const present = (headers.get(name) ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  for (const value of values) if (!present.some((p) => p.toLowerCase() === value.toLowerCase())) present.push(value);
  headers.set(name, present.join(', '));
}

/** `response` with the MCP CORS headers when `request` is a cross-origin one to a CORS path. */
export function withMcpCors(request: Request, response: Response): Response {
  if (!request.headers.has('Origin') || !corsPath(new URL(request.url).pathname)) return response;
  // A WebSocket or redirect response may have immutable headers: copy.
  const out = new Response(response.body, response);
  if (!out.headers.has('Access-Control-Allow-Origin')) return response; // the provider did not grant CORS
  addListed(out.headers, 'Access-Control-Expose-Headers', MCP_CORS.exposeHeaders);
  if (request.method === 'OPTIONS') {
    // Fetch standard §3.2.3: a `*` in Access-Control-Allow-Headers never covers Authorization: list them.
    out.headers.set('Access-Control-Allow-Headers', MCP_CORS.allowHeaders.join(', '));
    out.headers.set('Access-Control-Allow-Methods', new URL(request.url).pathname.startsWith('/mcp') ? 'POST, OPTIONS' : 'GET, HEAD, OPTIONS');
  }
  return out;
}
