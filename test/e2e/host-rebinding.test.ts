// DNS rebinding against the relay in real wrangler dev, as the MCP conformance suite's
// `dns-rebinding-protection` scenario sends it: Host and Origin naming evil.example.com, on the
// relay's loopback socket. Every route answers 4xx (421), never a 500 with a stack trace; the same
// request naming the loopback host it listens on is served.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRelay, type TestRelay } from '../helpers/relay.ts';

let relay: TestRelay;

beforeAll(async () => {
  relay = await withRelay();
}, 90_000);

afterAll(async () => {
  await relay?.stop();
});

/** One request with an explicit Host header (fetch cannot set one). */
function send(method: string, path: string, host: string, body?: string): Promise<{ status: number; text: string }> {
  const url = new URL(relay.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, method, path, headers: { Host: host, Origin: `http://${host}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
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
});
