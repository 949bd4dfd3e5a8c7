/**
 * `/mcp` and `/mcp/<toolset>` (auth/toolset-endpoints.ts): the MCP endpoint, Streamable HTTP,
 * stateless, both protocol eras on one URL
 * (protocol/http/mcp-handler.ts): the 2025 revisions for clients that open with `initialize`
 * (spec 2025-11-25 "Transports"), 2026-07-28 for clients that send its per-request `_meta`
 * (spec 2026-07-28 "basic/transports/streamable-http"). A fresh server per POST, no
 * `Mcp-Session-Id`, and no GET stream or DELETE (405).
 *
 * Two halves around the OAuth provider (auth/oauth.ts), which authenticates the bearer token:
 *   - `mcpEdgeRefusal`, before authentication, in the order protocol/http/mcp-edge.ts gives (the
 *     local server applies the same): method (405), Origin (403), declared body size (413), then
 *     a toolset name that names none (404, so that a mistyped connector URL is told so at once);
 *   - `mcpApi`, the provider's `apiHandler`, with the verified token in `ctx.auth` and our
 *     `McpProps` in `ctx.props`: body read under the cap (413), JSON (-32700), JSON-RPC shape
 *     (-32600), scopes (403 `insufficient_scope`), legacy cancellations, then the MCP layer of
 *     the request's era, which lists and serves what the toolset and the token's scopes allow
 *     (protocol/catalog-view.ts); on the local relay a slow tools/call is answered as a started event
 *     stream, so that the client closing it cancels the call (http/slow-answer.ts).
 */
import { insufficientScope, type OAuthResourceContext } from '@cloudflare/workers-oauth-provider';
import { parseMcpBody, REFUSAL, RPC } from '../../protocol/http/mcp-edge.ts';
import { dualEraHandler, mcpEraOf } from '../../protocol/http/mcp-handler.ts';
import { originAllowed } from '../../protocol/http/origin.ts';
import { LIMITS, parseScopes, permissionFor, servedTool, WHOLE_CATALOG, type PermissionClass, type Toolset } from '../../protocol/index.ts';
import { hubFor } from '../account.ts';
import type { Rejection } from '../auth/claims.ts';
import { patClientName, registeredClientName } from '../auth/client-names.ts';
import { forgetVerifiedPat, patRefusal, SESSION_SCOPES, type McpProps } from '../auth/oauth.ts';
import { mcpPath } from '../auth/toolset-endpoints.ts';
import { extraAllowedOrigins, relayOrigin } from '../config.ts';
import type { Env } from '../env.ts';
import { declaredTooLarge, readCapped } from '../http/body.ts';
import { jsonError, refusal } from '../http/responses.ts';
import { answerOrStream } from '../http/slow-answer.ts';
import { cancelledRequestKeys, relayMcpServerFactory, type Principal } from '../mcp/server.ts';

/**
 * The refusal of a `/mcp` request that must not reach authentication, or null. OPTIONS passes
 * (the provider answers preflights) unless its Origin is refused.
 */
export function mcpEdgeRefusal(request: Request, env: Env): Response | null {
  if (request.method !== 'POST' && request.method !== 'OPTIONS') return refusal(REFUSAL.method);
  const origin = request.headers.get('Origin');
  // DNS rebinding protection (MCP 2025-11-25 "Transports", Security Warning).
  if (!originAllowed(origin, new URL(request.url).origin, relayOrigin(env, request.url), extraAllowedOrigins(env))) return refusal(REFUSAL.origin);
  if (declaredTooLarge(request, LIMITS.maxMcpBodyBytes)) return refusal(REFUSAL.tooLarge);
  const path = mcpPath(new URL(request.url).pathname);
  if (path !== null && !path.ok) return refusal({ status: 404, code: RPC.serverError, message: `Not Found: ${path.message} Every tool is at /mcp.` });
  return null;
}

/**
 * Who is calling, from what the provider verified; null when the props are not ours. Its
 * `clientName` is null for an OAuth grant made before names were kept with it (see `named`).
 */
export function principalOf(props: unknown, auth: OAuthResourceContext<unknown>['auth']): Principal | null {
  if (typeof props !== 'object' || props === null) return null;
  const p = props as Partial<McpProps> & { clientName?: unknown };
  if (p.kind === 'pat' && typeof p.jti === 'string' && Array.isArray(p.scopes) && typeof p.clientId === 'string') {
    return { kind: 'pat', jti: p.jti, scopes: parseScopes(p.scopes.join(' ')), clientId: p.clientId, clientName: patClientName(p.clientId) };
  }
  if (p.kind === 'oauth' && typeof p.grant === 'string' && auth.clientId !== undefined) {
    // The token's own scopes: a refresh may have narrowed them below the grant's.
    const clientName = typeof p.clientName === 'string' && p.clientName !== '' ? p.clientName : null;
    return { kind: 'oauth', jti: `grant:${p.grant}`, scopes: parseScopes(auth.scope.join(' ')), clientId: auth.clientId, clientName };
  }
  return null;
}

/**
 * `principal` with its client's name, looked up when its grant did not keep one (made before
 * names were kept) and `messages` hold a tool call, the only request that passes it on.
 */
async function named(principal: Principal, messages: readonly unknown[], env: Env, origin: string): Promise<Principal> {
  if (principal.clientName !== null || !messages.some((m) => (m as { method?: unknown } | null)?.method === 'tools/call')) return principal;
  return { ...principal, clientName: await registeredClientName(env, origin, principal.clientId) };
}

/**
 * The permission classes the tools/call messages among `messages` need that `scopes` lacks, at an
 * endpoint serving `toolset`. A tool the toolset does not serve needs nothing here (the MCP server
 * answers it -32602), nor does a call of a class the toolset does not serve (the MCP server refuses
 * it whatever the scopes: protocol/catalog-view.ts `classRefusal`).
 */
export function missingScopes(messages: readonly unknown[], scopes: readonly PermissionClass[], toolset: Toolset = WHOLE_CATALOG): PermissionClass[] {
  const missing = new Set<PermissionClass>();
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, params } = message as { method?: unknown; params?: { name?: unknown; arguments?: unknown } };
    if (method !== 'tools/call' || typeof params?.name !== 'string') continue;
    const spec = servedTool(toolset, params.name);
    // The class this call needs (lsp_rename: read for a preview, write to apply).
    const permission = spec && permissionFor(spec, params.arguments);
    if (permission !== undefined && toolset.classes.includes(permission) && !scopes.includes(permission)) missing.add(permission);
  }
  return [...missing];
}

/**
 * The scopes a 403 asks for at an endpoint serving `toolset`, `missing` lacking: what a client
 * asks for first there (an ordinary session's at `/mcp`, the toolset's plainest calls' below it)
 * and the missing ones, so that a client that asks for exactly these keeps what it could do.
 */
export function stepUpScopes(toolset: Toolset, missing: readonly PermissionClass[]): PermissionClass[] {
  const first = toolset === WHOLE_CATALOG ? SESSION_SCOPES : toolset.plainClasses;
  return [...new Set([...first, ...missing])];
}

/**
 * Whether `body`'s answer may be streamed when it is slow (http/slow-answer.ts): one tools/call
 * request (the only kind that waits: on an editor, or on the user's answer to a prompt) whose
 * client accepts an event stream, as Streamable HTTP clients must say they do. Only the local relay
 * streams: on Cloudflare `request.signal` tells of a client going away before the answer starts,
 * and a JSON answer keeps a token refused by the Hub a 401 however long the Hub took to say so.
 */
function streamable(request: Request, body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const { method, id } = body as { method?: unknown; id?: unknown };
  return method === 'tools/call' && id !== undefined && (request.headers.get('Accept') ?? '').toLowerCase().includes('text/event-stream');
}

/** The provider's `apiHandler` for `/mcp`. */
export const mcpApi = {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    // The provider hands over `/mcp` and the paths below it (RFC 9728 path-boundary matching):
    // `/mcp` and its toolsets are endpoints (mcpEdgeRefusal refused the other names already).
    const url = new URL(request.url);
    const path = mcpPath(url.pathname);
    if (path === null || !path.ok) return jsonError(404, 'NOT_FOUND', 'No such endpoint.');
    const { toolset } = path;
    // The provider sets `auth` beside `props` on the context of its apiHandler.
    const { props, auth } = ctx as OAuthResourceContext<unknown>;
    const verified = principalOf(props, auth);
    if (verified === null) return refusal({ status: 500, code: -32603, message: 'Internal error: unknown token properties.' });

    const body = await readCapped(request, LIMITS.maxMcpBodyBytes);
    if (!body.ok) return refusal(REFUSAL.tooLarge);
    const parsed = parseMcpBody(body.text);
    if (!parsed.ok) return refusal(parsed.refusal);

    // MCP 2025-11-25 "Scope Challenge Handling" / RFC 6750 §3.1: a call outside the token's
    // scopes is 403 insufficient_scope naming every scope it needs, what the endpoint asks for
    // first included (stepUpScopes), and the endpoint's own metadata (RFC 9728 §5.1: the
    // library names the one of the token's audience, `/mcp`).
    const missing = missingScopes(parsed.messages, verified.scopes, toolset);
    if (missing.length > 0) {
      return insufficientScope({ ...auth, audience: `${url.origin}${url.pathname}` }, stepUpScopes(toolset, missing), `This call needs the ${missing.join(', ')} scope.`);
    }

    const principal = await named(verified, parsed.messages, env, relayOrigin(env, request.url));
    const hub = hubFor(env);
    const era = await mcpEraOf(request, parsed.parsedBody);
    // A legacy cancellation reaches the Hub before the 202, so that a client that was told
    // "accepted" has in fact stopped its call. (A modern one is not defined over HTTP: closing the
    // stream is the cancellation; the SDK answers such a notification 202 and does nothing.)
    if (era === 'legacy') await Promise.all(cancelledRequestKeys(parsed.messages, principal.jti).map((key) => hub.cancelRequest(key)));

    let refused: Rejection | null = null;
    // The client closing a streamed answer (http/slow-answer.ts) is its going away, as request.signal's abort is.
    const closed = new AbortController();
    const handler = dualEraHandler(
      relayMcpServerFactory({
        principal,
        toolset,
        hub,
        waitUntil: (promise) => ctx.waitUntil(promise),
        signal: AbortSignal.any([request.signal, closed.signal]),
        tokenRefused: (reason) => (refused ??= reason),
      }),
    );
    // The body was read (under the cap) and checked above; the MCP layer takes it as parsed.
    const answer = handler.fetch(request, { parsedBody: parsed.parsedBody, era });
    return answerOrStream(answer, {
      streamable: env.LOCAL_RELAY !== undefined && streamable(request, parsed.parsedBody),
      requestId: (parsed.parsedBody as { id?: unknown }).id,
      onCancel: () => closed.abort(),
      finish: (response) => {
        // The token was verified a moment ago in this isolate, and revoked or expired since (the
        // Hub checks it on every call): the answer a fresh verification would give (a JSON answer
        // is whole, so nothing of the other one has left). A streamed answer has started: it
        // carries the call's own PERMISSION_DENIED result instead.
        if (refused === null) return response;
        forgetVerifiedPat(principal.jti);
        return patRefusal(relayOrigin(env, request.url), refused);
      },
    });
  },
};
