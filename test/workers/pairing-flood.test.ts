// Anonymous pairing floods and cancelled codes, against the real Worker and Hub: a flood from one
// address is held to that address's limits and leaves the owner's own request through; a flood
// from many addresses fills the account's queue, and the owner sees the waiting requests on /pair
// and dismisses them (their devices are then refused), or pairs past them with a ticket from that
// page; a request its device cancelled (Ctrl-C in `vimrelay pair`) can no longer be approved and
// the page says so.
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeEach, describe, expect, it } from 'vitest';
import { hubFor } from '../../worker/account.ts';
import { PAIRING_LIMITS } from '../../worker/auth/pairing.ts';
import { MAX_LIVE_TICKETS } from '../../worker/hub/pairing-tickets.ts';
import type { Hub } from '../../worker/hub/hub.ts';
import { ownerSession, relay } from './helpers.ts';

interface Started {
  device_code: string;
  user_code: string;
}

function startFrom(ip: string, name = 'laptop', ticket?: string): Promise<Response> {
  const body = { name, hostname: `${name}.local`, ...(ticket === undefined ? {} : { ticket }) };
  return relay('/pair/device', { method: 'POST', headers: { 'Content-Type': 'application/json', 'CF-Connecting-IP': ip }, body: JSON.stringify(body) });
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
    state.storage.sql.exec('DELETE FROM pairing_tickets');
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

describe('the owner\'s ticket', () => {
  /** A ticket from the owner's /pair page (signed in, its CSRF form). */
  async function ticket(cookie: string): Promise<string> {
    const list = await ownerPage('/pair', cookie);
    const res = await postForm('/pair/ticket', cookie, { csrf: csrfOf(list.text) });
    expect(res.status).toBe(200);
    expect(res.headers.get('Cache-Control')).toContain('no-store');
    const text = await res.text();
    const found = /vimrelay pair https:\/\/relay\.test --ticket (vrt_[\w-]{22})</.exec(text)?.[1];
    if (!found) throw new Error(`no ticket on the page:\n${text}`);
    return found;
  }

  /** Fills the account's queue from many addresses, and one address's limits from `ip`. */
  async function flood(ip: string): Promise<void> {
    for (let i = 0; i < PAIRING_LIMITS.maxPending - PAIRING_LIMITS.maxPendingPerClient; i++) await started(`198.51.100.${i + 1}`, `bot${i}`);
    for (let i = 0; i < PAIRING_LIMITS.maxPendingPerClient; i++) await started(ip, `near${i}`);
    expect((await startFrom(ip, 'owner-laptop')).status).toBe(429);
    expect((await startFrom('192.0.2.99', 'owner-laptop')).status).toBe(429);
  }

  it('gets the owner\'s request in however many wait, from a flooding address too; it is listed as the owner\'s and approved as any other', async () => {
    await flood('203.0.113.70');
    const cookie = await signIn();
    const res = await startFrom('203.0.113.70', 'owner-laptop', await ticket(cookie));
    expect(res.status).toBe(200);
    const mine = (await res.json()) as Started;
    const list = (await ownerPage('/pair', cookie)).text;
    expect(list).toMatch(/<strong>owner-laptop<\/strong><br><span class="muted">owner-laptop\.local<\/span><br><span class="muted">with your ticket<\/span>/);
    expect(list).not.toMatch(/<strong>bot0<\/strong><br><span class="muted">bot0\.local<\/span><br><span class="muted">with your ticket/);
    expect(await pollError(mine.device_code)).toBe('authorization_pending');
    const page = await ownerPage(`/pair?code=${mine.user_code}`, cookie);
    expect((await postForm('/pair/approve', cookie, { code: mine.user_code, csrf: csrfOf(page.text) })).status).toBe(200);
    await runInDurableObject(hubFor(env), (_hub: Hub, state) => void state.storage.sql.exec('UPDATE pairings SET last_poll_at = last_poll_at - 60000'));
    const granted = await relay('/pair/token', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ device_code: mine.device_code }) });
    expect(((await granted.json()) as { credential?: string }).credential).toMatch(/^vrd_/);
    // It took no place of the strangers' queue: still full for them, and the flood's limits unchanged.
    expect((await startFrom('192.0.2.99', 'another')).status).toBe(429);
  });

  it('works once; an expired, made-up or missing ticket is refused (400 BAD_TICKET), and starts nothing', async () => {
    const cookie = await signIn();
    const once = await ticket(cookie);
    expect((await startFrom('192.0.2.30', 'first', once)).status).toBe(200);
    const again = await startFrom('192.0.2.30', 'second', once);
    expect(again.status).toBe(400);
    const body = (await again.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('BAD_TICKET');
    expect(body.error.message).toContain('https://relay.test/pair');
    const late = await ticket(cookie);
    await runInDurableObject(hubFor(env), (_hub: Hub, state) => void state.storage.sql.exec('UPDATE pairing_tickets SET expires_at = expires_at - 600000'));
    expect((await startFrom('192.0.2.30', 'late', late)).status).toBe(400);
    expect((await startFrom('192.0.2.30', 'made-up', `vrt_${'A'.repeat(22)}`)).status).toBe(400);
    expect((await ownerPage('/pair', cookie)).text.match(/action="\/pair\/dismiss"/g)?.length).toBe(2);
  });

  it(`at most ${MAX_LIVE_TICKETS} live at once: a new one replaces the oldest`, async () => {
    const cookie = await signIn();
    const tickets: string[] = [];
    for (let i = 0; i <= MAX_LIVE_TICKETS; i++) tickets.push(await ticket(cookie));
    expect((await startFrom('192.0.2.31', 'oldest', tickets[0])).status).toBe(400);
    expect((await startFrom('192.0.2.31', 'newest', tickets[MAX_LIVE_TICKETS])).status).toBe(200);
  });

  it('only the signed-in owner gets one, with the page\'s CSRF token', async () => {
    const cookie = await signIn();
    const noCsrf = await postForm('/pair/ticket', cookie, {});
    expect(noCsrf.status).toBe(403);
    expect(await noCsrf.text()).not.toContain('vrt_');
    const anonymous = await relay('/pair/ticket', { method: 'POST', body: new URLSearchParams({ csrf: 'x' }), redirect: 'manual' });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('Location')).toBe('/signin?next=%2Fpair%2Fticket');
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
