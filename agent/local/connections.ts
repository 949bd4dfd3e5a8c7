/**
 * What `vimrelay serve --http` lets connections take, so that another local account (anyone on
 * the machine can connect to a loopback port) cannot use up the process's file descriptors,
 * deny the owner's requests or end the process:
 *
 * - at most `LOCAL_HTTP_LIMITS.maxConnections` connections at once (Node's `maxConnections`: a
 *   connection past it is closed as soon as it is accepted);
 * - at most `maxUnproven` of them not yet proven: a connection is proven once a request on it
 *   carried the access token. A new connection past that number closes the oldest unproven one,
 *   so connections held open without a request (or trickling one) cannot keep the owner's client
 *   out: its request carries the token within moments of connecting. The owner's proven
 *   connections are never closed for others;
 * - a connection that has not sent a whole request header `headersTimeoutMs` after it opened is
 *   answered 408 and closed (Node's `headersTimeout`, checked every `checkIntervalMs`);
 * - a failure to accept (EMFILE, ENFILE: no descriptor left) is logged and survived: the server
 *   goes on accepting once descriptors are free again.
 *
 * Not covered: an account that opens connections as fast as it can competes with the owner's
 * own new connections for the unproven places (a keep-alive connection the owner's client already
 * holds is not affected).
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../log.ts';

/** The limits of the local HTTP server (README "Local mode" documents them). */
export const LOCAL_HTTP_LIMITS = {
  /** Connections open at once. */
  maxConnections: 256,
  /** Connections open at once that have not carried the access token yet. */
  maxUnproven: 64,
  /** Time a connection has to send a whole request header (ms). */
  headersTimeoutMs: 5_000,
  /** How often Node checks that timeout (ms). */
  checkIntervalMs: 1_000,
} as const;

/** How often, at most, a repeated trouble (connections closed, accept failing) is logged (ms). */
const LOG_EVERY_MS = 60_000;

/** The options `http.createServer` takes for the timeouts above. */
export function serverTimeouts(): { headersTimeout: number; connectionsCheckingInterval: number } {
  return { headersTimeout: LOCAL_HTTP_LIMITS.headersTimeoutMs, connectionsCheckingInterval: LOCAL_HTTP_LIMITS.checkIntervalMs };
}

export interface ConnectionGuard {
  /** Marks `socket` proven: a request on it carried the access token. */
  prove(socket: Socket): void;
}

/** Applies the limits of the module header to `server` (made with `serverTimeouts()`). */
export function guardConnections(server: Server, logger: Logger, maxUnproven: number = LOCAL_HTTP_LIMITS.maxUnproven): ConnectionGuard {
  server.maxConnections = LOCAL_HTTP_LIMITS.maxConnections;
  // Oldest first (a Set keeps insertion order).
  const unproven = new Set<Socket>();
  const closedNote = throttled(
    logger,
    (n) => `${n} connection(s) closed that had sent no request with the access token while ${maxUnproven} newer ones waited; another local account may be flooding the port`,
  );
  const acceptNote = throttled(logger, (n, why) => `could not accept ${n} connection(s): ${why}; serving goes on once descriptors are free`);
  server.on('connection', (socket: Socket) => {
    unproven.add(socket);
    socket.once('close', () => unproven.delete(socket));
    if (unproven.size <= maxUnproven) return;
    const oldest = unproven.values().next().value;
    if (oldest === undefined) return;
    unproven.delete(oldest);
    oldest.destroy();
    closedNote('');
  });
  // Accept failures come here (net.Server emits them as 'error'); without a listener they would
  // end the process. One before listening (the port taken) is the caller's to report.
  server.on('error', (error: NodeJS.ErrnoException) => {
    if (server.listening) acceptNote(error.code ?? error.message);
  });
  return { prove: (socket) => void unproven.delete(socket) };
}

/** A warning said at once, then at most every LOG_EVERY_MS with how many times it happened since. */
function throttled(logger: Logger, say: (times: number, detail: string) => string): (detail: string) => void {
  let last = -Infinity;
  let times = 0;
  return (detail) => {
    times++;
    const now = Date.now();
    if (now - last < LOG_EVERY_MS) return;
    logger.warn(say(times, detail));
    last = now;
    times = 0;
  };
}
