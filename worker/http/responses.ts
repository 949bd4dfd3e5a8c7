/**
 * Error responses, one path per channel (STYLE.md habit 4): plain JSON errors for the admin and
 * agent endpoints, JSON-RPC error objects for `/mcp` (JSON-RPC 2.0 §5.1), and the 401 with its
 * RFC 6750 challenge. Only builds Responses; deciding when to send them is the routes' job.
 */
import { challenge } from '../auth/bearer.ts';

const JSON_TYPE = { 'Content-Type': 'application/json' };

/** `{error: {code, message}}` with `status`; codes are upper-snake strings (e.g. INVALID_REQUEST). */
export function jsonError(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error: { code, message } }), { status, headers: { ...JSON_TYPE, ...headers } });
}

/**
 * A JSON-RPC error response with `id: null` (JSON-RPC 2.0 §5: the id is unknown or the request
 * was never read), as the MCP SDK's transport shapes its own HTTP-level errors.
 */
export function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { ...JSON_TYPE, ...headers },
  });
}

/** JSON-RPC 2.0 §5.1 error codes used at the HTTP edge. -32000 is the server-defined range. */
export const RPC = { parseError: -32700, invalidRequest: -32600, serverError: -32000 } as const;

/**
 * 401 for a bearer-protected endpoint (RFC 6750 §3). `description` null: the request carried no
 * credentials, so a bare challenge (§3.1). Else the credentials were refused: `error="invalid_token"`
 * and why. The body repeats it for clients that log bodies.
 */
export function unauthorized(description: string | null, body: 'json' | 'json-rpc' = 'json'): Response {
  const message = description ?? 'Send Authorization: Bearer <token>.';
  const headers = {
    'WWW-Authenticate': description === null ? challenge() : challenge({ code: 'invalid_token', description }),
  };
  return body === 'json-rpc'
    ? jsonRpcError(401, RPC.serverError, `Unauthorized: ${message}`, headers)
    : jsonError(401, 'UNAUTHORIZED', message, headers);
}
