// Anonymous pairing floods and cancelled codes, against the real Worker and Hub: a flood from one
// address is held to that address's limits and leaves the owner's own request through; a flood
// from many addresses fills the account's queue, and the owner sees the waiting requests on /pair
// and dismisses them (their devices are then refused); a request its device cancelled (Ctrl-C in
// `vimrelay pair`) can no longer be approved and the page says so.
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeEach, describe, expect, it } from 'vitest';
import { hubFor } from '../../worker/account.ts';
import { PAIRING_LIMITS } from '../../worker/auth/pairing.ts';
import type { Hub } from '../../worker/hub/hub.ts';
import { ownerSession, relay } from './helpers.ts';

interface Started {
  device_code: string;
  user_code: string;
}

function startFrom(ip: string, name = 'laptop'): Promise<Response> {
  return relay('/pair/device', { method: 'POST', headers: { 'Content-Type': 'application/json', 'CF-Connecting-IP': ip }, body: JSON.stringify({ name, hostname: `${name}.local` }) });
}

async function started(ip: string, name?: string): Promise<Started> {
  const res = await startFrom(ip, name);
  if (res.status !== 200) throw new Error(`/pair/device answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Started;
}

async function pollError(deviceCode: string): Promise<string> {
  // Far enough apart for the interval: the test moves the request's last poll into the past first.
  await runInDurableObject(hubFor(env), (_hub: Hub, state) => void state.storage.sql.exec('UPDATE pairings SET last_poll_at = last_poll_at - 60000'));
  const res = await relay('/pair/token', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ device_code: deviceCode }) });
  return ((await res.json()) as { error?: string }).error ?? `HTTP ${res.status}`;
}

function cancel(deviceCode: string): Promise<Response> {
  return relay('/pair/cancel', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ device_code: deviceCode }) });
}

const signIn = (): Promise<string> => ownerSession('/pair');

async function ownerPage(path: string, cookie: string): Promise<{ status: number; text: string }> {
  const res = await relay(path, { headers: { Cookie: cookie }, redirect: 'manual' });
  return { status: res.status, text: await res.text() };
}

const csrfOf = (text: string): string => /name="csrf" value="([^"]+)"/.exec(text)?.[1] ?? '';

function postForm(path: string, cookie: string, fields: Record<string, string>): Promise<Response> {
  return relay(path, { method: 'POST', headers: { Cookie: cookie }, body: new URLSearchParams(fields), redirect: 'manual' });
}

beforeEach(async () => {
  await runInDurableObject(hubFor(env), (_hub: Hub, state) => {
    state.storage.sql.exec('DELETE FROM pairings');
    state.storage.sql.exec('DELETE FROM rate_limits');
  });
});

describe('a flood from one address', () => {
  it(`is held to ${PAIRING_LIMITS.maxPendingPerClient} waiting requests, and the owner's own request still gets a code`, async () => {
    for (let i = 0; i < PAIRING_LIMITS.maxPendingPerClient; i++) await started('203.0.113.66', `flood${i}`);
    const refused = await startFrom('203.0.113.66', 'flood-more');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('from this address');
    expect((await startFrom('192.0.2.10', 'owner-laptop')).status).toBe(200);
  });

  it(`is held to ${PAIRING_LIMITS.startsPerClientPerMinute} starts a minute even when it cancels its own requests`, async () => {
    for (let i = 0; i < PAIRING_LIMITS.startsPerClientPerMinute; i++) {
      const s = await started('203.0.113.67', `churn${i}`);
      expect((await cancel(s.device_code)).status).toBe(200);
      await runInDurableObject(hubFor(env), (_hub: Hub, state) => void state.storage.sql.exec("DELETE FROM pairings WHERE status = 'cancelled'"));
    }
    expect((await startFrom('203.0.113.67', 'churn-more')).status).toBe(429);
    expect((await startFrom('192.0.2.11', 'owner-laptop')).status).toBe(200);
  });
});

describe('a flood from many addresses', () => {
  it('fills the queue; the owner sees it on /pair, dismisses it all, and pairs', async () => {
    const flood: Started[] = [];
    for (let i = 0; i < PAIRING_LIMITS.maxPending; i++) flood.push(await started(`198.51.100.${i + 1}`, `bot<b>${i}`));
    const owner = await startFrom('192.0.2.12', 'owner-laptop');
    expect(owner.status).toBe(429);
    expect(((await owner.json()) as { error: { message: string } }).error.message).toContain('dismiss them at https://relay.test/pair');

    const cookie = await signIn();
    const list = await ownerPage('/pair', cookie);
    expect(list.status).toBe(200);
    expect(list.text).toContain('Waiting for approval');
    expect(list.text).toContain('bot&lt;b&gt;0');
    expect(list.text).toContain('198.51.100.1');
    expect(list.text.match(/action="\/pair\/dismiss"/g)?.length).toBe(PAIRING_LIMITS.maxPending + 1);
    // The list never shows a code (approving takes the one the terminal shows).
    for (const f of flood) expect(list.text).not.toContain(f.user_code);

    // Without the CSRF token nothing is dismissed.
    expect((await postForm('/pair/dismiss', cookie, { all: '1' })).status).toBe(403);
    expect((await startFrom('192.0.2.12', 'owner-laptop')).status).toBe(429);

    const done = await postForm('/pair/dismiss', cookie, { all: '1', csrf: csrfOf(list.text) });
    expect(done.status).toBe(303);
    expect(done.headers.get('Location')).toBe('/pair');
    expect((await ownerPage('/pair', cookie)).text).toContain('No pairing request is waiting');
    expect(await pollError(flood[0]!.device_code)).toBe('access_denied');
    expect((await startFrom('192.0.2.12', 'owner-laptop')).status).toBe(200);
  });

  it('one request can be dismissed alone', async () => {
    const a = await started('198.51.100.101', 'first');
    const b = await started('198.51.100.102', 'second');
    const cookie = await signIn();
    const list = (await ownerPage('/pair', cookie)).text;
    const id = /name="id" value="([0-9a-f]{64})"><button class="danger" type="submit" aria-label="Dismiss first"/.exec(list)?.[1];
    expect(id).toBeDefined();
    expect((await postForm('/pair/dismiss', cookie, { id: id ?? '', csrf: csrfOf(list) })).status).toBe(303);
    const after = (await ownerPage('/pair', cookie)).text;
    expect(after).not.toContain('aria-label="Dismiss first"');
    expect(after).toContain('aria-label="Dismiss second"');
    expect(await pollError(a.device_code)).toBe('access_denied');
    expect(await pollError(b.device_code)).toBe('authorization_pending');
  });
});

describe('a request its device cancelled', () => {
  it('can no longer be approved: the page says it was cancelled, and no credential is ever handed out', async () => {
    const s = await started('192.0.2.20', 'studio');
    const res = await cancel(s.device_code);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ cancelled: true });
    const cookie = await signIn();
    const page = await ownerPage(`/pair?code=${s.user_code}`, cookie);
    expect(page.status).toBe(410);
    expect(page.text).toContain('This request was cancelled');
    expect(page.text).not.toContain('action="/pair/approve"');
    const approve = await postForm('/pair/approve', cookie, { code: s.user_code, csrf: csrfOf(page.text) });
    expect(approve.status).toBe(410);
    expect(await pollError(s.device_code)).toBe('invalid_grant');
    // Not listed as waiting either.
    expect((await ownerPage('/pair', cookie)).text).not.toContain('aria-label="Dismiss studio"');
  });

  it('approved but not yet collected: cancelling still keeps the credential from being handed out', async () => {
    const s = await started('192.0.2.21', 'desk');
    const cookie = await signIn();
    const page = await ownerPage(`/pair?code=${s.user_code}`, cookie);
    expect((await postForm('/pair/approve', cookie, { code: s.user_code, csrf: csrfOf(page.text) })).status).toBe(200);
    expect((await cancel(s.device_code)).status).toBe(200);
    expect(await pollError(s.device_code)).toBe('invalid_grant');
    const devices = (await (await relay('/admin/devices', { headers: { Authorization: `Bearer ${env.OWNER_SECRET ?? ''}` } })).json()) as { devices: { name: string }[] };
    expect(devices.devices.some((d) => d.name === 'desk')).toBe(false);
  });

  it('an unknown or missing device code cannot cancel anything', async () => {
    const unknown = await cancel('not-a-device-code');
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ error: 'invalid_grant' });
    const none = await relay('/pair/cancel', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(none.status).toBe(400);
    expect(await none.json()).toMatchObject({ error: 'invalid_request' });
  });
});
