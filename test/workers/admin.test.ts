// /admin/*: owner-secret authentication, and the token API (mint, list, verify, revoke) with its
// body validation. Against the real Worker and Hub storage.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../protocol/index.ts';
import { admin, agentToken, deviceJwt, enrollDevice, mint, relay, uniqueName, type Minted } from './helpers.ts';

const DAY_MS = 24 * 3600 * 1000;

/** The claims segment of a JWT. */
function payloadOf(token: string): Record<string, unknown> {
  const segment = token.split('.')[1] ?? '';
  return JSON.parse(atob(segment.replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;
}

function headerOf(token: string): Record<string, unknown> {
  const segment = token.split('.')[0] ?? '';
  return JSON.parse(atob(segment.replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;
}

describe('owner authentication', () => {
  it('no credentials: 401 with a bare challenge', async () => {
    const res = await admin('GET', '/tokens', undefined, null);
    expect(res.status).toBe(401);
    expect(res.headers.get('WWW-Authenticate')).toBe('Bearer realm="vimrelay"');
  });

  it('a wrong secret (shorter, longer, one character off) is 401 invalid_token', async () => {
    const secret = env.OWNER_SECRET ?? '';
    for (const wrong of [secret.slice(0, -1), `${secret}x`, `${secret.slice(0, -1)}X`, 'x']) {
      const res = await admin('GET', '/tokens', undefined, wrong);
      expect(res.status).toBe(401);
      expect(res.headers.get('WWW-Authenticate')).toContain('error="invalid_token"');
      expect(await res.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: 'The owner secret does not match.' } });
    }
  });

  it('an access token is not the owner secret', async () => {
    const minted = await mint({ kind: 'access', name: uniqueName('notowner') });
    expect((await admin('GET', '/tokens', undefined, minted.token)).status).toBe(401);
  });

  it('the right secret passes; unknown admin paths are 404 JSON', async () => {
    expect((await admin('GET', '/tokens')).status).toBe(200);
    const res = await admin('GET', '/nothing-here');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });
});

describe('POST /admin/tokens', () => {
  it('mints an access token with every scope by default, for 90 days', async () => {
    const before = Date.now();
    const minted = await mint({ kind: 'access', name: 'laptop-claude' });
    expect(minted).toMatchObject({ kind: 'access', name: 'laptop-claude', scopes: [...ALL_SCOPES], device: null });
    expect(Object.keys(minted).sort()).toEqual(['device', 'expires_at', 'jti', 'kind', 'name', 'scopes', 'token']);
    const expires = Date.parse(minted.expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + 90 * DAY_MS - 2000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 90 * DAY_MS + 1000);

    expect(headerOf(minted.token)).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    const claims = payloadOf(minted.token);
    expect(claims).toMatchObject({
      iss: 'https://relay.test',
      aud: 'https://relay.test/mcp',
      sub: 'owner',
      jti: minted.jti,
      scope: ALL_SCOPES.join(' '),
      client_id: 'pat:laptop-claude',
    });
    expect(claims.exp).toBe(Math.floor(expires / 1000));
  });

  it('one signing key: every token names the same kid', async () => {
    const first = await mint({ kind: 'access', name: uniqueName('kid') });
    const device = await deviceJwt(uniqueName('kid-dev'));
    expect(headerOf(device.token).kid).toBe(headerOf(first.token).kid);
  });

  it('honours scopes (deduplicated) and ttl_seconds', async () => {
    const minted = await mint({ kind: 'access', name: uniqueName('scoped'), scopes: ['read', 'write', 'read'], ttl_seconds: 600 });
    expect(minted.scopes).toEqual(['read', 'write']);
    expect(payloadOf(minted.token).scope).toBe('read write');
    const claims = payloadOf(minted.token);
    expect((claims.exp as number) - (claims.iat as number)).toBe(600);
  });

  it.each([
    ['unknown kind', { kind: 'admin', name: 'x' }],
    ['empty name', { kind: 'access', name: '' }],
    ['name too long', { kind: 'access', name: 'n'.repeat(65) }],
    ['name with a slash', { kind: 'access', name: 'a/b' }],
    ['name with a control character', { kind: 'access', name: 'a\u0007b' }],
    ['unknown scope', { kind: 'access', name: 'x', scopes: ['read', 'root'] }],
    ['empty scopes', { kind: 'access', name: 'x', scopes: [] }],
    ['a device (created at /admin/devices, never minted here)', { kind: 'device', name: 'x' }],
    ['ttl of zero', { kind: 'access', name: 'x', ttl_seconds: 0 }],
    ['ttl over a year', { kind: 'access', name: 'x', ttl_seconds: 31_536_001 }],
    ['fractional ttl', { kind: 'access', name: 'x', ttl_seconds: 1.5 }],
    ['unknown field', { kind: 'access', name: 'x', admin: true }],
  ])('refuses %s with 400 INVALID_REQUEST', async (_label, body) => {
    const res = await admin('POST', '/tokens', body);
    expect(res.status).toBe(400);
    const json = (await res.json()) as { error: { code: string; message: string } };
    expect(json.error.code).toBe('INVALID_REQUEST');
    expect(json.error.message.length).toBeGreaterThan(0);
  });

  it('refuses a body that is not JSON with 400', async () => {
    const res = await relay('/admin/tokens', {
      method: 'POST',
      headers: { Authorization: `Bearer ${env.OWNER_SECRET}`, 'Content-Type': 'application/json' },
      body: '{kind: access',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('INVALID_REQUEST');
  });

  it('the longest ttl is accepted', async () => {
    const minted = await mint({ kind: 'access', name: uniqueName('long'), ttl_seconds: 31_536_000 });
    const claims = payloadOf(minted.token);
    expect((claims.exp as number) - (claims.iat as number)).toBe(31_536_000);
  });
});

describe('GET /admin/tokens', () => {
  it('lists tokens with their status, never the token text', async () => {
    const a = await mint({ kind: 'access', name: uniqueName('listed') });
    expect((await admin('DELETE', `/tokens/${a.jti}`)).status).toBe(200);

    const res = await admin('GET', '/tokens');
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(a.token);
    const { tokens } = JSON.parse(text) as { tokens: Record<string, unknown>[] };
    const byJti = new Map(tokens.map((t) => [t.jti, t]));
    expect(byJti.get(a.jti)).toMatchObject({ kind: 'access', name: a.name, status: 'revoked', revoked_at: expect.any(String), device: null });
    expect(Object.keys(byJti.get(a.jti) ?? {}).sort()).toEqual(['created_at', 'device', 'expires_at', 'jti', 'kind', 'name', 'revoked_at', 'scopes', 'status']);
  });
});

describe('POST /admin/tokens/verify', () => {
  async function verify(token: string, kind: string): Promise<{ valid: boolean; reason?: string; claims?: Record<string, unknown> }> {
    const res = await admin('POST', '/tokens/verify', { token, kind });
    expect(res.status).toBe(200);
    return (await res.json()) as { valid: boolean; reason?: string; claims?: Record<string, unknown> };
  }

  it('valid tokens come back with their claims', async () => {
    const access = await mint({ kind: 'access', name: uniqueName('verify') });
    const result = await verify(access.token, 'access');
    expect(result.valid).toBe(true);
    expect(result.claims).toMatchObject({ jti: access.jti, sub: 'owner', scope: ALL_SCOPES.join(' ') });
    expect(result.reason).toBeUndefined();

    const device = await deviceJwt(uniqueName('verify-dev'));
    expect(await verify(device.token, 'device')).toMatchObject({ valid: true, claims: { sub: device.device.id } });
  });

  it('says why a token is refused', async () => {
    const access: Minted = await mint({ kind: 'access', name: uniqueName('verify-bad') });
    expect(await verify(access.token, 'device')).toEqual({ valid: false, reason: 'wrong_type' });
    expect(await verify('garbage', 'access')).toEqual({ valid: false, reason: 'malformed' });
    await admin('DELETE', `/tokens/${access.jti}`);
    expect(await verify(access.token, 'access')).toEqual({ valid: false, reason: 'revoked' });
  });

  it('refuses a bad body with 400', async () => {
    expect((await admin('POST', '/tokens/verify', { token: 'x' })).status).toBe(400);
    expect((await admin('POST', '/tokens/verify', { token: '', kind: 'access' })).status).toBe(400);
  });
});

describe('DELETE /admin/tokens/:jti', () => {
  it('revokes once and is idempotent; unknown jti is 404', async () => {
    const minted = await mint({ kind: 'access', name: uniqueName('revoke') });
    const first = await admin('DELETE', `/tokens/${minted.jti}`);
    expect(first.status).toBe(200);
    const body = (await first.json()) as { jti: string; kind: string; revoked_at: string };
    expect(body).toEqual({ jti: minted.jti, kind: 'access', revoked_at: expect.any(String) });
    const again = (await (await admin('DELETE', `/tokens/${minted.jti}`)).json()) as { revoked_at: string };
    expect(again.revoked_at).toBe(body.revoked_at);

    const missing = await admin('DELETE', '/tokens/no-such-jti');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });
});

describe('/admin/devices', () => {
  it('creates a device with a unique name and a credential shown once, and trades it for a device JWT', async () => {
    const first = await enrollDevice('workstation', 'ws.example');
    const second = await enrollDevice('workstation');
    expect([first.device.name, second.device.name]).toEqual(['workstation', 'workstation-2']);
    expect(first.credential).toMatch(/^vrd_[A-Za-z0-9_-]{43}$/);

    const res = await agentToken(first.credential);
    expect(res.status).toBe(200);
    expect(res.headers.get('Cache-Control')).toBe('no-store');
    const body = (await res.json()) as { token: string; token_type: string; expires_in: number; device: unknown };
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 600, device: first.device });
    expect(headerOf(body.token)).toMatchObject({ alg: 'ES256', typ: 'vimrelay-device+jwt' });
    const claims = payloadOf(body.token);
    expect(claims).toMatchObject({ iss: 'https://relay.test', aud: 'https://relay.test/agent', sub: first.device.id });
    expect((claims.exp as number) - (claims.iat as number)).toBe(600);
    expect(claims.scope).toBeUndefined();

    const listed = await admin('GET', '/devices');
    const text = await listed.text();
    expect(text).not.toContain(first.credential);
    const { devices } = JSON.parse(text) as { devices: Record<string, unknown>[] };
    expect(devices.find((d) => d.id === first.device.id)).toEqual({
      id: first.device.id,
      name: 'workstation',
      hostname: 'ws.example',
      created_at: expect.any(String),
      last_seen_at: null,
      online: false,
      revoked_at: null,
      revoked: false,
      last_refused_at: null,
      last_refused_from: null,
    });
  });

  it('a wrong, missing or revoked credential gets 401 at /agent/token', async () => {
    const enrolled = await enrollDevice(uniqueName('revokee'));
    expect((await agentToken(null)).status).toBe(401);
    expect((await agentToken(`${enrolled.credential}x`)).status).toBe(401);
    expect((await agentToken('vrd_guess')).status).toBe(401);
    const revoked = await admin('DELETE', `/devices/${enrolled.device.id}`);
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toMatchObject({ device: enrolled.device, revoked_at: expect.any(String), disconnected: 0 });
    const refused = await agentToken(enrolled.credential);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('WWW-Authenticate')).toContain('error="invalid_token"');
    const { devices } = (await (await admin('GET', '/devices')).json()) as { devices: Record<string, unknown>[] };
    expect(devices.find((d) => d.id === enrolled.device.id)).toMatchObject({ revoked: true, revoked_at: expect.any(String) });
    expect((await admin('DELETE', '/devices/no-such-id')).status).toBe(404);
  });

  it('refuses bad names and needs the owner secret', async () => {
    expect((await admin('POST', '/devices', { name: 'a/b' })).status).toBe(400);
    expect((await admin('POST', '/devices', { name: 'x', hostname: 'h\u0000' })).status).toBe(400);
    expect((await admin('POST', '/devices', { name: 'x', extra: 1 })).status).toBe(400);
    expect((await admin('POST', '/devices', { name: 'x' }, 'wrong secret')).status).toBe(401);
    expect((await admin('GET', '/devices', undefined, null)).status).toBe(401);
  });
});
