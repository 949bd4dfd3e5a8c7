// Pure units of worker/auth: claim and header checks (each of alg, typ, iss, aud, exp, ...), the
// signature check with real keys, bearer parsing and RFC 6750 challenges, the owner-secret compare.
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { describe, expect, it } from 'vitest';
import { bearerToken, challenge } from '../../protocol/http/bearer.ts';
import { audienceFor, checkClaims, checkHeader, CLOCK_TOLERANCE_S, describe as describeRejection, type TokenClaims } from '../../worker/auth/claims.ts';
import { signToken, verifyToken } from '../../worker/auth/jwt.ts';
import type { SigningKey } from '../../worker/auth/keys.ts';
import { ownerSecretMatches } from '../../worker/auth/owner.ts';

const ORIGIN = 'https://relay.example';
const NOW_MS = Date.UTC(2026, 0, 15, 12, 0, 0);
const NOW_S = NOW_MS / 1000;

function accessClaims(overrides: Partial<Record<keyof TokenClaims | 'nbf', unknown>> = {}): Record<string, unknown> {
  return {
    iss: ORIGIN,
    aud: `${ORIGIN}/mcp`,
    sub: 'owner',
    exp: NOW_S + 3600,
    iat: NOW_S - 10,
    jti: 'jti-1',
    scope: 'read write',
    client_id: 'pat:laptop',
    ...overrides,
  };
}

describe('checkHeader', () => {
  it('accepts ES256 with the kind\'s typ, case-insensitively and with application/', () => {
    expect(checkHeader({ alg: 'ES256', typ: 'at+jwt' }, 'access').ok).toBe(true);
    expect(checkHeader({ alg: 'ES256', typ: 'application/AT+JWT' }, 'access').ok).toBe(true);
    expect(checkHeader({ alg: 'ES256', typ: 'vimrelay-device+jwt' }, 'device').ok).toBe(true);
  });

  it.each([['none'], ['HS256'], ['RS256'], ['ES384'], [undefined]])('refuses alg %s', (alg) => {
    expect(checkHeader({ alg, typ: 'at+jwt' }, 'access')).toEqual({ ok: false, reason: 'unsupported_alg' });
  });

  it('refuses a missing or foreign typ, and one kind\'s typ for the other', () => {
    expect(checkHeader({ alg: 'ES256' }, 'access')).toEqual({ ok: false, reason: 'wrong_type' });
    expect(checkHeader({ alg: 'ES256', typ: 'JWT' }, 'access')).toEqual({ ok: false, reason: 'wrong_type' });
    expect(checkHeader({ alg: 'ES256', typ: 'vimrelay-device+jwt' }, 'access')).toEqual({ ok: false, reason: 'wrong_type' });
    expect(checkHeader({ alg: 'ES256', typ: 'at+jwt' }, 'device')).toEqual({ ok: false, reason: 'wrong_type' });
  });
});

describe('checkClaims', () => {
  const expectAccess = { kind: 'access' as const, origin: ORIGIN };

  it('accepts valid access claims and returns them', () => {
    const result = checkClaims(accessClaims(), expectAccess, NOW_MS);
    expect(result).toEqual({ ok: true, value: accessClaims() });
  });

  it('iss must be the relay origin exactly', () => {
    expect(checkClaims(accessClaims({ iss: 'https://other.example' }), expectAccess, NOW_MS)).toEqual({ ok: false, reason: 'wrong_issuer' });
    expect(checkClaims(accessClaims({ iss: `${ORIGIN}/` }), expectAccess, NOW_MS)).toEqual({ ok: false, reason: 'wrong_issuer' });
  });

  it('aud must name this endpoint (a string, or an array containing it)', () => {
    expect(checkClaims(accessClaims({ aud: `${ORIGIN}/agent` }), expectAccess, NOW_MS)).toEqual({ ok: false, reason: 'wrong_audience' });
    expect(checkClaims(accessClaims({ aud: 'https://other.example/mcp' }), expectAccess, NOW_MS)).toEqual({ ok: false, reason: 'wrong_audience' });
    expect(checkClaims(accessClaims({ aud: ['x', `${ORIGIN}/mcp`] }), expectAccess, NOW_MS).ok).toBe(true);
    expect(audienceFor('device', ORIGIN)).toBe(`${ORIGIN}/agent`);
  });

  it('exp must be in the future, within the clock tolerance', () => {
    const exp = NOW_S;
    expect(checkClaims(accessClaims({ exp }), expectAccess, NOW_MS).ok).toBe(true);
    expect(checkClaims(accessClaims({ exp }), expectAccess, NOW_MS + CLOCK_TOLERANCE_S * 1000 - 1).ok).toBe(true);
    expect(checkClaims(accessClaims({ exp }), expectAccess, NOW_MS + CLOCK_TOLERANCE_S * 1000)).toEqual({ ok: false, reason: 'expired' });
    expect(checkClaims(accessClaims({ exp: NOW_S - 3600 }), expectAccess, NOW_MS)).toEqual({ ok: false, reason: 'expired' });
  });

  it('iat and nbf must not be in the future', () => {
    expect(checkClaims(accessClaims({ iat: NOW_S + 60 }), expectAccess, NOW_MS)).toEqual({ ok: false, reason: 'not_yet_valid' });
    expect(checkClaims(accessClaims({ nbf: NOW_S + 60 }), expectAccess, NOW_MS)).toEqual({ ok: false, reason: 'not_yet_valid' });
    expect(checkClaims(accessClaims({ nbf: NOW_S - 60 }), expectAccess, NOW_MS).ok).toBe(true);
  });

  it.each(['sub', 'jti', 'exp', 'iat', 'client_id', 'scope'] as const)('an access token without %s is malformed', (claim) => {
    expect(checkClaims(accessClaims({ [claim]: undefined }), expectAccess, NOW_MS)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('device claims need no scope or client_id', () => {
    const device = { iss: ORIGIN, aud: `${ORIGIN}/agent`, sub: 'dev-1', exp: NOW_S + 60, iat: NOW_S, jti: 'j' };
    expect(checkClaims(device, { kind: 'device', origin: ORIGIN }, NOW_MS)).toEqual({ ok: true, value: device });
  });
});

describe('signToken / verifyToken (jose, ES256)', () => {
  async function key(): Promise<SigningKey> {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    return { kid: 'k1', privateKey, publicKey };
  }
  const claims = accessClaims() as unknown as TokenClaims;

  it('round-trips a signed token', async () => {
    const k = await key();
    const token = await signToken('access', claims, k);
    const header = JSON.parse(atob(token.split('.')[0] ?? '')) as Record<string, unknown>;
    expect(header).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' });
    expect(await verifyToken(token, { kind: 'access', origin: ORIGIN }, k, NOW_MS)).toEqual({ ok: true, value: claims });
  });

  it('refuses a token signed by another key', async () => {
    const token = await signToken('access', claims, { ...(await key()), kid: 'k1' });
    expect(await verifyToken(token, { kind: 'access', origin: ORIGIN }, await key(), NOW_MS)).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('refuses alg none (unsigned) and HS256 tokens before touching a key', async () => {
    const b64 = (o: unknown): string => btoa(JSON.stringify(o)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
    const unsigned = `${b64({ alg: 'none', typ: 'at+jwt' })}.${b64(claims)}.`;
    expect(await verifyToken(unsigned, { kind: 'access', origin: ORIGIN }, await key(), NOW_MS)).toEqual({ ok: false, reason: 'unsupported_alg' });
    // HS256 keyed with the public key's bytes: the classic algorithm-confusion attack (RFC 8725 §2.1).
    const k = await key();
    const secret = new TextEncoder().encode(JSON.stringify(await exportJWK(k.publicKey)));
    const hs = await new SignJWT(claims as unknown as JWTPayload).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' }).sign(secret);
    expect(await verifyToken(hs, { kind: 'access', origin: ORIGIN }, k, NOW_MS)).toEqual({ ok: false, reason: 'unsupported_alg' });
  });

  it('checks claims after the signature, with the given clock', async () => {
    const k = await key();
    const token = await signToken('access', claims, k);
    expect(await verifyToken(token, { kind: 'access', origin: ORIGIN }, k, NOW_MS + 2 * 3600 * 1000)).toEqual({ ok: false, reason: 'expired' });
    expect(await verifyToken(token, { kind: 'device', origin: ORIGIN }, k, NOW_MS)).toEqual({ ok: false, reason: 'wrong_type' });
    expect(await verifyToken('a.b', { kind: 'access', origin: ORIGIN }, k, NOW_MS)).toEqual({ ok: false, reason: 'malformed' });
  });
});

describe('bearer (RFC 6750)', () => {
  it('reads a Bearer credential, scheme case-insensitively', () => {
    expect(bearerToken('Bearer abc.DEF-_~+/=')).toBe('abc.DEF-_~+/=');
    expect(bearerToken('bearer xyz')).toBe('xyz');
    expect(bearerToken('Bearer  xyz ')).toBe('xyz');
  });

  it.each([[null], [''], ['Bearer'], ['Bearer '], ['Basic abc'], ['Bearer a b'], ['Bearer "quoted"'], ['Bearerabc']])('refuses %j', (header) => {
    expect(bearerToken(header)).toBeNull();
  });

  it('builds the challenge without an error for missing credentials, with one otherwise', () => {
    expect(challenge()).toBe('Bearer realm="vimrelay"');
    expect(challenge({ code: 'invalid_token', description: describeRejection('revoked') })).toBe(
      'Bearer realm="vimrelay", error="invalid_token", error_description="The token has been revoked."',
    );
    // Characters outside RFC 6750's error_description set are dropped, not escaped.
    expect(challenge({ code: 'invalid_token', description: 'say "hi"\\ é' })).toBe('Bearer realm="vimrelay", error="invalid_token", error_description="say hi "');
  });
});

describe('ownerSecretMatches', () => {
  it('matches equal secrets only, whatever their lengths', async () => {
    expect(await ownerSecretMatches('s3cret-value', 's3cret-value')).toBe(true);
    expect(await ownerSecretMatches('s3cret-valuf', 's3cret-value')).toBe(false);
    expect(await ownerSecretMatches('s3cret', 's3cret-value')).toBe(false);
    expect(await ownerSecretMatches('s3cret-value-and-more', 's3cret-value')).toBe(false);
    expect(await ownerSecretMatches('', '')).toBe(false);
  });
});
