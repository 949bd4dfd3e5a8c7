/**
 * The vimrelay Worker: the OAuth provider (auth/oauth.ts) in front of the routes, and the Hub
 * Durable Object class. Owns nothing else; each route module owns its endpoint.
 *
 * A request goes: the Host check (http/host.ts: plain HTTP only at a loopback host) -> `/mcp` edge
 * checks (routes/mcp.ts `mcpEdgeRefusal`) -> for `/oauth/token`, the gate that keeps anonymous
 * requests from making the library fetch a Client ID Metadata Document (routes/token-gate.ts) and
 * the refusal of a reused refresh token, which revokes its grant (routes/refresh-reuse.ts), for
 * `/oauth/register` the size cap and rate limits of anonymous registration (routes/register-gate.ts)
 * -> the OAuth provider, which
 * serves the metadata documents, `/oauth/token` and `/oauth/register`, authenticates `/mcp` and
 * hands it to `mcpApi`, and passes everything else to the Hono app below -> the protected
 * resource metadata made to name every scope (auth/resource-metadata.ts) -> CORS completed on
 * `/mcp` and the metadata (http/cors.ts). The toolset endpoints `/mcp/<set>` are resources of
 * their own to clients and `/mcp` to the provider (auth/toolset-endpoints.ts): their metadata is
 * made from `/mcp`'s, their 401 challenges name it, and the RFC 8707 `resource` a client gives
 * for one at `/authorize` and `/oauth/token` is mapped to `/mcp` before the provider reads it. After the answer, a small body nobody read is read away
 * (http/body.ts `drainUnread`), so that the client's connection stays usable.
 *
 *   GET  /         what this relay is and the MCP URL (a page; JSON for API clients)
 *   GET  /health   liveness
 *   POST /mcp      MCP Streamable HTTP (stateless), bearer OAuth access token or PAT
 *   POST /mcp/<toolset>[+<toolset>…]   the same, serving those toolsets only
 *   GET  /.well-known/oauth-protected-resource[/mcp[/<toolset>…]], /.well-known/oauth-authorization-server
 *   POST /oauth/token, /oauth/register   OAuth token endpoint (and RFC 7009 revocation), DCR
 *   GET|POST /authorize   OAuth consent (session + CSRF)
 *   GET  /agent    agents' WebSocket, bearer device JWT
 *   POST /agent/token   a device credential for a short-lived device JWT
 *   POST /pair/device, /pair/token, /pair/cancel   RFC 8628 device pairing (cancel: by the device code)
 *   GET /pair, POST /pair/approve|deny|dismiss   the owner's pairing page (session + CSRF)
 *   *    /admin/*  token API, bearer OWNER_SECRET (wrong secrets throttled)
 *   GET|POST /signin, POST /signout[/everywhere]   the owner's browser session for the pages
 *   GET|POST /dashboard/*   the owner's dashboard (session + CSRF)
 */
import { Hono } from 'hono';
import { OAUTH_PATHS, oauthProvider } from './auth/oauth.ts';
import { isResourceMetadata, RESOURCE_METADATA_PATH, withEveryScope } from './auth/resource-metadata.ts';
import { relayOrigin } from './config.ts';
import type { Env } from './env.ts';
import { withMcpCors } from './http/cors.ts';
import { installEgressGuard } from './http/egress.ts';
import { drainUnread } from './http/body.ts';
import { hostRefusal } from './http/host.ts';
import { mcpPath, toolsetChallenge, toolsetMetadata, toolsetMetadataPath, withGeneralResource } from './auth/toolset-endpoints.ts';
import { wantsHtml } from './http/negotiate.ts';
import { missingPage } from './pages/home.ts';
import { jsonError } from './http/responses.ts';
import { admin } from './routes/admin.ts';
import { agent } from './routes/agent.ts';
import { authorize } from './routes/authorize.ts';
import { dashboard } from './routes/dashboard.ts';
import { health } from './routes/health.ts';
import { home } from './routes/home.ts';
import { mcpApi, mcpEdgeRefusal } from './routes/mcp.ts';
import { pair } from './routes/pair.ts';
import { signin } from './routes/signin.ts';
import { registrationRefusal } from './routes/register-gate.ts';
import { exchangeOnce } from './routes/refresh-reuse.ts';
import { tokenRequestRefusal } from './routes/token-gate.ts';
import type { AppEnv } from './routes/types.ts';

export { Hub } from './hub/hub.ts';

// The only outbound requests are the OAuth library's Client ID Metadata Document fetches: none to
// an IP literal, a local name, a private address, or through a redirect (http/egress.ts).
installEgressGuard();

const app = new Hono<AppEnv>();

app.route('/', home);
app.route('/health', health);
app.route('/agent', agent);
app.route('/admin', admin);
app.route('/pair', pair);
app.route('/', signin);
app.route('/', authorize);
app.route('/dashboard', dashboard);

// Browsers get a page, API clients JSON.
app.notFound((c) => (wantsHtml(c.req.raw) ? missingPage() : jsonError(404, 'NOT_FOUND', 'No such endpoint.')));
// Never echo internal errors: they may carry storage or token details.
app.onError((err) => {
  console.error('vimrelay: unhandled error', err instanceof Error ? err.message : String(err));
  return jsonError(500, 'INTERNAL', 'Internal error.');
});

/**
 * `request` as the relay at `origin` sees it. With PUBLIC_URL set, a request that reached another
 * host name (the workers.dev alias, say) is served as if at PUBLIC_URL, because the provider holds
 * every URL (resource, issuer, endpoints) to that one origin. The root protected resource metadata
 * URL is served as the path-aware one: MCP clients fall back to the root when the path-aware URL
 * is not in the challenge (MCP 2025-11-25 "Protected Resource Metadata Discovery Requirements"),
 * and this origin has one resource.
 */
function servedAt(request: Request, origin: string): Request {
  const url = new URL(request.url);
  const path = url.pathname === RESOURCE_METADATA_PATH ? `${RESOURCE_METADATA_PATH}/mcp` : url.pathname;
  if (url.origin === origin && path === url.pathname) return request;
  return new Request(`${origin}${path}${url.search}`, request);
}

/** Every request, in the order the header describes. */
async function serve(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  const misdirected = hostRefusal(request, env);
  if (misdirected) return misdirected;
  const path = new URL(request.url).pathname;
  if (path === '/mcp' || path.startsWith('/mcp/')) {
    const refused = mcpEdgeRefusal(request, env);
    if (refused) return refused;
  }
  const origin = relayOrigin(env, request.url);
  const provider = oauthProvider(origin, env, { api: mcpApi, app });
  // What the provider and the gates see: a toolset's RFC 8707 resource mapped to `/mcp`.
  const mapped = path === OAUTH_PATHS.authorize || path === OAUTH_PATHS.token ? await withGeneralResource(request, origin) : request;
  const forward = (): Promise<Response> => provider.fetch(servedAt(mapped, origin), env, ctx);
  if (path === OAUTH_PATHS.token && request.method === 'POST') {
    const refused = await tokenRequestRefusal(mapped, env, origin);
    if (refused) return refused;
    return withMcpCors(request, await exchangeOnce(mapped, env, origin, forward));
  }
  if (path === OAUTH_PATHS.register && request.method === 'POST') {
    const refused = await registrationRefusal(request, env);
    if (refused) return refused;
  }
  if (isResourceMetadata(path) && request.method === 'GET') return withMcpCors(request, await withEveryScope(await forward()));
  const toolsetMetadataOf = toolsetMetadataPath(path);
  if (toolsetMetadataOf !== null && request.method === 'GET') {
    const { endpoint, parsed } = toolsetMetadataOf;
    if (!parsed.ok) return withMcpCors(request, jsonError(404, 'NOT_FOUND', `No such resource: ${parsed.message}`));
    const base = await provider.fetch(new Request(`${origin}${RESOURCE_METADATA_PATH}/mcp`, request), env, ctx);
    return withMcpCors(request, await toolsetMetadata(base, origin, endpoint, parsed.toolset));
  }
  const toolset = mcpPath(path);
  const answer = await forward();
  if (toolset !== null && toolset.ok && path !== '/mcp') return withMcpCors(request, toolsetChallenge(answer, origin, path, toolset.toolset));
  return withMcpCors(request, answer);
}

export default {
  async fetch(request, env, ctx): Promise<Response> {
    let response: Response;
    try {
      response = await serve(request, env, ctx);
    } catch (err) {
      // What the app's onError does, for failures outside it (the OAuth provider's own): never a
      // stack trace or a runtime's error page to the client.
      console.error('vimrelay: unhandled error', err instanceof Error ? err.message : String(err));
      response = jsonError(500, 'INTERNAL', 'Internal error.');
    }
    ctx.waitUntil(drainUnread(request));
    return response;
  },
} satisfies ExportedHandler<Env>;
