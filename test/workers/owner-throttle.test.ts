// Owner-secret guessing as an attacker does it, against the real Worker and Hub: wrong secrets on
// /signin and /admin from one address, from many, and all at once. Over the limits every attempt
// is 429 with Retry-After, the right secret included; once the window has passed (moved by
// backdating the buckets inside the real Durable Object, never by waiting) it works again. An
// address that presented the right secret before is not locked out by the others' guesses, nor is
// an attempt that names OWNER_USER.
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeEach, describe, expect, it } from 'vitest';
import { hubFor } from '../../worker/account.ts';
import { clientAddress } from '../../worker/http/client-address.ts';
import type { Hub } from '../../worker/hub/hub.ts';
import { KNOWN_ADDRESS_MS, OWNER_GUESS_LIMITS } from '../../worker/hub/owner-guesses.ts';
import { RATE_WINDOW_MS } from '../../worker/hub/rate-limits.ts';
import { relay } from './helpers.ts';

const SECRET = env.OWNER_SECRET ?? '';

function signIn(secret: string, ip: string): Promise<Response> {
  return relay('/signin', { method: 'POST', headers: { 'CF-Connecting-IP': ip }, body: new URLSearchParams({ secret, next: '/dashboard' }), redirect: 'manual' });
}

function adminCall(secret: string, ip: string): Promise<Response> {
  return relay('/admin/tokens', { headers: { Authorization: `Bearer ${secret}`, 'CF-Connecting-IP': ip } });
}

/** Moves every rate-limit window a whole window into the past, as if a minute had gone by. */
async function windowPasses(): Promise<void> {
  await runInDurableObject(hubFor(env), (_hub: Hub, state) => {
    state.storage.sql.exec('UPDATE rate_limits SET window_start = window_start - ?', RATE_WINDOW_MS);
  });
}

beforeEach(windowPasses);

describe('guessing from one address', () => {
  it('/signin: the limit, then 429 with Retry-After for the right secret too, and sign-in again after the window', async () => {
    for (let i = 0; i < OWNER_GUESS_LIMITS.perClientPerMinute; i++) expect((await signIn(`guess-${i}`, '203.0.113.7')).status).toBe(401);
    const refused = await signIn('one more guess', '203.0.113.7');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    expect(await refused.text()).toContain('Too many wrong owner secrets');
    const right = await signIn(SECRET, '203.0.113.7');
    expect(right.status).toBe(429);
    expect(right.headers.get('Set-Cookie')).toBeNull();
    // Another address is not held back by this one.
    expect((await signIn('a guess', '198.51.100.9')).status).toBe(401);
    await windowPasses();
    const after = await signIn(SECRET, '203.0.113.7');
    expect(after.status).toBe(303);
    expect(after.headers.get('Set-Cookie')).toMatch(/^__Host-vimrelay-session=/);
  });

  it('/admin: the same limit shared with /signin, 429 JSON with Retry-After, then the API again', async () => {
    for (let i = 0; i < OWNER_GUESS_LIMITS.perClientPerMinute / 2; i++) expect((await signIn(`guess-${i}`, '203.0.113.8')).status).toBe(401);
    for (let i = 0; i < OWNER_GUESS_LIMITS.perClientPerMinute / 2; i++) expect((await adminCall(`guess-${i}`, '203.0.113.8')).status).toBe(401);
    const refused = await adminCall(SECRET, '203.0.113.8');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('Retry-After')).toMatch(/^\d+$/);
    expect(await refused.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    await windowPasses();
    expect((await adminCall(SECRET, '203.0.113.8')).status).toBe(200);
  });

  it('right secrets are not counted, and a missing one is no guess', async () => {
    for (let i = 0; i < OWNER_GUESS_LIMITS.perClientPerMinute * 2; i++) expect((await adminCall(SECRET, '203.0.113.9')).status).toBe(200);
    for (let i = 0; i < OWNER_GUESS_LIMITS.perClientPerMinute * 2; i++) {
      expect((await relay('/admin/tokens', { headers: { 'CF-Connecting-IP': '203.0.113.9' } })).status).toBe(401);
    }
    expect((await adminCall('a guess', '203.0.113.9')).status).toBe(401);
  });

  it('a burst of concurrent guesses gets no more than the limit compared', async () => {
    const answers = await Promise.all(Array.from({ length: OWNER_GUESS_LIMITS.perClientPerMinute * 3 }, (_, i) => adminCall(`burst-${i}`, '203.0.113.10')));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBe(OWNER_GUESS_LIMITS.perClientPerMinute);
    expect(statuses.filter((s) => s === 429).length).toBe(OWNER_GUESS_LIMITS.perClientPerMinute * 2);
  });
});

describe('guessing from many addresses', () => {
  it('the account-wide limit holds however many addresses guess, and lifts after the window', async () => {
    const addresses = OWNER_GUESS_LIMITS.allPerMinute / OWNER_GUESS_LIMITS.perClientPerMinute;
    for (let a = 0; a < addresses; a++) {
      for (let i = 0; i < OWNER_GUESS_LIMITS.perClientPerMinute; i++) expect((await signIn(`g-${a}-${i}`, `192.0.2.${a + 1}`)).status).toBe(401);
    }
    expect((await signIn('fresh address', '192.0.2.200')).status).toBe(429);
    expect((await adminCall(SECRET, '192.0.2.201')).status).toBe(429);
    await windowPasses();
    expect((await adminCall(SECRET, '192.0.2.201')).status).toBe(200);
  });

  /** Wrong secrets from as many addresses (`prefix`.1, .2, ...) as fill the account-wide limit. */
  async function fillAccountLimit(prefix: string): Promise<void> {
    for (let a = 0; a < OWNER_GUESS_LIMITS.allPerMinute / OWNER_GUESS_LIMITS.perClientPerMinute; a++) {
      for (let i = 0; i < OWNER_GUESS_LIMITS.perClientPerMinute; i++) expect((await adminCall(`g-${a}-${i}`, `${prefix}.${a + 1}`)).status).toBe(401);
    }
  }

  it('an address that presented the right secret before is not locked out by guesses from elsewhere; its own guesses still are limited', async () => {
    const owner = '198.51.100.50';
    expect((await signIn(SECRET, owner)).status).toBe(303);
    await fillAccountLimit('192.0.2');
    expect((await adminCall(SECRET, '198.51.100.51')).status).toBe(429);
    expect((await adminCall(SECRET, owner)).status).toBe(200);
    expect((await signIn(SECRET, owner)).status).toBe(303);
    for (let i = 0; i < OWNER_GUESS_LIMITS.perClientPerMinute; i++) expect((await adminCall(`owner-typo-${i}`, owner)).status).toBe(401);
    expect((await adminCall(SECRET, owner)).status).toBe(429);
  });

  it(`an address last right more than ${KNOWN_ADDRESS_MS / 86_400_000} days ago is held back like any other`, async () => {
    const owner = '198.51.100.60';
    expect((await adminCall(SECRET, owner)).status).toBe(200);
    await runInDurableObject(hubFor(env), (_hub: Hub, state) => {
      state.storage.sql.exec('UPDATE owner_addresses SET last_ok = last_ok - ? WHERE client = ?', KNOWN_ADDRESS_MS, owner);
    });
    await fillAccountLimit('192.0.2');
    expect((await adminCall(SECRET, owner)).status).toBe(429);
  });

  it('IPv6 addresses count by their /64', async () => {
    for (let i = 0; i < OWNER_GUESS_LIMITS.perClientPerMinute; i++) expect((await adminCall('guess', `2001:db8:1:2::${(i + 1).toString(16)}`)).status).toBe(401);
    expect((await adminCall('guess', '2001:db8:1:2:ffff::1')).status).toBe(429);
    expect((await adminCall('guess', '2001:db8:1:3::1')).status).toBe(401);
  });
});

// The local relay's case: every caller is 127.0.0.1 and may name any address. Another local
// account's wrong guesses fill every bucket an address can reach; the owner names OWNER_USER.
describe('attempts naming OWNER_USER (HTTP Basic)', () => {
  const OWNER_USER = env.OWNER_USER ?? '';
  const LOOPBACK = '127.0.0.1';

  function basicCall(user: string, secret: string, ip: string): Promise<Response> {
    return relay('/admin/tokens', { headers: { Authorization: `Basic ${btoa(`${user}:${secret}`)}`, 'CF-Connecting-IP': ip } });
  }

  /** Another account's wrong guesses: the loopback address's limit, then the account-wide one from invented addresses. */
  async function guessEverywhere(): Promise<void> {
    for (let i = 0; i < OWNER_GUESS_LIMITS.perClientPerMinute; i++) expect((await basicCall('owner', `guess-${i}`, LOOPBACK)).status).toBe(401);
    for (let a = 1; a < OWNER_GUESS_LIMITS.allPerMinute / OWNER_GUESS_LIMITS.perClientPerMinute; a++) {
      for (let i = 0; i < OWNER_GUESS_LIMITS.perClientPerMinute; i++) expect((await adminCall(`g-${a}-${i}`, `127.0.0.${a + 1}`)).status).toBe(401);
    }
    expect((await adminCall(SECRET, '127.0.0.200')).status).toBe(429);
  }

  it('another account\'s guesses from every address never hold the owner out; the right secret without the name stays refused', async () => {
    await guessEverywhere();
    expect((await basicCall(OWNER_USER, SECRET, LOOPBACK)).status).toBe(200);
    expect((await basicCall(OWNER_USER, SECRET, '127.0.0.200')).status).toBe(200);
    // The limits still hold for everyone else: the right secret under another name, or as a bearer token.
    expect((await basicCall('owner', SECRET, LOOPBACK)).status).toBe(429);
    expect((await adminCall(SECRET, LOOPBACK)).status).toBe(429);
  });

  it('the name has a limit of its own: ten wrong secrets with it, then 429 for it alone, the right secret included', async () => {
    for (let i = 0; i < OWNER_GUESS_LIMITS.perClientPerMinute; i++) expect((await basicCall(OWNER_USER, `typo-${i}`, LOOPBACK)).status).toBe(401);
    const refused = await basicCall(OWNER_USER, SECRET, '198.51.100.70');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('Retry-After')).toMatch(/^\d+$/);
    // Named guesses counted nowhere else: the loopback address may still try.
    expect((await adminCall(SECRET, LOOPBACK)).status).toBe(200);
    await windowPasses();
    expect((await basicCall(OWNER_USER, SECRET, LOOPBACK)).status).toBe(200);
  });

  it('a name that is not OWNER_USER is no exemption: it is a guess from its address like any other', async () => {
    await guessEverywhere();
    for (const user of [`${OWNER_USER}x`, OWNER_USER.slice(1), '', 'owner-user']) expect((await basicCall(user, SECRET, LOOPBACK)).status).toBe(429);
  });
});

describe('clientAddress', () => {
  const of = (ip?: string) => clientAddress(new Request('https://relay.test/', { headers: ip === undefined ? {} : { 'CF-Connecting-IP': ip } }));
  it('keeps IPv4, cuts IPv6 to its /64, and shares one bucket when there is none', () => {
    expect(of('203.0.113.7')).toBe('203.0.113.7');
    expect(of('2001:DB8:0001:0002:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(of('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(of('::1')).toBe('0:0:0:0::/64');
    expect(of()).toBe('unknown');
    expect(of('not an address')).toBe('unknown');
  });
});
