/**
 * `/mcp`: the MCP endpoint, Streamable HTTP (spec 2025-11-25 "Transports"), stateless: a fresh
 * server and transport per POST, no `Mcp-Session-Id`, and no GET stream or DELETE (405).
 *
 * Before the MCP layer, in this order: Origin (403), declared body size (413), bearer access token
 * (401 with an RFC 6750 challenge), body read under the cap (413), JSON (-32700), JSON-RPC shape
 * (-32600). Authentication comes before reading the body so that an anonymous request never makes
 * us read a megabyte; a declared oversize body is refused before either.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { Hono, type Context } from 'hono';
import { cors } from 'hono/cors';
import { LIMITS, parseScopes } from '../../protocol/index.ts';
import { hubFor } from '../account.ts';
import { bearerToken } from '../auth/bearer.ts';
import { describe } from '../auth/claims.ts';
import { extraAllowedOrigins, relayOrigin } from '../config.ts';
import { declaredTooLarge, readCapped } from '../http/body.ts';
import { originAllowed } from '../http/origin.ts';
import { jsonRpcError, RPC, unauthorized } from '../http/responses.ts';
import { buildMcpServer, cancelledCallKeys } from '../mcp/server.ts';
import type { AppEnv } from './types.ts';

function allowed(c: Context<AppEnv>, origin: string | null): boolean {
  return originAllowed(origin, new URL(c.req.url).origin, relayOrigin(c.env, c.req.url), extraAllowedOrigins(c.env));
}

const tooLarge = (): Response =>
  jsonRpcError(413, RPC.serverError, `Payload Too Large: the request body must not exceed ${LIMITS.maxMcpBodyBytes} bytes.`);

export const mcp = new Hono<AppEnv>();

// Browser-based clients (e.g. the MCP Inspector) need CORS, and must be able to read the
// challenge of a 401 to start authorization (DESIGN.md "The relay").
mcp.use(
  '/',
  cors({
    origin: (origin, c) => (allowed(c, origin) ? origin : null),
    allowMethods: ['POST'],
    allowHeaders: ['Authorization', 'Content-Type', 'Accept', 'Mcp-Protocol-Version', 'Last-Event-ID'],
    exposeHeaders: ['WWW-Authenticate'],
    maxAge: 86_400,
  }),
);

mcp.all('/', async (c) => {
  const request = c.req.raw;
  if (request.method !== 'POST') {
    // Stateless server: no standalone SSE stream (GET) and no session to delete (DELETE).
    return jsonRpcError(405, RPC.serverError, 'Method not allowed: this MCP endpoint is stateless and takes POST only.', { Allow: 'POST' });
  }
  if (!allowed(c, request.headers.get('Origin'))) {
    return jsonRpcError(403, RPC.serverError, 'Forbidden: this Origin may not call the relay.');
  }
  if (declaredTooLarge(request, LIMITS.maxMcpBodyBytes)) return tooLarge();

  const token = bearerToken(request.headers.get('Authorization'));
  if (token === null) return unauthorized(null, 'json-rpc');
  const hub = hubFor(c.env);
  const verdict = await hub.verifyToken(token, 'access', relayOrigin(c.env, request.url));
  if (!verdict.valid) return unauthorized(describe(verdict.reason), 'json-rpc');

  const body = await readCapped(request, LIMITS.maxMcpBodyBytes);
  if (!body.ok) return tooLarge();
  let parsedBody: unknown;
  try {
    parsedBody = JSON.parse(body.text);
  } catch {
    return jsonRpcError(400, RPC.parseError, 'Parse error: the request body is not valid JSON.');
  }
  // JSON-RPC 2.0 §5.1: valid JSON that is not a JSON-RPC message is -32600 (the SDK says -32700).
  const messages: unknown[] = Array.isArray(parsedBody) ? parsedBody : [parsedBody];
  if (messages.length === 0 || !messages.every((m) => JSONRPCMessageSchema.safeParse(m).success)) {
    return jsonRpcError(400, RPC.invalidRequest, 'Invalid Request: the body is not a JSON-RPC 2.0 message.');
  }

  const { claims } = verdict;
  // Cancellations reach the Hub before the 202, so that a client that was told "accepted" has
  // in fact stopped its call.
  await Promise.all(cancelledCallKeys(messages, claims.jti).map((key) => hub.cancel(key)));

  const server = buildMcpServer({
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
    return await transport.handleRequest(request, { parsedBody });
  } finally {
    await server.close();
  }
});
