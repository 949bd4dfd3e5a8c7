/**
 * The Host a request may name. A request over plain HTTP is served only when it names a loopback
 * host (`localhost`, `127.0.0.0/8`, `[::1]`): that is where `npm start` and `wrangler dev` listen,
 * and a browser tricked by DNS rebinding into sending `Host: evil.example` to 127.0.0.1 must get
 * nothing (MCP 2025-11-25 "Transports", Security Warning; MCP security best practices, "Local MCP
 * Server Compromise"). OAuth needs the same: every URL the relay publishes must be https except on
 * a loopback host (OAuth 2.1 §1.5, RFC 8252 §8.3). Over https the host is whatever the TLS
 * terminator routed to this Worker, and PUBLIC_URL names the issuer. On the local relay
 * (LOCAL_RELAY) the URL must also be what the Host header says: see localUrlRefusalReason.
 *
 * Pure decision plus the refusal it implies: 421 Misdirected Request (RFC 9110 §15.5.20), shaped
 * for its reader (a page, a JSON-RPC error on `/mcp`, JSON elsewhere). Runs before anything else,
 * so that no route, and no OAuth provider built for a foreign origin, ever sees such a request.
 */
import { isLoopbackHost } from '../auth/redirect-policy.ts';
import type { Vars } from '../config.ts';
import { wantsHtml } from './negotiate.ts';
import { jsonError, refusal } from './responses.ts';
import { RPC } from '../../protocol/http/mcp-edge.ts';
import { html } from '../pages/html.ts';
import { page } from '../pages/layout.ts';

/** Why `url` (a request's URL, its host taken from the Host header) is not served; null when it is. */
function hostRefusalReason(url: URL): string | null {
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return null;
  return `This relay answers plain HTTP only at a loopback address (127.0.0.1, localhost), not at ${url.host}; use https:// for any other host name.`;
}

/**
 * On the local relay, why the request's URL is not what its Host header says (null when it is).
 * Miniflare builds the URL a Worker sees from a request header anyone may send (`MF-Original-URL`,
 * its proxy's), so a rebound page could claim `https://evil.example/…` or `http://127.0.0.1/…`
 * while its Host names evil.example; only the Host header is what the client sent, and locally
 * nothing but plain HTTP arrives.
 */
function localUrlRefusalReason(request: Request, url: URL): string | null {
  const host = request.headers.get('Host');
  if (url.protocol === 'http:' && url.host === host?.toLowerCase()) return null;
  return `This local relay is reached at http://${host ?? '(no Host)'}, not at ${url.origin}: the request's URL was rewritten by a header.`;
}

/** The 421 for a request whose Host is not served, or null when it is. */
export function hostRefusal(request: Request, vars: Vars): Response | null {
  const url = new URL(request.url);
  const reason = (vars.LOCAL_RELAY ? localUrlRefusalReason(request, url) : null) ?? hostRefusalReason(url);
  if (reason === null) return null;
  if (url.pathname === '/mcp' || url.pathname.startsWith('/mcp/')) {
    return refusal({ status: 421, code: RPC.serverError, message: `Misdirected Request: ${reason}` });
  }
  if (wantsHtml(request)) return page({ title: 'Wrong address', status: 421, body: html`<h1>Wrong address</h1><p>${reason}</p>` });
  return jsonError(421, 'MISDIRECTED_REQUEST', reason);
}
