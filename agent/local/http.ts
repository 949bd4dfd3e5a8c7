/**
 * `vimrelay serve --http`: the MCP endpoint at `http://127.0.0.1:<port>/mcp`, Streamable HTTP and
 * stateless like the relay's `/mcp` (a fresh server per POST, no session, GET and DELETE 405),
 * serving both protocol eras on the one URL as the relay does (protocol/http/mcp-handler.ts,
 * through the SDK's Node adapter). Binds the loopback address only (ARCHITECTURE.md "Trust
 * boundaries": the agent listens on nothing else).
 *
 * Before the MCP layer it applies the relay's edge (protocol/http/mcp-edge.ts), in the same order
 * and wording: method (405), Origin (403; no Origin or a loopback one passes), declared body size
 * (413), the bearer token (401 with an RFC 6750 challenge; compared in constant time), body read
 * under LIMITS.maxMcpBodyBytes (413), JSON (-32700), JSON-RPC shape (-32600). Any other path 404.
 *
 * Cancellation: in the 2026-07-28 era the client closing the response stream cancels that request
 * (the adapter aborts it on the response's 'close'); in the 2025 era a `notifications/cancelled`
 * POST names the request by its JSON-RPC id, and cancels it only when exactly one call in flight
 * holds that id (forward.ts `cancel`). A legacy client going away cancels its call too.
 *
 * Any local account can connect to the port: connections.ts bounds what they can hold (how many
 * connections, how long before a whole header, the owner's proven connections kept apart) and
 * keeps a failure to accept from ending the process.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { McpServerFactory } from '@modelcontextprotocol/server';
import { bearerToken } from '../../protocol/http/bearer.ts';
import {
  contentLengthOver,
  MCP_CORS,
  parseMcpBody,
  REFUSAL,
  RPC,
  refusalBody,
  unauthorizedRefusal,
  type EdgeRefusal,
} from '../../protocol/http/mcp-edge.ts';
import { dualEraHandler, mcpEraOf } from '../../protocol/http/mcp-handler.ts';
import { originAllowed } from '../../protocol/http/origin.ts';
import { LIMITS } from '../../protocol/index.ts';
import { buildMcpServer, cancelledRequestIds, WHOLE_SERVING, type McpServing } from '../../protocol/mcp-server.ts';
import type { Logger } from '../log.ts';
import { guardConnections, serverTimeouts, type ConnectionGuard } from './connections.ts';
import type { LocalForwarder } from './forward.ts';
import { tokenMatches } from './token.ts';
import { localNotFoundBody } from './not-a-relay.ts';

/** The only address the local server binds. */
export const LOOPBACK_HOST = '127.0.0.1';
/** The default port of `vimrelay serve --http` (the relay's `npm start` takes 8787). */
export const DEFAULT_LOCAL_PORT = 8788;

export interface LocalHttpOptions {
  forwarder: LocalForwarder;
  /** The bearer token every request must carry. */
  token: string;
  /** 0 picks a free port. Default DEFAULT_LOCAL_PORT. */
  port?: number;
  logger: Logger;
  /** What it lists and serves (`--tools`); default the whole catalog. */
  serving?: McpServing;
}

export interface LocalHttpServer {
  /** `http://127.0.0.1:<port>/mcp` */
  readonly mcpUrl: string;
  readonly port: number;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/** Starts listening on 127.0.0.1; rejects when the port is taken. */
export async function startLocalHttp(opts: LocalHttpOptions): Promise<LocalHttpServer> {
  // Known once listening, which is before the first request.
  let selfOrigin = '';
  const mcp = localMcpLayer(opts.forwarder, opts.serving ?? WHOLE_SERVING);
  const server = createServer(serverTimeouts());
  const connections = guardConnections(server, opts.logger);
  const serve =
    (expectsContinue: boolean) =>
    (req: IncomingMessage, res: ServerResponse): void => {
      handle(req, res, opts, selfOrigin, mcp.serve, expectsContinue, connections).catch((error: unknown) => {
        opts.logger.error('local MCP request failed', { error: error instanceof Error ? error.message : String(error) });
        if (!res.headersSent) send(res, { status: 500, code: RPC.internalError, message: 'Internal error.' });
        else res.destroy();
      });
    };
  server.on('request', serve(false));
  // `Expect: 100-continue` (curl sends it for bodies over 1 MiB): Node would answer 100 at once;
  // handled here, the client is asked for its body only once the edge has passed it.
  server.on('checkContinue', serve(true));
  await listen(server, opts.port ?? DEFAULT_LOCAL_PORT);
  const { port } = server.address() as AddressInfo;
  selfOrigin = `http://${LOOPBACK_HOST}:${port}`;
  return {
    mcpUrl: `${selfOrigin}/mcp`,
    port,
    close: async () => {
      await mcp.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** Serves one request that passed the edge, its body already parsed. */
type McpLayer = (req: IncomingMessage, res: ServerResponse, parsedBody: unknown) => Promise<void>;

/**
 * The MCP layer behind the edge: both eras over the forwarder. Each instance's calls stop when
 * their request is cancelled (the SDK's signal) or when the HTTP request goes away (the adapter
 * aborts the web Request when the response closes).
 */
function localMcpLayer(forwarder: LocalForwarder, serving: McpServing): { serve: McpLayer; close(): Promise<void> } {
  const factory: McpServerFactory = ({ era, requestInfo }) =>
    buildMcpServer(
      (call, request) =>
        forwarder.serve(
          call,
          {
            signal: requestInfo === undefined ? request.signal : AbortSignal.any([request.signal, requestInfo.signal]),
            ...(era === 'legacy' ? { key: JSON.stringify(request.requestId) } : {}),
            ...(request.clientName === undefined ? {} : { clientName: request.clientName }),
            ui: request.ui,
          },
          // 2026-07-28 rounds only: a 2025-era POST is answered with JSON, with no stream for a server request.
          request.assistant,
        ),
      era,
      serving,
    );
  const handler = dualEraHandler(factory);
  const node = toNodeHandler({
    async fetch(request, options) {
      const parsedBody = options?.parsedBody;
      const era = await mcpEraOf(request, parsedBody);
      // Stateless: a legacy cancellation comes in its own POST, so it is applied here, before the 202.
      if (era === 'legacy') {
        for (const id of cancelledRequestIds(Array.isArray(parsedBody) ? parsedBody : [parsedBody])) forwarder.cancel(JSON.stringify(id));
      }
      return handler.fetch(request, { parsedBody, era });
    },
  });
  return { serve: (req, res, parsedBody) => node(req, res, parsedBody), close: () => handler.close() };
}

function listen(server: HttpServer, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      reject(error.code === 'EADDRINUSE' ? new Error(`port ${port} on ${LOOPBACK_HOST} is in use; pass --port N`) : error);
    };
    server.once('error', onError);
    server.listen({ port, host: LOOPBACK_HOST }, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/**
 * `expectsContinue`: the client sent `Expect: 100-continue` and waits for a 100 (Continue) before
 * sending its body (RFC 9110 §10.1.1). It is sent just before the body is read, so that every
 * refusal before that is the final answer to a client that has sent no body (as the relay's
 * workerd does): a declared 2 MiB is refused without a byte of it crossing.
 */
async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  opts: LocalHttpOptions,
  selfOrigin: string,
  mcp: McpLayer,
  expectsContinue: boolean,
  connections: ConnectionGuard,
): Promise<void> {
  if (new URL(req.url ?? '/', selfOrigin).pathname !== '/mcp') {
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end(localNotFoundBody());
    return;
  }
  const origin = req.headers.origin ?? null;
  // The browser is told nothing about an Origin we refuse.
  const originOk = originAllowed(origin, selfOrigin, selfOrigin, []);
  if (originOk && origin !== null) corsHeaders(res, origin, req.method === 'OPTIONS');
  if (req.method === 'OPTIONS') {
    res.writeHead(204).end();
    return;
  }
  if (req.method !== 'POST') return send(res, REFUSAL.method);
  if (!originOk) return send(res, REFUSAL.origin);
  if (contentLengthOver(req.headers['content-length'], LIMITS.maxMcpBodyBytes)) return send(res, REFUSAL.tooLarge, true);

  const token = bearerToken(req.headers.authorization);
  if (token === null) return send(res, unauthorizedRefusal(null), true);
  if (!tokenMatches(token, opts.token)) return send(res, unauthorizedRefusal('the access token is not valid'), true);
  connections.prove(req.socket);

  if (expectsContinue) res.writeContinue();
  const body = await readCapped(req, LIMITS.maxMcpBodyBytes);
  if (body === 'gone') return;
  if (body === 'too-large') return send(res, REFUSAL.tooLarge, true);
  const parsed = parseMcpBody(body.text);
  if (!parsed.ok) return send(res, parsed.refusal);

  // The body was read (under the cap) and checked above; the MCP layer takes it as parsed.
  await mcp(req, res, parsed.parsedBody);
}

function corsHeaders(res: ServerResponse, origin: string, preflight: boolean): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Vary', 'Origin');
  res.setHeader('Access-Control-Expose-Headers', MCP_CORS.exposeHeaders.join(', '));
  if (!preflight) return;
  res.setHeader('Access-Control-Allow-Methods', MCP_CORS.allowMethods.join(', '));
  res.setHeader('Access-Control-Allow-Headers', MCP_CORS.allowHeaders.join(', '));
  res.setHeader('Access-Control-Max-Age', String(MCP_CORS.maxAgeSeconds));
}

/**
 * Writes a refusal. `unread`: the body was not (wholly) read, so the connection is closed after
 * the answer rather than kept alive behind a body nobody will read.
 */
function send(res: ServerResponse, refusal: EdgeRefusal, unread = false): void {
  res.writeHead(refusal.status, { 'Content-Type': 'application/json', ...refusal.headers, ...(unread ? { Connection: 'close' } : {}) });
  res.end(refusalBody(refusal));
}

/**
 * The body as UTF-8 text; 'too-large' when it passes `maxBytes`; 'gone' when the client went away
 * before sending all of it. Past the cap the rest is read and dropped, and only then is the answer
 * due: a client still uploading when the connection closes sees a broken pipe, not the 413. A body
 * that goes on past DRAIN_LIMIT_BYTES is cut off ('gone').
 */
function readCapped(req: IncomingMessage, maxBytes: number): Promise<{ text: string } | 'too-large' | 'gone'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received <= maxBytes) chunks.push(chunk);
      else if (received > maxBytes + DRAIN_LIMIT_BYTES) req.destroy();
    });
    req.once('end', () => resolve(received > maxBytes ? 'too-large' : { text: Buffer.concat(chunks).toString('utf8') }));
    // After 'end' these change nothing: a promise settles once.
    req.once('error', () => resolve('gone'));
    req.once('close', () => resolve('gone'));
  });
}

/** How much of an oversized body is read and dropped before the connection is cut. */
const DRAIN_LIMIT_BYTES = 8 * 1024 * 1024;
