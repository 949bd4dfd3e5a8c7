/**
 * Miniflare's loopback server: the HTTP server in this Node process through which workerd calls
 * back into Miniflare (an error to print with its source, a log line). It listens on 127.0.0.1
 * with no authentication, and some of its routes act on the filesystem as this user:
 * `/core/store-temp-file` writes a request's body to a path the request can steer anywhere
 * (`extension=/../../..`), others list or delete Durable Object and Workflow storage or start a
 * browser. Every local account reaches 127.0.0.1, so any of them could have written
 * `~/.ssh/authorized_keys` of the user running `npm start`.
 *
 * The relay needs only the two routes workerd uses to report (`LOOPBACK_ROUTES`); `guardLoopback`
 * makes every HTTP server created while it is armed (Miniflare's loopback server, created while
 * Miniflare starts) answer 403 to anything else, WebSocket upgrades included, and tells the caller.
 * Miniflare offers no option for this (its loopback address is not configurable), hence the
 * interception of `http.createServer`, undone once Miniflare is ready.
 */
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** What workerd asks of Miniflare's loopback server for this relay: a Worker's error, its log lines. */
export const LOOPBACK_ROUTES: ReadonlySet<string> = new Set(['POST /core/error', 'POST /core/log']);

/**
 * Miniflare's own headers that send a request elsewhere than its path says: to a Node-side
 * service, or to the route of another URL (`MF-Original-URL` replaces the path it dispatches on).
 */
const REDIRECTING_HEADERS = ['mf-custom-node-service', 'mf-custom-fetch-service', 'mf-original-url', 'x-resolve-method'];

/** The method and path of `req`, as a refusal reports them. */
function routeOf(req: IncomingMessage): string {
  return `${req.method ?? ''} ${new URL(req.url ?? '/', 'http://loopback').pathname}`;
}

/** Whether the loopback server may serve `req`. */
export function loopbackAllows(req: IncomingMessage): boolean {
  return LOOPBACK_ROUTES.has(routeOf(req)) && REDIRECTING_HEADERS.every((name) => req.headers[name] === undefined);
}

/** Has `server` answer 403 to every request and upgrade it may not serve, whoever listens for them. */
function guard(server: Server, refused: (route: string) => void): void {
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: unknown[]) => boolean;
  server.emit = ((event: string | symbol, ...args: unknown[]): boolean => {
    if (event !== 'request' && event !== 'upgrade') return emit(event, ...args);
    const req = args[0] as IncomingMessage;
    if (loopbackAllows(req)) return emit(event, ...args);
    refused(routeOf(req));
    if (event === 'request') (args[1] as ServerResponse).writeHead(403, { 'content-type': 'text/plain' }).end('Forbidden\n');
    else (args[1] as Duplex).end('HTTP/1.1 403 Forbidden\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    return true;
  }) as typeof server.emit;
}

/**
 * Guards every HTTP server created from now until the returned function is called (see the
 * module header). `onRefused` hears of each refused request.
 */
export function guardLoopback(onRefused: (route: string) => void): () => void {
  const original = http.createServer;
  http.createServer = ((...args: Parameters<typeof http.createServer>) => {
    const server = original(...args);
    guard(server, onRefused);
    return server;
  }) as typeof http.createServer;
  return () => {
    http.createServer = original;
  };
}
