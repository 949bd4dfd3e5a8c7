/**
 * `startAuthProxy()`: a loopback HTTP proxy, confined to the tests, that adds
 * `Authorization: Bearer <token>` to every request it forwards to an MCP endpoint, so that a peer
 * tool with no auth option (the MCP conformance suite) can reach a server that requires a token.
 * The servers keep refusing every request without one: there is no unauthenticated mode to turn
 * on. `Host` becomes the target's, as if the client had called it directly (the relay names its
 * own origin as the tokens' issuer and audience); `Origin` and every other header pass through
 * unchanged, so the servers' DNS-rebinding check (by Origin) sees what the client sent. Bodies and
 * SSE streams flow both ways; a client that goes away aborts the upstream request, so
 * stream-close cancellation reaches the server.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AuthProxy {
  /** The proxy's URL for the target's path, e.g. `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 (a free port) in front of `target`, adding `token` where no Authorization is sent. */
export async function startAuthProxy(target: string, token: string): Promise<AuthProxy> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const headers = { ...req.headers, host: upstream.host };
    headers.authorization ??= `Bearer ${token}`;
    const up = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
    });
    up.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    res.on('close', () => {
      if (!res.writableFinished) up.destroy();
    });
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1' }, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
