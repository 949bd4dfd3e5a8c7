// DNS rebinding against a real relay in local workerd, as the MCP conformance suite's
// `dns-rebinding-protection` scenario sends it: Host and Origin naming evil.example.com, on the
// relay's loopback socket. Every route answers 4xx (421), never a 500 with a stack trace; the same
// request naming the loopback host it listens on is served. Nor may a header that makes Miniflare
// rewrite the Worker's URL (MF-Original-URL) smuggle another host or scheme past that check.
import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRelay, type TestRelay } from '../helpers/relay.ts';

let relay: TestRelay;

beforeAll(async () => {
  relay = await withRelay();
}, 90_000);

afterAll(async () => {
  await relay?.stop();
});

/** One request with an explicit Host header (fetch cannot set one), on `agent`'s connections. */
function send(method: string, path: string, host: string, body?: string, agent?: Agent, extra: Record<string, string> = {}): Promise<{ status: number; text: string; reused: boolean }> {
  const url = new URL(relay.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, method, path, ...(agent ? { agent } : {}), headers: { Host: host, Origin: `http://${host}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25', ...extra } },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, reused: req.reusedSocket }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'rebinding-probe', version: '1' } } });

describe('a rebound Host', () => {
  it.each([
    ['POST', '/mcp'],
    ['GET', '/'],
    ['GET', '/health'],
    ['GET', '/.well-known/oauth-authorization-server'],
    ['POST', '/oauth/token'],
    ['GET', '/authorize'],
    ['GET', '/dashboard'],
    ['POST', '/signin'],
    ['POST', '/pair/device'],
    ['GET', '/admin/tokens'],
    ['GET', '/agent'],
  ])('%s %s: 421, no stack trace', async (method, path) => {
    const res = await send(method, path, 'evil.example.com', method === 'POST' ? initialize : undefined);
    expect(res.status).toBe(421);
    expect(res.text).not.toMatch(/TypeError|\.js:\d+/);
  });

  it('the loopback host it listens on is served', async () => {
    const res = await send('POST', '/mcp', new URL(relay.url).host, initialize);
    expect(res.status).toBe(401); // no token: the OAuth challenge, not a refusal of the Host
    expect((await send('GET', '/health', `localhost:${new URL(relay.url).port}`)).status).toBe(200);
  });

  // Miniflare builds the Worker's URL from this header of its proxy's, whoever sends it; a rebound
  // page may send it too (same-origin to the browser). The relay holds the URL to the Host header.
  it.each([
    ['https on the foreign host', (port: string) => `https://evil.example.com:${port}`],
    ['its own loopback address', (port: string) => `http://127.0.0.1:${port}`],
  ])('a URL rewritten by Miniflare\'s MF-Original-URL header to %s, under the foreign Host: 421', async (_what, origin) => {
    const port = new URL(relay.url).port;
    for (const [method, path] of [['POST', '/pair/device'], ['GET', '/.well-known/oauth-authorization-server'], ['GET', '/health']]) {
      const res = await send(method!, path!, `evil.example.com:${port}`, method === 'POST' ? '{}' : undefined, undefined, { 'MF-Original-URL': `${origin(port)}${path}` });
      expect([path, res.status]).toEqual([path, 421]);
      expect(res.text).not.toContain('evil.example.com:' + port + '/');
    }
    // Its own Host, and a URL rewritten to another scheme or port of it: refused too.
    const own = new URL(relay.url).host;
    expect((await send('GET', '/health', own, undefined, undefined, { 'MF-Original-URL': `https://${own}/health` })).status).toBe(421);
    expect((await send('GET', '/health', own, undefined, undefined, { 'MF-Original-URL': `http://127.0.0.1:1/health` })).status).toBe(421);
    expect((await send('GET', '/health', own)).status).toBe(200);
  });

  it('a refused request with a body leaves its keep-alive connection usable for the next one', async () => {
    // workerd closes a connection whose request body was left unread, without saying so: the
    // relay reads such a body away after answering (worker/http/body.ts drainUnread).
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const own = new URL(relay.url).host;
    try {
      expect((await send('POST', '/health', 'evil.example.com', initialize, agent)).status).toBe(421);
      const next = await send('GET', '/health', own, undefined, agent);
      expect(next).toMatchObject({ status: 200, reused: true });
      expect((await send('POST', '/signin', own, initialize, agent)).status).toBe(303); // the local relay's sign-in is HTTP Basic: the form is never read
      expect(await send('GET', '/health', own, undefined, agent)).toMatchObject({ status: 200, reused: true });
    } finally {
      agent.destroy();
    }
  });
});
