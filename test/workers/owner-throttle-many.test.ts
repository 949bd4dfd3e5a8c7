// Owner-secret guessing from many addresses, against the real Worker and Hub: the account-wide
// limit holds however many addresses guess, and lifts after the window (owner-guessing.ts); an
// address that presented the right secret before is not locked out by the others' guesses, unless
// that was more than KNOWN_ADDRESS_MS ago; IPv6 addresses count by their /64.
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeEach, describe, expect, it } from 'vitest';
import { hubFor } from '../../worker/account.ts';
import type { Hub } from '../../worker/hub/hub.ts';
import { KNOWN_ADDRESS_MS, OWNER_GUESS_LIMITS } from '../../worker/hub/owner-guesses.ts';
import { adminCall, SECRET, signIn, windowPasses } from './owner-guessing.ts';

beforeEach(windowPasses);

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
