// The HTTP edge of /mcp and /health: methods, Origin, body cap, bearer authentication (RFC 6750),
// JSON and JSON-RPC errors, CORS. Requests go to the real Worker in workerd.
import { env, exports } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { LIMITS } from '../../protocol/index.ts';
import { VERIFIED_TOKEN_TTL_MS } from '../../worker/auth/verified-tokens.ts';
import { admin, deviceJwt, mcpHeaders, mint, postMcp, relay, uniqueName } from './helpers.ts';

const listTools = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

let access: string;
beforeAll(async () => {
  access = (await mint({ kind: 'access', name: uniqueName('http') })).token;
});

describe('/health', () => {
  it('answers 200 {ok, name}', async () => {
    const res = await relay('/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, name: 'vimrelay' });
  });
});

describe('/mcp methods', () => {
  it.each(['GET', 'DELETE', 'PUT'])('%s answers 405 with Allow: POST', async (method) => {
    const res = await relay('/mcp', { method, headers: { Authorization: `Bearer ${access}` } });
    expect(res.status).toBe(405);
    expect(res.headers.get('Allow')).toBe('POST');
    expect(((await res.json()) as { jsonrpc: string }).jsonrpc).toBe('2.0');
  });

  it('POST with a valid token answers tools/list without a session id', async () => {
    const res = await postMcp(access, listTools);
    expect(res.status).toBe(200);
    expect(res.headers.get('Mcp-Session-Id')).toBeNull();
    const body = (await res.json()) as { result: { tools: unknown[] } };
    expect(body.result.tools.length).toBeGreaterThan(0);
  });
});

// The challenge points at the protected resource metadata (RFC 9728 §5.1) and names the scopes an
// ordinary session needs, which a client asks for first (MCP 2025-11-25 "Scope Selection Strategy").
const METADATA = 'resource_metadata="https://relay.test/.well-known/oauth-protected-resource/mcp"';

describe('/mcp authentication (RFC 6750)', () => {
  it('no Authorization: 401 with a bare Bearer challenge', async () => {
    const res = await postMcp(null, listTools);
    expect(res.status).toBe(401);
    expect(res.headers.get('WWW-Authenticate')).toBe(`Bearer realm="OAuth", ${METADATA}, scope="read write"`);
  });

  it('a non-bearer scheme counts as missing', async () => {
    const res = await postMcp(null, listTools, { Authorization: `Basic ${btoa('a:b')}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('WWW-Authenticate')).toBe(`Bearer realm="OAuth", ${METADATA}, scope="read write"`);
  });

  it('garbage token: 401 invalid_token', async () => {
    const res = await postMcp('not.a.jwt', listTools);
    expect(res.status).toBe(401);
    expect(res.headers.get('WWW-Authenticate')).toBe(
      `Bearer realm="OAuth", ${METADATA}, error="invalid_token", error_description="The token is not a well-formed vimrelay JWT.", scope="read write"`,
    );
  });

  it('a token with a tampered payload fails the signature check', async () => {
    const [h, p, s] = access.split('.') as [string, string, string];
    const claims = JSON.parse(atob(p.replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;
    expect(claims.scope).toBe('read write open save exec terminal');
    const forged = btoa(JSON.stringify({ ...claims, exp: (claims.exp as number) + 3600 }))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
    const res = await postMcp(`${h}.${forged}.${s}`, listTools);
    expect(res.status).toBe(401);
    expect(res.headers.get('WWW-Authenticate')).toContain('error="invalid_token", error_description="The token signature does not verify."');
  });

  it('a device token is the wrong kind for /mcp', async () => {
    const device = await deviceJwt(uniqueName('wrongkind'));
    const res = await postMcp(device.token, listTools);
    expect(res.status).toBe(401);
    expect(res.headers.get('WWW-Authenticate')).toContain('error_description="The token is of the wrong type for this endpoint."');
  });

  it('a token issued for another relay origin is refused', async () => {
    // Same Hub and key, but minted through another host name: its iss and aud name that host.
    const other = await mintAt('https://other-relay.test');
    expect((await exports.default.fetch(new Request('https://other-relay.test/mcp', { method: 'POST', headers: mcpHeaders(other), body: JSON.stringify(listTools) }))).status).toBe(200);
    const refused = await postMcp(other, listTools);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('WWW-Authenticate')).toContain('error_description="The token was issued by another relay."');
  });

  it('a revoked token is refused', async () => {
    const minted = await mint({ kind: 'access', name: uniqueName('revoked') });
    expect((await postMcp(minted.token, listTools)).status).toBe(200);
    expect((await admin('DELETE', `/tokens/${minted.jti}`)).status).toBe(200);
    const res = await postMcp(minted.token, listTools);
    expect(res.status).toBe(401);
    expect(res.headers.get('WWW-Authenticate')).toContain('error_description="The token has been revoked."');
  });

  it('an expired token is refused', async () => {
    const minted = await mint({ kind: 'access', name: uniqueName('expiring'), ttl_seconds: 2 });
    // Good for its 2 s (its record ends exactly then), refused after.
    expect((await postMcp(minted.token, listTools)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    const res = await postMcp(minted.token, listTools);
    expect(res.status).toBe(401);
    expect(res.headers.get('WWW-Authenticate')).toContain('error_description="The token has expired."');
  });
});

// The isolate keeps a verified token's verdict for a moment (worker/auth/verified-tokens.ts); a
// revocation made elsewhere (another isolate: here, at the Hub itself, not through this isolate's
// routes) still stops the token's next tool call, and everything after it.
describe('/mcp: a verified token kept by the isolate', () => {
  const listEditors = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_editors', arguments: {} } };
  const hub = () => env.HUB.get(env.HUB.idFromName('owner'));
  afterEach(() => vi.useRealTimers());

  it('a token revoked elsewhere gets 401 at its next tool call, and on every request after it', async () => {
    const minted = await mint({ kind: 'access', name: uniqueName('kept') });
    expect((await postMcp(minted.token, listTools)).status).toBe(200);
    expect(await hub().revokeToken(minted.jti)).toMatchObject({ jti: minted.jti });
    // Within the kept verdict's lifetime a request that reaches no editor is still answered...
    expect((await postMcp(minted.token, listTools)).status).toBe(200);
    // ...but a tool call is checked by the Hub: refused as a fresh verification would refuse it.
    const call = await postMcp(minted.token, listEditors);
    expect(call.status).toBe(401);
    expect(await call.json()).toEqual({ error: 'invalid_token', error_description: 'The token has been revoked.' });
    expect(call.headers.get('WWW-Authenticate')).toContain('error="invalid_token"');
    expect(call.headers.get('WWW-Authenticate')).toContain('resource_metadata=');
    expect((await postMcp(minted.token, listTools)).status).toBe(401);
  });

  it('keeps a verdict no longer than VERIFIED_TOKEN_TTL_MS', async () => {
    const minted = await mint({ kind: 'access', name: uniqueName('ttl') });
    expect((await postMcp(minted.token, listTools)).status).toBe(200);
    await hub().revokeToken(minted.jti);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + VERIFIED_TOKEN_TTL_MS + 1_000);
    const res = await postMcp(minted.token, listTools);
    expect(res.status).toBe(401);
    expect(res.headers.get('WWW-Authenticate')).toContain('error_description="The token has been revoked."');
  });

  it('a valid token keeps working through its tool calls', async () => {
    const minted = await mint({ kind: 'access', name: uniqueName('good') });
    for (let i = 0; i < 3; i++) {
      const res = await postMcp(minted.token, listEditors);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { result?: unknown }).result).toBeDefined();
    }
  });
});

/** Mints an access token through the admin API reached at another origin. */
async function mintAt(origin: string): Promise<string> {
  const res = await exports.default.fetch(
    new Request(`${origin}/admin/tokens`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${env.OWNER_SECRET}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ kind: 'access', name: uniqueName('foreign') }),
    }),
  );
  expect(res.status).toBe(201);
  return ((await res.json()) as { token: string }).token;
}

describe('/mcp Origin (DNS rebinding protection)', () => {
  it('refuses a foreign Origin with 403, before authentication', async () => {
    const res = await postMcp(null, listTools, { Origin: 'https://evil.example' });
    expect(res.status).toBe(403);
  });

  it.each(['https://relay.test', 'http://localhost:6274', 'http://127.0.0.1:3000', 'http://localhost'])('allows %s', async (origin) => {
    const res = await postMcp(access, listTools, { Origin: origin });
    expect(res.status).toBe(200);
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe(origin);
  });

  it('refuses https://localhost look-alikes and other ports of other hosts', async () => {
    for (const origin of ['https://localhost.evil.example', 'http://localhost.evil.example:80', 'https://relay.test.evil.example']) {
      expect((await postMcp(access, listTools, { Origin: origin })).status).toBe(403);
    }
  });

  it('answers a CORS preflight and exposes WWW-Authenticate on a 401', async () => {
    const preflight = await relay('/mcp', {
      method: 'OPTIONS',
      headers: { Origin: 'http://localhost:6274', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('Access-Control-Allow-Origin')).toBe('http://localhost:6274');
    expect(preflight.headers.get('Access-Control-Allow-Headers')?.toLowerCase()).toContain('authorization');

    const res = await postMcp(null, listTools, { Origin: 'http://localhost:6274' });
    expect(res.status).toBe(401);
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('http://localhost:6274');
    expect(res.headers.get('Access-Control-Expose-Headers')).toContain('WWW-Authenticate');
  });
});

describe('/mcp body', () => {
  it('a declared Content-Length over the cap is 413 with a JSON-RPC error, even before auth', async () => {
    const big = 'x'.repeat(LIMITS.maxMcpBodyBytes + 1);
    for (const token of [access, null]) {
      const res = await postMcp(token, big);
      expect(res.status).toBe(413);
      const body = (await res.json()) as { jsonrpc: string; error: { code: number; message: string } };
      expect(body.jsonrpc).toBe('2.0');
      expect(body.error.message).toMatch(/Payload Too Large/);
    }
  });

  it('a streamed body without Content-Length is cut off at the cap', async () => {
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > LIMITS.maxMcpBodyBytes + chunk.byteLength) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const res = await relay('/mcp', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${access}` },
      body: stream,
    });
    expect(res.status).toBe(413);
  });

  it('a body just under the cap is read (and then judged as JSON)', async () => {
    const res = await postMcp(access, ' '.repeat(LIMITS.maxMcpBodyBytes - 2) + '{}');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32600);
  });

  it('malformed JSON is a JSON-RPC parse error (-32700), HTTP 400', async () => {
    const res = await postMcp(access, '{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(res.status).toBe(400);
    const body = (await res.json()) as { jsonrpc: string; id: null; error: { code: number; message: string } };
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect(body.error.message).toMatch(/Parse error/);
  });

  it('JSON that is not JSON-RPC is -32600 Invalid Request, HTTP 400', async () => {
    for (const bad of [{ hello: 'world' }, [], 42]) {
      const res = await postMcp(access, bad);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32600);
    }
  });
});
