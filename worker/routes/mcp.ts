/**
 * `/mcp`: the MCP endpoint, Streamable HTTP (spec 2025-11-25 "Transports"), stateless: a fresh
 * server and transport per POST, no `Mcp-Session-Id`, and no GET stream or DELETE (405).
 *
 * Before the MCP layer, in the order protocol/http/mcp-edge.ts gives (the local server applies the
 * same): Origin (403), declared body size (413), bearer access token (401 with an RFC 6750
 * challenge), body read under the cap (413), JSON (-32700), JSON-RPC shape (-32600).
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Hono, type Context } from 'hono';
import { cors } from 'hono/cors';
import { bearerToken } from '../../protocol/http/bearer.ts';
import { MCP_CORS, parseMcpBody, REFUSAL, unauthorizedRefusal } from '../../protocol/http/mcp-edge.ts';
import { originAllowed } from '../../protocol/http/origin.ts';
import { LIMITS, parseScopes } from '../../protocol/index.ts';
import { hubFor } from '../account.ts';
import { describe } from '../auth/claims.ts';
import { extraAllowedOrigins, relayOrigin } from '../config.ts';
import { declaredTooLarge, readCapped } from '../http/body.ts';
import { refusal } from '../http/responses.ts';
import { buildRelayMcpServer, cancelledCallKeys } from '../mcp/server.ts';
import type { AppEnv } from './types.ts';

function allowed(c: Context<AppEnv>, origin: string | null): boolean {
  return originAllowed(origin, new URL(c.req.url).origin, relayOrigin(c.env, c.req.url), extraAllowedOrigins(c.env));
}

export const mcp = new Hono<AppEnv>();

// Browser-based clients (e.g. the MCP Inspector) need CORS, and must be able to read the
// challenge of a 401 to start authorization (DESIGN.md "The relay").
mcp.use(
  '/',
  cors({
    origin: (origin, c) => (allowed(c, origin) ? origin : null),
    allowMethods: [...MCP_CORS.allowMethods],
    allowHeaders: [...MCP_CORS.allowHeaders],
    exposeHeaders: [...MCP_CORS.exposeHeaders],
    maxAge: MCP_CORS.maxAgeSeconds,
  }),
);

mcp.all('/', async (c) => {
  const request = c.req.raw;
  if (request.method !== 'POST') return refusal(REFUSAL.method);
  if (!allowed(c, request.headers.get('Origin'))) return refusal(REFUSAL.origin);
  if (declaredTooLarge(request, LIMITS.maxMcpBodyBytes)) return refusal(REFUSAL.tooLarge);

  const token = bearerToken(request.headers.get('Authorization'));
  if (token === null) return refusal(unauthorizedRefusal(null));
  const hub = hubFor(c.env);
  const verdict = await hub.verifyToken(token, 'access', relayOrigin(c.env, request.url));
  if (!verdict.valid) return refusal(unauthorizedRefusal(describe(verdict.reason)));

  const body = await readCapped(request, LIMITS.maxMcpBodyBytes);
  if (!body.ok) return refusal(REFUSAL.tooLarge);
  const parsed = parseMcpBody(body.text);
  if (!parsed.ok) return refusal(parsed.refusal);

  const { claims } = verdict;
  // Cancellations reach the Hub before the 202, so that a client that was told "accepted" has
  // in fact stopped its call.
  await Promise.all(cancelledCallKeys(parsed.messages, claims.jti).map((key) => hub.cancel(key)));

  const server = buildRelayMcpServer({
    principal: { jti: claims.jti, scopes: parseScopes(claims.scope), clientId: claims.client_id ?? claims.sub },
    hub,
    waitUntil: (promise) => c.executionCtx.waitUntil(promise),
    signal: request.signal,
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: LIMITS.maxMcpBodyBytes,
  });
  await server.connect(transport);
  try {
    // The body was read (under the cap) and checked above; the transport takes it as parsed.
    return await transport.handleRequest(request, { parsedBody: parsed.parsedBody });
  } finally {
    await server.close();
  }
});
