/**
 * The edge of an MCP Streamable HTTP endpoint (spec 2025-11-25 "Transports", 2026-07-28
 * "basic/transports/streamable-http"), before the MCP layer (mcp-handler.ts), as pure decisions: the relay's `/mcp` (worker/routes/mcp.ts) and the local server
 * (agent/local/http.ts) both use them, so that they refuse the same requests with the same HTTP
 * status, JSON-RPC code and wording. Each shell applies them in this order: method (405), Origin
 * (403), declared body size (413), bearer token (401), body read under the cap (413), JSON
 * (-32700), JSON-RPC shape (-32600). Authentication comes before reading the body so that an
 * anonymous request never makes the server read a megabyte. These refusals are the same in both
 * protocol eras; the era's own answers (headers, versions, methods) come after them, from the SDK.
 */
import { isSpecType } from '@modelcontextprotocol/server';
import { LIMITS } from '../limits.ts';
import { challenge } from './bearer.ts';

/** JSON-RPC 2.0 §5.1 error codes used at the HTTP edge. -32000 is the server-defined range. */
export const RPC = { parseError: -32700, invalidRequest: -32600, internalError: -32603, serverError: -32000 } as const;

/** A request refused at the edge: the HTTP status and the JSON-RPC error its body carries. */
export interface EdgeRefusal {
  readonly status: number;
  readonly code: number;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The refusals that take no argument. */
export const REFUSAL = {
  // Stateless server: no standalone SSE stream (GET) and no session to delete (DELETE).
  method: {
    status: 405,
    code: RPC.serverError,
    message: 'Method not allowed: this MCP endpoint is stateless and takes POST only.',
    headers: { Allow: 'POST' },
  },
  origin: { status: 403, code: RPC.serverError, message: 'Forbidden: this Origin may not call this endpoint.' },
  tooLarge: {
    status: 413,
    code: RPC.serverError,
    message: `Payload Too Large: the request body must not exceed ${LIMITS.maxMcpBodyBytes} bytes.`,
  },
  parse: { status: 400, code: RPC.parseError, message: 'Parse error: the request body is not valid JSON.' },
  // JSON-RPC 2.0 §5.1: valid JSON that is not a JSON-RPC message is -32600 (the SDK says -32700).
  invalid: { status: 400, code: RPC.invalidRequest, message: 'Invalid Request: the body is not a JSON-RPC 2.0 message.' },
} as const satisfies Record<string, EdgeRefusal>;

/**
 * 401 (RFC 6750 §3). `description` null: the request carried no credentials, so a bare challenge
 * (§3.1). Else the credentials were refused: `error="invalid_token"` and why.
 */
export function unauthorizedRefusal(description: string | null): EdgeRefusal {
  return {
    status: 401,
    code: RPC.serverError,
    message: `Unauthorized: ${description ?? 'Send Authorization: Bearer <token>.'}`,
    headers: { 'WWW-Authenticate': description === null ? challenge() : challenge({ code: 'invalid_token', description }) },
  };
}

/**
 * The body of a refusal: a JSON-RPC error with `id: null` (JSON-RPC 2.0 §5: the id is unknown or
 * the request was never read), as the MCP SDK's transport shapes its own HTTP-level errors.
 */
export function refusalBody(refusal: Pick<EdgeRefusal, 'code' | 'message'>): string {
  return JSON.stringify({ jsonrpc: '2.0', error: { code: refusal.code, message: refusal.message }, id: null });
}

/** Whether a declared Content-Length alone is over `maxBytes` (a missing header is not). */
export function contentLengthOver(contentLength: string | null | undefined, maxBytes: number): boolean {
  return contentLength !== null && contentLength !== undefined && Number(contentLength) > maxBytes;
}

export type McpBody = { ok: true; parsedBody: unknown; messages: unknown[] } | { ok: false; refusal: EdgeRefusal };

/** Parses a POST body (read under the cap) into JSON-RPC messages, one or a batch. */
export function parseMcpBody(text: string): McpBody {
  let parsedBody: unknown;
  try {
    parsedBody = JSON.parse(text);
  } catch {
    return { ok: false, refusal: REFUSAL.parse };
  }
  const messages: unknown[] = Array.isArray(parsedBody) ? parsedBody : [parsedBody];
  if (messages.length === 0 || !messages.every((m) => isSpecType.JSONRPCMessage(m))) {
    return { ok: false, refusal: REFUSAL.invalid };
  }
  return { ok: true, parsedBody, messages };
}

/**
 * CORS for browser-based clients (e.g. the MCP Inspector), which must also be able to read the
 * challenge of a 401 to start authorization. Only origins that pass the Origin check get it.
 * `Mcp-Method` and `Mcp-Name` go on every 2026-07-28 POST (spec 2026-07-28
 * "basic/transports/streamable-http", Standard Request Headers): without them a browser's
 * preflight fails and the client can only fall back to the 2025 era.
 */
export const MCP_CORS = {
  allowMethods: ['POST'],
  allowHeaders: ['Authorization', 'Content-Type', 'Accept', 'Mcp-Protocol-Version', 'Mcp-Method', 'Mcp-Name', 'Last-Event-ID'],
  // Mcp-Session-Id: a stateless server sends none, but a client must be able to read it if one did.
  exposeHeaders: ['WWW-Authenticate', 'Mcp-Session-Id'],
  maxAgeSeconds: 86_400,
} as const;
