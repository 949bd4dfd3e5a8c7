// Owner-secret guessing on the local relay, where every caller is 127.0.0.1 and may name any
// address, against the real Worker and Hub: attempts naming OWNER_USER (HTTP Basic) are counted
// apart, so that another local account's guesses from every address never hold the owner out,
// while the right secret under any other name stays refused (owner-guessing.ts).
import { env } from 'cloudflare:workers';
import { beforeEach, describe, expect, it } from 'vitest';
import { OWNER_GUESS_LIMITS } from '../../worker/hub/owner-guesses.ts';
import { relay } from './helpers.ts';
import { adminCall, SECRET, windowPasses } from './owner-guessing.ts';

beforeEach(windowPasses);

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
