/**
 * Miniflare's loopback server: the HTTP server in this Node process through which workerd calls
 * back into Miniflare (an error to report, a log line). It listens on 127.0.0.1 with no
 * authentication, and its routes act as this user: `/core/store-temp-file` writes a request's
 * body to a path the request can steer anywhere (`extension=/../../..`), `/core/error` renders a
 * page of the source lines around each frame of the stack it is sent, reading whatever file a
 * frame names, and returns it to the caller; others list or delete Durable Object and Workflow
 * storage or start a browser. Every local account reaches 127.0.0.1, so any of them could have
 * written `~/.ssh/authorized_keys` of the user running `npm start`, or read their private key.
 *
 * `guardLoopback` has every HTTP server created while it is armed (Miniflare's loopback server,
 * created while Miniflare starts) serve two routes and refuse the rest with 403, WebSocket
 * upgrades included: `POST /core/log` goes on to Miniflare (it only prints the line, at the
 * relay's log level), and `POST /core/error` is answered here, without reading any file: the
 * error's stack goes to the relay's log, and the answer is a plain 500, as Cloudflare's edge
 * answers a Worker that threw (Miniflare's page went back to the relay's HTTP client). Miniflare
 * offers no option for this (its loopback address is not configurable), hence the interception
 * of `http.createServer`, undone once Miniflare is ready.
 */
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** The most of an error report read (bytes); a longer one is cut. */
const ERROR_REPORT_MAX_BYTES = 64 * 1024;

/**
 * Miniflare's own headers that send a request elsewhere than its path says: to a Node-side
 * service, or to the route of another URL (`MF-Original-URL` replaces the path it dispatches on).
 */
const REDIRECTING_HEADERS = ['mf-custom-node-service', 'mf-custom-fetch-service', 'mf-original-url', 'x-resolve-method'];

/** What a guarded server tells its owner. */
export interface LoopbackReports {
  /** A request refused (its method and path). */
  refused(route: string): void;
  /** An error workerd reported (its stack, or what was sent). */
  error(text: string): void;
}

/** The method and path of `req`. */
function routeOf(req: IncomingMessage): string {
  return `${req.method ?? ''} ${new URL(req.url ?? '/', 'http://loopback').pathname}`;
}

/** The route `req` may take on a guarded server: to Miniflare, answered here, or none. */
function routing(req: IncomingMessage, event: 'request' | 'upgrade'): 'miniflare' | 'error' | null {
  if (event !== 'request' || !REDIRECTING_HEADERS.every((name) => req.headers[name] === undefined)) return null;
  const route = routeOf(req);
  return route === 'POST /core/log' ? 'miniflare' : route === 'POST /core/error' ? 'error' : null;
}

/** Reads an error report (workerd's JSON of an error: name, message, stack) and answers 500. */
function answerError(req: IncomingMessage, res: ServerResponse, report: (text: string) => void): void {
  let text = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => {
    if (text.length < ERROR_REPORT_MAX_BYTES) text += chunk.slice(0, ERROR_REPORT_MAX_BYTES - text.length);
  });
  req.on('end', () => {
    let stack = text;
    try {
      const error = JSON.parse(text) as { stack?: unknown; message?: unknown };
      stack = typeof error.stack === 'string' ? error.stack : String(error.message ?? text);
    } catch {
      // Not JSON: report what came.
    }
    report(stack);
    res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error\n');
  });
}

/** Has `server` serve only what `routing` allows, whoever listens for its requests and upgrades. */
function guard(server: Server, reports: LoopbackReports): void {
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: unknown[]) => boolean;
  server.emit = ((event: string | symbol, ...args: unknown[]): boolean => {
    if (event !== 'request' && event !== 'upgrade') return emit(event, ...args);
    const req = args[0] as IncomingMessage;
    const route = routing(req, event);
    if (route === 'miniflare') return emit(event, ...args);
    if (route === 'error') {
      answerError(req, args[1] as ServerResponse, reports.error);
      return true;
    }
    reports.refused(routeOf(req));
    if (event === 'request') (args[1] as ServerResponse).writeHead(403, { 'content-type': 'text/plain' }).end('Forbidden\n');
    else (args[1] as Duplex).end('HTTP/1.1 403 Forbidden\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    return true;
  }) as typeof server.emit;
}

/**
 * Guards every HTTP server created from now until the returned function is called (see the
 * module header).
 */
export function guardLoopback(reports: LoopbackReports): () => void {
  const original = http.createServer;
  http.createServer = ((...args: Parameters<typeof http.createServer>) => {
    const server = original(...args);
    guard(server, reports);
    return server;
  }) as typeof http.createServer;
  return () => {
    http.createServer = original;
  };
}
