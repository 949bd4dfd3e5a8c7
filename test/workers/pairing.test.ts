// Device pairing (RFC 8628) against the real Worker and Hub: the device's requests, the owner's
// pages with a real session and CSRF tokens, every §3.5 answer, single use, rate limits, the
// credential traded for a short-lived device JWT, and revocation. Time is moved by backdating the
// request's row inside the real Durable Object (`elapse`), never by waiting.
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatUserCode, hashSecret, newCredential, newUserCode, normaliseUserCode, PAIRING_LIMITS, pollVerdict, sameHash, USER_CODE_ALPHABET } from '../../worker/auth/pairing.ts';
import { TokenStore } from '../../worker/auth/tokens.ts';
import type { Hub } from '../../worker/hub/hub.ts';
import { admin, agentToken, BASE, editor, FakeAgent, ownerSession, relay, upgrade } from './helpers.ts';

const hub = (): DurableObjectStub<Hub> => env.HUB.get(env.HUB.idFromName('owner'));
const CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

interface Started {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

let addresses = 0;
/** A client address no other start in this file used, so that per-address limits stay out of the way. */
function nextAddress(): string {
  addresses += 1;
  return `198.18.${Math.floor(addresses / 250)}.${(addresses % 250) + 1}`;
}

async function start(name = 'laptop', hostname = 'laptop.local'): Promise<Started> {
  const res = await relay('/pair/device', { method: 'POST', headers: { 'Content-Type': 'application/json', 'CF-Connecting-IP': nextAddress() }, body: JSON.stringify({ name, hostname }) });
  if (res.status !== 200) throw new Error(`/pair/device answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Started;
}

/** One poll, as RFC 8628 §3.4 sends it (a form with grant_type). */
async function poll(deviceCode: string): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await relay('/pair/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: deviceCode }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

async function pollError(deviceCode: string): Promise<unknown> {
  const { status, body } = await poll(deviceCode);
  expect(status).toBe(400);
  return body.error;
}

/** Moves the request's clock `ms` into the past, as if that much time had gone by. */
async function elapse(deviceCode: string, ms: number): Promise<void> {
  const hash = await hashSecret(deviceCode);
  await runInDurableObject(hub(), async (_instance: Hub, state) => {
    state.storage.sql.exec(
      'UPDATE pairings SET created_at = created_at - ?, expires_at = expires_at - ?, last_poll_at = last_poll_at - ? WHERE device_code_hash = ?',
      ms,
      ms,
      ms,
      hash,
    );
  });
}

/** Signs the owner in through POST /signin; returns the Cookie header value. */
const signIn = (): Promise<string> => ownerSession('/pair');

async function ownerPage(path: string, cookie: string): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await relay(path, { headers: { Cookie: cookie }, redirect: 'manual' });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

function csrfOf(pageText: string): string {
  const csrf = /name="csrf" value="([^"]+)"/.exec(pageText)?.[1];
  if (!csrf) throw new Error('no CSRF token on the page');
  return csrf;
}

async function decide(action: 'approve' | 'deny', cookie: string, fields: Record<string, string>): Promise<{ status: number; text: string }> {
  const res = await relay(`/pair/${action}`, { method: 'POST', headers: { Cookie: cookie }, body: new URLSearchParams(fields), redirect: 'manual' });
  return { status: res.status, text: await res.text() };
}

/** Opens the request's page and approves (or denies) it with the page's CSRF token. */
async function ownerDecides(userCode: string, approve: boolean, cookie: string): Promise<string> {
  const page = await ownerPage(`/pair?code=${encodeURIComponent(userCode)}`, cookie);
  expect(page.status).toBe(200);
  const done = await decide(approve ? 'approve' : 'deny', cookie, { csrf: csrfOf(page.text), code: userCode });
  expect(done.status).toBe(200);
  return done.text;
}

const agents: FakeAgent[] = [];

beforeEach(async () => {
  await runInDurableObject(hub(), async (_instance: Hub, state) => {
    state.storage.sql.exec('DELETE FROM pairings');
    state.storage.sql.exec('DELETE FROM rate_limits');
  });
});

afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

describe('the full exchange', () => {
  it('start -> pending -> owner approves -> credential once -> device JWT -> agent online', async () => {
    const started = await start('studio', 'studio.example');
    expect(started).toEqual({
      device_code: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      user_code: expect.stringMatching(CODE),
      verification_uri: `${BASE}/pair`,
      verification_uri_complete: `${BASE}/pair?code=${started.user_code}`,
      expires_in: 600,
      interval: 5,
    });
    expect(await pollError(started.device_code)).toBe('authorization_pending');

    // The owner is sent to sign in first, and back to the request afterwards.
    const anonymous = await ownerPage(`/pair?code=${started.user_code}`, '');
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('Location')).toBe(`/signin?next=${encodeURIComponent(`/pair?code=${started.user_code}`)}`);
    const cookie = await signIn();

    // Case, dashes and spaces do not matter (RFC 8628 §6.1).
    const typed = ` ${started.user_code.replace('-', '').toLowerCase()} `;
    const page = await ownerPage(`/pair?code=${encodeURIComponent(typed)}`, cookie);
    expect(page.status).toBe(200);
    expect(page.headers.get('Content-Security-Policy')).toContain("frame-ancestors 'none'");
    expect(page.text).toContain('studio');
    expect(page.text).toContain('studio.example');
    expect(page.text).toContain(started.user_code);
    expect(page.text).toMatch(/Expires<\/th><td>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
    const approved = await decide('approve', cookie, { csrf: csrfOf(page.text), code: typed });
    expect(approved.status).toBe(200);
    expect(approved.text).toContain('Device approved');

    await elapse(started.device_code, 5_000);
    const granted = await poll(started.device_code);
    expect(granted.status).toBe(200);
    expect(granted.headers.get('Cache-Control')).toBe('no-store');
    const { credential, device } = granted.body as { credential: string; device: { id: string; name: string } };
    expect(credential).toMatch(/^vrd_[A-Za-z0-9_-]{43}$/);
    expect(device.name).toBe('studio');

    // Single use: neither code works again.
    expect(await pollError(started.device_code)).toBe('invalid_grant');
    expect((await ownerPage(`/pair?code=${started.user_code}`, cookie)).status).toBe(404);

    // The credential buys a device JWT, which opens the agent socket.
    const res = await agentToken(credential);
    expect(res.status).toBe(200);
    const { token } = (await res.json()) as { token: string };
    const { agent, welcome } = await FakeAgent.online(token, [editor('nvim-1')]);
    agents.push(agent);
    expect(welcome.device).toEqual(device);
    const { devices } = (await (await admin('GET', '/devices')).json()) as { devices: Record<string, unknown>[] };
    expect(devices.find((d) => d.id === device.id)).toMatchObject({ name: 'studio', hostname: 'studio.example', online: true, revoked: false, last_seen_at: expect.any(String) });
  });
});

describe('RFC 8628 §3.5 answers', () => {
  it('slow_down when polling faster than the interval, which then grows by 5 s each time', async () => {
    const { device_code } = await start();
    expect(await pollError(device_code)).toBe('authorization_pending');
    expect(await pollError(device_code)).toBe('slow_down');
    // The interval is now 10 s: 6 s later is still too soon, which makes it 15 s; 15 s later is fine.
    await elapse(device_code, 6_000);
    expect(await pollError(device_code)).toBe('slow_down');
    await elapse(device_code, 12_000);
    expect(await pollError(device_code)).toBe('slow_down');
    await elapse(device_code, 20_000);
    expect(await pollError(device_code)).toBe('authorization_pending');
  });

  it('access_denied once the owner denies; the user code is then gone', async () => {
    const { device_code, user_code } = await start('intruder', 'somewhere');
    const cookie = await signIn();
    expect(await ownerDecides(user_code, false, cookie)).toContain('Device denied');
    await elapse(device_code, 5_000);
    expect(await pollError(device_code)).toBe('access_denied');
    expect((await ownerPage(`/pair?code=${user_code}`, cookie)).status).toBe(404);
  });

  it('expired_token after 10 minutes; the owner page says not found or expired, and approval is refused', async () => {
    const { device_code, user_code } = await start();
    const cookie = await signIn();
    const page = await ownerPage(`/pair?code=${user_code}`, cookie);
    await elapse(device_code, 600_000);
    const gone = await ownerPage(`/pair?code=${user_code}`, cookie);
    expect(gone.status).toBe(404);
    expect(gone.text).toContain('not found or expired');
    expect((await decide('approve', cookie, { csrf: csrfOf(page.text), code: user_code })).status).toBe(404);
    expect(await pollError(device_code)).toBe('expired_token');
    expect(await pollError(device_code)).toBe('invalid_grant');
  });

  it('an unknown device code is invalid_grant; a wrong grant_type unsupported_grant_type; no device_code invalid_request', async () => {
    expect(await pollError('not-a-device-code')).toBe('invalid_grant');
    const res = await relay('/pair/token', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ device_code: 'x', grant_type: 'authorization_code' }) });
    expect(((await res.json()) as { error: string }).error).toBe('unsupported_grant_type');
    const none = await relay('/pair/token', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(none.status).toBe(400);
    expect(((await none.json()) as { error: string }).error).toBe('invalid_request');
  });

  it('refuses a bad start: missing hostname, a name with "/" or control characters', async () => {
    for (const body of [{ name: 'x' }, { name: 'a/b', hostname: 'h' }, { name: 'a\u0007', hostname: 'h' }, { name: 'x', hostname: '' }]) {
      const res = await relay('/pair/device', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status).toBe(400);
    }
  });
});

describe('the owner pages', () => {
  it('approval without the CSRF token, or with another session\'s, is refused and changes nothing', async () => {
    const { device_code, user_code } = await start();
    const cookie = await signIn();
    const other = await signIn();
    const otherCsrf = csrfOf((await ownerPage(`/pair?code=${user_code}`, other)).text);
    expect((await decide('approve', cookie, { code: user_code })).status).toBe(403);
    expect((await decide('approve', cookie, { code: user_code, csrf: otherCsrf })).status).toBe(403);
    expect((await decide('approve', '', { code: user_code, csrf: otherCsrf })).status).toBe(303);
    expect(await pollError(device_code)).toBe('authorization_pending');
  });

  it('shows a hostile device name and hostname as text', async () => {
    const { user_code } = await start('"><script>x', '<img src=x onerror=alert(1)>');
    const page = await ownerPage(`/pair?code=${user_code}`, await signIn());
    expect(page.text).not.toMatch(/<script|<img/);
    expect(page.text).toContain('&quot;&gt;&lt;script&gt;x');
    expect(page.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('with no code, a form to type one', async () => {
    const page = await ownerPage('/pair', await signIn());
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="code"');
  });
});

describe('rate limits', () => {
  it(`wrong user codes: after ${PAIRING_LIMITS.wrongCodesPerMinute} a minute, every code is refused with 429`, async () => {
    const { user_code } = await start();
    const cookie = await signIn();
    for (let i = 0; i < PAIRING_LIMITS.wrongCodesPerMinute; i++) {
      const wrong = i % 2 === 0 ? 'BBBB-BBBB' : 'not a code';
      expect((await ownerPage(`/pair?code=${encodeURIComponent(wrong)}`, cookie)).status).toBe(404);
    }
    const limited = await ownerPage(`/pair?code=${user_code}`, cookie);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('Retry-After'))).toBeGreaterThan(0);
  });

  it(`at most ${PAIRING_LIMITS.maxPending} pending requests, and ${PAIRING_LIMITS.startsPerMinute} starts a minute`, async () => {
    for (let i = 0; i < PAIRING_LIMITS.maxPending; i++) await start(`m${i}`, 'h');
    const full = await relay('/pair/device', { method: 'POST', headers: { 'Content-Type': 'application/json', 'CF-Connecting-IP': nextAddress() }, body: JSON.stringify({ name: 'one-more', hostname: 'h' }) });
    expect(full.status).toBe(429);
    expect(Number(full.headers.get('Retry-After'))).toBeGreaterThan(0);

    // With the pending ones gone, the per-minute cap still holds.
    await runInDurableObject(hub(), async (_instance: Hub, state) => void state.storage.sql.exec('DELETE FROM pairings'));
    for (let i = PAIRING_LIMITS.maxPending; i < PAIRING_LIMITS.startsPerMinute; i++) {
      await start(`n${i}`, 'h');
      if (i % PAIRING_LIMITS.maxPending === PAIRING_LIMITS.maxPending - 1) {
        await runInDurableObject(hub(), async (_instance: Hub, state) => void state.storage.sql.exec('DELETE FROM pairings'));
      }
    }
    const fast = await relay('/pair/device', { method: 'POST', headers: { 'Content-Type': 'application/json', 'CF-Connecting-IP': nextAddress() }, body: JSON.stringify({ name: 'too-fast', hostname: 'h' }) });
    expect(fast.status).toBe(429);
  });
});

describe('a paired device', () => {
  async function paired(name: string): Promise<{ credential: string; device: { id: string; name: string } }> {
    const { device_code, user_code } = await start(name, 'h');
    await ownerDecides(user_code, true, await signIn());
    const { body } = await poll(device_code);
    return body as { credential: string; device: { id: string; name: string } };
  }

  it('revoked: disconnected at once, its credential and its JWTs refused', async () => {
    const { credential, device } = await paired('stolen');
    const { token } = (await (await agentToken(credential)).json()) as { token: string };
    const { agent } = await FakeAgent.online(token, [editor('nvim-1')]);
    const revoked = await admin('DELETE', `/devices/${device.id}`);
    expect(await revoked.json()).toMatchObject({ device, disconnected: 1 });
    expect((await agent.next('error')).code).toBe('REVOKED');
    expect((await agent.closed).code).toBe(4001);
    expect((await agentToken(credential)).status).toBe(401);
    const refused = await upgrade(token);
    expect(refused.status).toBe(401);
    expect(refused.webSocket).toBeNull();
  });

  it('an expired device JWT is refused at the upgrade; a fresh one from the credential works', async () => {
    const { credential, device } = await paired('sleepy');
    const stale = await runInDurableObject(hub(), async (_instance: Hub, state) =>
      new TokenStore(state.storage).mintDeviceJwt(device, BASE, Date.now() - 11 * 60_000),
    );
    const refused = await upgrade(stale.token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('WWW-Authenticate')).toContain('expired');
    const { token } = (await (await agentToken(credential)).json()) as { token: string };
    const { agent } = await FakeAgent.online(token, []);
    agents.push(agent);
  });
});

describe('codes and checks (pure)', () => {
  it('user codes: 8 letters of the unambiguous alphabet, typed in any case, with or without dashes and spaces', () => {
    expect(USER_CODE_ALPHABET).not.toMatch(/[AEIOUY01]/);
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const code = newUserCode();
      expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{8}$/);
      seen.add(code);
      expect(normaliseUserCode(formatUserCode(code).toLowerCase())).toBe(code);
    }
    expect(seen.size).toBe(200);
    expect(normaliseUserCode(' bcdf - ghjk ')).toBe('BCDFGHJK');
    for (const bad of ['', 'BCDF-GHJ', 'BCDF-GHJKL', 'ABCD-EFGH', 'BCDF-GHJ1']) expect(normaliseUserCode(bad)).toBeNull();
  });

  it('credentials are vrd_ and 256 bits; hashes compare in constant time, equal only when equal', async () => {
    const a = newCredential();
    expect(a).toMatch(/^vrd_[A-Za-z0-9_-]{43}$/);
    expect(newCredential()).not.toBe(a);
    const h = await hashSecret(a);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(sameHash(h, await hashSecret(a))).toBe(true);
    expect(sameHash(h, await hashSecret(`${a}x`))).toBe(false);
    expect(sameHash(h, h.slice(1))).toBe(false);
  });

  it('pollVerdict: expiry first, then the interval (with 1 s slack), then the decision', () => {
    const base = { status: 'pending' as const, expiresAtMs: 100_000, lastPollMs: 10_000, intervalS: 5 };
    expect(pollVerdict(base, 100_000)).toBe('expired_token');
    expect(pollVerdict({ ...base, status: 'approved' }, 13_999)).toBe('slow_down');
    expect(pollVerdict(base, 14_000)).toBe('authorization_pending');
    expect(pollVerdict({ ...base, lastPollMs: null }, 10_001)).toBe('authorization_pending');
    expect(pollVerdict({ ...base, status: 'approved' }, 15_000)).toBe('approved');
    expect(pollVerdict({ ...base, status: 'denied' }, 15_000)).toBe('access_denied');
  });
});
