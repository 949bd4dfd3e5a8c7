// A stolen signing key must not widen a personal access token: the attacker reads the Hub's private
// key (here straight from the real Durable Object's SQLite, as a leaked `.wrangler/state` would
// give it), signs a JWT with a read-only token's jti but every scope, another client id and a later
// expiry, and presents it. Only what was recorded for that jti when it was minted is granted.
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { importJWK, SignJWT, type JWK } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ALL_SCOPES } from '../../protocol/index.ts';
import { hubFor } from '../../worker/account.ts';
import type { Hub } from '../../worker/hub/hub.ts';
import { admin, mint, postMcp, uniqueName } from './helpers.ts';

/** The Hub's signing key as an attacker who read its storage holds it. */
async function stolenKey(): Promise<{ kid: string; key: CryptoKey }> {
  const jwk = await runInDurableObject(hubFor(env), (_hub: Hub, state) => {
    const row = state.storage.sql.exec<{ private_jwk: string }>('SELECT private_jwk FROM signing_keys ORDER BY created_at DESC LIMIT 1').one();
    return JSON.parse(row.private_jwk) as JWK & { kid: string };
  });
  return { kid: jwk.kid, key: (await importJWK(jwk, 'ES256')) as CryptoKey };
}

/** A JWT signed with the stolen key: `token`'s claims with `changes` on top. */
async function forge(token: string, changes: Record<string, unknown>): Promise<string> {
  const claims = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)))) as Record<string, unknown>;
  const { kid, key } = await stolenKey();
  return new SignJWT({ ...claims, ...changes }).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid }).sign(key);
}

async function verified(token: string): Promise<{ valid: boolean; reason?: string; claims?: Record<string, unknown> }> {
  const res = await admin('POST', '/tokens/verify', { kind: 'access', token });
  return (await res.json()) as { valid: boolean; reason?: string; claims?: Record<string, unknown> };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('a token forged with the stolen signing key under a read-only jti', () => {
  it('is granted read and nothing more, under its recorded client id', async () => {
    const reader = await mint({ kind: 'access', name: uniqueName('reader-'), scopes: ['read'] });
    const forged = await forge(reader.token, { scope: ALL_SCOPES.join(' '), client_id: 'pat:admin' });
    const verdict = await verified(forged);
    expect(verdict.valid).toBe(true);
    expect(verdict.claims).toMatchObject({ jti: reader.jti, scope: 'read', client_id: `pat:${reader.name}` });
    // At /mcp: a save is outside the recorded scopes, so 403 insufficient_scope before any routing.
    const res = await postMcp(forged, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'save_buffer', arguments: { buffer: 1 } } });
    expect(res.status).toBe(403);
    expect(res.headers.get('WWW-Authenticate')).toContain('error="insufficient_scope", scope="read write save"');
  });

  it('gains no time: past the recorded expiry it is refused whatever its exp says', async () => {
    const short = await mint({ kind: 'access', name: uniqueName('short-'), scopes: ['read'], ttl_seconds: 60 });
    const forged = await forge(short.token, { exp: Math.floor(Date.now() / 1000) + 365 * 86_400 });
    expect((await verified(forged)).valid).toBe(true);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 120_000);
    expect(await verified(forged)).toMatchObject({ valid: false, reason: 'expired' });
    const res = await postMcp(forged, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(res.status).toBe(401);
    expect(res.headers.get('WWW-Authenticate')).toContain('error_description="The token has expired."');
  });

  it('the genuine token keeps exactly its scopes', async () => {
    const both = await mint({ kind: 'access', name: uniqueName('both-'), scopes: ['read', 'exec'] });
    expect((await verified(both.token)).claims).toMatchObject({ scope: 'read exec' });
  });
});

describe('a token minted with ttl_seconds', () => {
  it('is good for all of them, minted just before a second turns, and refused after', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const mintedAt = Math.floor(Date.now() / 1000) * 1000 + 999;
    vi.setSystemTime(mintedAt);
    const minted = await mint({ kind: 'access', name: uniqueName('second-'), ttl_seconds: 1 });
    // Its expiry rounded down to the second, it had 1 ms left.
    vi.setSystemTime(mintedAt + 900);
    expect((await verified(minted.token)).valid).toBe(true);
    expect((await postMcp(minted.token, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(200);
    vi.setSystemTime(mintedAt + 2_001);
    expect(await verified(minted.token)).toMatchObject({ valid: false, reason: 'expired' });
  });
});
