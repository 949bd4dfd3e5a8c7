// Owner-secret guessing as an attacker does it, against the real Worker and Hub: wrong secrets on
// /signin and /admin from one address, and all at once. Over the limits every attempt is 429 with
// Retry-After, the right secret included; once the window has passed (owner-guessing.ts) it works
// again. From many addresses: owner-throttle-many.test.ts; naming OWNER_USER:
// owner-throttle-named.test.ts.
import { beforeEach, describe, expect, it } from 'vitest';
import { clientAddress } from '../../worker/http/client-address.ts';
import { OWNER_GUESS_LIMITS } from '../../worker/hub/owner-guesses.ts';
import { relay } from './helpers.ts';
import { adminCall, SECRET, signIn, windowPasses } from './owner-guessing.ts';

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
