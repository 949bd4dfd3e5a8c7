/**
 * The MCP layer of a Streamable HTTP endpoint, after the edge (mcp-edge.ts): both protocol eras
 * on one URL, statelessly, as web-standard Request -> Response. The relay's `/mcp`
 * (worker/routes/mcp.ts) calls it directly; `vimrelay serve --http` (agent/local/http.ts) through
 * the SDK's Node adapter. Runtime-neutral: no `node:*`, no Workers globals.
 *
 * Spec 2026-07-28 "basic/versioning", Backward Compatibility with Initialization-Based Versions: a
 * server MAY serve both eras on one endpoint; a request carrying the per-request `_meta` envelope
 * is served per 2026-07-28, and an `initialize` selects the 2025 revision it negotiates.
 *   - legacy (no envelope: `initialize`, and every later 2025-era request): a fresh server for the
 *     request over the SDK's classic transport, stateless (no `Mcp-Session-Id`) and answering JSON,
 *     never SSE, as this endpoint always has;
 *   - modern (everything else): the SDK's `createMcpHandler` in strict mode, which owns the
 *     2026-07-28 answers: 415 for a non-JSON body, -32602 for a malformed envelope, -32020
 *     HeaderMismatch when `MCP-Protocol-Version`, `Mcp-Method` or `Mcp-Name` disagree with the
 *     body ("basic/transports/streamable-http", Server Validation), -32022 with the supported
 *     versions for a revision it does not serve, 404 -32601 for an unknown method, -32600 for a
 *     batch; `resultType`, `_meta` serverInfo and the cache hints on every result; and the stream
 *     closing as the request's cancellation ("basic/patterns/cancellation").
 * The era is the SDK's own classification (`isLegacyRequest`), so routing never disagrees with it.
 */
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpHttpHandler,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import { LIMITS } from '../limits.ts';
import type { McpEra } from '../mcp-server.ts';

/**
 * The Fetch standard's Request and Response, as the SDK's entry takes and gives them. Both
 * runtimes have them (workerd, Node >= 18); protocol/ is compiled without either runtime's
 * globals, so the types come through the SDK's signatures.
 */
type WebRequest = Parameters<McpHttpHandler['fetch']>[0];
type WebResponse = Awaited<ReturnType<McpHttpHandler['fetch']>>;

/** One request for the MCP layer: its body, already read under the cap and parsed by the edge. */
export interface McpHandlerRequest {
  readonly parsedBody: unknown;
  /** The era, from `mcpEraOf` (the edge needs it first, for legacy cancellations). */
  readonly era: McpEra;
  readonly authInfo?: AuthInfo;
}

export interface DualEraHandler {
  fetch(request: WebRequest, options: McpHandlerRequest): Promise<WebResponse>;
  /** Aborts the modern exchanges in flight (a legacy exchange holds nothing between requests). */
  close(): Promise<void>;
}

/** Which era serves `request` (the SDK's classification, from the parsed body and the headers). */
export async function mcpEraOf(request: WebRequest, parsedBody: unknown): Promise<McpEra> {
  return (await isLegacyRequest(request, parsedBody, { maxRequestBodySize: LIMITS.maxMcpBodyBytes })) ? 'legacy' : 'modern';
}

/** Both eras over `factory` (protocol/mcp-server.ts `mcpServerFactory`, or one closing over a request). */
export function dualEraHandler(factory: McpServerFactory): DualEraHandler {
  // 'auto' answers JSON: our handlers send no message before their result.
  const modern = createMcpHandler(factory, { legacy: 'reject', maxRequestBodySize: LIMITS.maxMcpBodyBytes });
  return {
    async fetch(request, { parsedBody, era, authInfo }) {
      const auth = authInfo === undefined ? {} : { authInfo };
      if (era === 'modern') return modern.fetch(request, { parsedBody, ...auth });
      const server = await factory({ era: 'legacy', requestInfo: request, ...auth });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
        maxRequestBodySize: LIMITS.maxMcpBodyBytes,
      });
      await server.connect(transport);
      try {
        return await transport.handleRequest(request, { parsedBody, ...auth });
      } finally {
        await server.close();
      }
    },
    close: () => modern.close(),
  };
}
