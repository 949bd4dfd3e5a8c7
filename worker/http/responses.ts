/**
 * Error responses, one path per channel (ARCHITECTURE.md "Trust boundaries": two error channels): plain JSON errors for the admin and
 * agent endpoints, JSON-RPC error objects for `/mcp` (JSON-RPC 2.0 §5.1; their wording is
 * protocol/http/mcp-edge.ts, shared with the local server), the 401 with its RFC 6750
 * challenge, and OAuth's own error shape for the gates in front of its endpoints. Only builds Responses; deciding when to send them is the routes' job.
 */
import { challenge } from '../../protocol/http/bearer.ts';
import { refusalBody, type EdgeRefusal } from '../../protocol/http/mcp-edge.ts';

const JSON_TYPE = { 'Content-Type': 'application/json' };

/** `{error: {code, message}}` with `status`; codes are upper-snake strings (e.g. INVALID_REQUEST). */
export function jsonError(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error: { code, message } }), { status, headers: { ...JSON_TYPE, ...headers } });
}

/** A `/mcp` refusal as a Response: its status and headers, and the JSON-RPC error body. */
export function refusal(r: EdgeRefusal): Response {
  return new Response(refusalBody(r), { status: r.status, headers: { ...JSON_TYPE, ...r.headers } });
}

/**
 * 401 for the admin and agent endpoints (RFC 6750 §3; `/mcp` uses `unauthorizedRefusal`).
 * `description` null: the request carried no credentials, so a bare challenge (§3.1). Else the
 * credentials were refused: `error="invalid_token"` and why. The body repeats it for clients that
 * log bodies.
 */
export function unauthorized(description: string | null): Response {
  const headers = {
    'WWW-Authenticate': description === null ? challenge() : challenge({ code: 'invalid_token', description }),
  };
  return jsonError(401, 'UNAUTHORIZED', description ?? 'Send Authorization: Bearer <token>.', headers);
}

/** An OAuth endpoint's error (RFC 6749 §5.2, RFC 7591 §3.2.2): `{error, error_description}`, never cached. */
export function oauthError(status: number, error: string, description: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error, error_description: description }), {
    status,
    headers: { ...JSON_TYPE, 'Cache-Control': 'no-store', ...headers },
  });
}
