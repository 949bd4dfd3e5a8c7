// The Host a request names, as a DNS-rebinding attack sends it: plain HTTP with a foreign Host (the
// MCP conformance suite's `dns-rebinding-protection` probe: Host and Origin both evil.example.com)
// gets 421 on every route, never a 500 or a stack trace; loopback hosts over http and any host over
// https are served. Requests go to the real Worker in workerd.
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';

const FOREIGN = 'http://evil.example.com';

const ROUTES: [method: string, path: string][] = [
  ['GET', '/'],
  ['GET', '/health'],
  ['POST', '/mcp'],
  ['GET', '/mcp'],
  ['OPTIONS', '/mcp'],
  ['GET', '/.well-known/oauth-protected-resource/mcp'],
  ['GET', '/.well-known/oauth-protected-resource'],
  ['GET', '/.well-known/oauth-authorization-server'],
  ['POST', '/oauth/token'],
  ['POST', '/oauth/register'],
  ['GET', '/authorize'],
  ['POST', '/authorize'],
  ['GET', '/agent'],
  ['POST', '/agent/token'],
  ['POST', '/pair/device'],
  ['POST', '/pair/token'],
  ['POST', '/pair/cancel'],
  ['GET', '/pair'],
  ['POST', '/pair/approve'],
  ['GET', '/admin/tokens'],
  ['POST', '/admin/devices'],
  ['GET', '/signin'],
  ['POST', '/signin'],
  ['POST', '/signout'],
  ['GET', '/dashboard'],
  ['POST', '/dashboard/tokens'],
  ['GET', '/no/such/path'],
];

function at(origin: string, method: string, path: string, headers: Record<string, string> = {}): Promise<Response> {
  const body = method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? undefined : '{}';
  return exports.default.fetch(new Request(`${origin}${path}`, { method, headers: { 'Content-Type': 'application/json', ...headers }, body, redirect: 'manual' }));
}

describe('a foreign Host over plain HTTP', () => {
  it.each(ROUTES)('%s %s answers 421 naming the host, without a stack trace', async (method, path) => {
    const res = await at(FOREIGN, method, path, { Origin: FOREIGN });
    expect(res.status).toBe(421);
    const text = await res.text();
    expect(text).toContain('evil.example.com');
    expect(text).not.toMatch(/\bat .*\.js:\d+/);
    expect(text).not.toContain('TypeError');
  });

  it('the conformance probe (initialize with Host and Origin both foreign) gets a JSON-RPC error', async () => {
    const res = await at(FOREIGN, 'POST', '/mcp', { Origin: FOREIGN, Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25' });
    expect(res.status).toBe(421);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
  });

  it('a browser gets a page, an API client JSON', async () => {
    const browser = await at(FOREIGN, 'GET', '/dashboard', { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
    expect(browser.headers.get('Content-Type')).toContain('text/html');
    expect(browser.headers.get('Content-Security-Policy')).toContain("frame-ancestors 'none'");
    const api = await at(FOREIGN, 'GET', '/admin/tokens');
    expect(await api.json()).toMatchObject({ error: { code: 'MISDIRECTED_REQUEST' } });
  });

  it.each(['http://localhost.evil.example', 'http://127.0.0.1.nip.io', 'http://10.0.0.5:8787', 'http://[::ffff:7f00:1]'])('%s is foreign too', async (origin) => {
    expect((await at(origin, 'GET', '/health')).status).toBe(421);
  });
});

describe('hosts that are served', () => {
  it.each(['http://127.0.0.1:8787', 'http://localhost:8787', 'http://[::1]:8787', 'http://127.0.0.2', 'https://evil.example.com', 'https://relay.test'])('%s/health answers 200', async (origin) => {
    const res = await at(origin, 'GET', '/health');
    expect(res.status).toBe(200);
  });

  it('the conformance probe at the loopback host it listens on is not refused for its Host', async () => {
    const res = await at('http://127.0.0.1:8787', 'POST', '/mcp', { Origin: 'http://127.0.0.1:8787', Accept: 'application/json, text/event-stream' });
    // No token: the OAuth challenge, not a Host refusal.
    expect(res.status).toBe(401);
  });
});
