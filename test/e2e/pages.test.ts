// The relay's pages in real headless Chromium against a real relay (local workerd): signing in,
// the dashboard's sections, a personal access token created (shown once) and revoked, a device
// paired from the browser and revoked, an OAuth client's consent and its grant revoked, at
// desktop and phone sizes, with screenshots under test-artifacts/screenshots/.
//
// The local relay signs the owner in with HTTP Basic (worker/auth/basic-owner.ts); the deployed
// relay's cookie sign-in is tested in workerd (test/workers/session.test.ts).
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { layoutWidth, PHONE, type TestBrowser } from '../helpers/browser.ts';
import { PAGE_SITE_START_MS, startPageSite, stopPageSite, withOwnerSecret } from '../helpers/page-site.ts';
import { ownerBasic, type TestRelay } from '../helpers/relay.ts';

let relay: TestRelay;
let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  ({ relay, browser, page } = await startPageSite());
}, PAGE_SITE_START_MS);

afterAll(() => stopPageSite({ relay, browser }));

/** POSTs JSON to the relay. */
function postJson(path: string, body: unknown): Promise<Response> {
  return fetch(`${relay.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
}

/** Trades a device credential for a device JWT (200), or is refused (401). */
function deviceJwt(credential: string): Promise<Response> {
  return fetch(`${relay.url}/agent/token`, { method: 'POST', headers: { Authorization: `Bearer ${credential}` } });
}

/** One JSON-RPC message POSTed to /mcp with `token` (the endpoint is stateless: no initialize needed). */
function mcpPost(token: string, message: unknown): Promise<Response> {
  return fetch(relay.mcpUrl, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify(message),
  });
}

/** tools/list on /mcp with `token`. */
function toolsList(token: string): Promise<Response> {
  return mcpPost(token, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
}

/** Registers a public OAuth client by RFC 7591 dynamic registration; returns its client_id. */
async function registerClient(name: string, redirectUri: string): Promise<string> {
  const res = await postJson('/oauth/register', {
    client_name: name,
    redirect_uris: [redirectUri],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

/** The authorization request a client sends the browser to: PKCE S256 (RFC 7636 §4.2), resource (RFC 8707). */
function authorizeUrl(clientId: string, redirectUri: string, verifier: string): string {
  const url = new URL(`${relay.url}/authorize`);
  const params = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: 'read write',
    state: 'state-from-the-client',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    resource: relay.mcpUrl,
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.href;
}

/** A local OAuth client's loopback redirect endpoint (RFC 8252 §7.3): a real listener on port 0. */
interface Callback {
  url: string;
  /** The query of the first request it receives. */
  next: Promise<URLSearchParams>;
  close(): Promise<void>;
}

async function startCallback(): Promise<Callback> {
  let received!: (query: URLSearchParams) => void;
  const next = new Promise<URLSearchParams>((resolve) => (received = resolve));
  const server = createServer((req, res) => {
    received(new URL(req.url ?? '/', 'http://127.0.0.1').searchParams);
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('Authorized; this tab can be closed.');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    next,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Fails unless the page fits a phone's width (no sideways scrolling). */
async function fitsPhone(p: Page): Promise<void> {
  const { scrollWidth, innerWidth } = await layoutWidth(p);
  expect(scrollWidth, `${p.url()} is ${scrollWidth}px wide in a ${innerWidth}px viewport`).toBeLessThanOrEqual(innerWidth);
}

/** The row of the token named `name` in the tokens table. */
function tokenRow(p: Page, name: string) {
  return p.locator('#tokens tr', { hasText: name });
}

describe('signing in', () => {
  // Headless Chromium has no sign-in prompt (a challenge it cannot answer fails the navigation),
  // so the challenge page — what a browser shows once its prompt is cancelled — is fetched, then
  // rendered in the browser; local-signin.test.ts holds the challenge's answers over HTTP.
  it('the page behind the prompt says what to type; the secret opens the dashboard, the browser keeps it, and no cookie is set', async () => {
    const asked = await fetch(`${relay.url}/dashboard`);
    expect(asked.status).toBe(401);
    await page.setContent(await asked.text());
    expect(await page.locator('main').textContent()).toMatch(/the user name npm start\s+printed \(OWNER_USER in \.dev\.vars, where it ran\), and this relay's owner secret/);
    await browser.screenshot(page, 'signin');

    expect((await page.goto(withOwnerSecret(`${relay.url}/dashboard`, relay.ownerSecret)))?.status()).toBe(200);
    // Later visits carry the secret without being asked: the browser keeps it for this origin.
    expect((await page.goto(`${relay.url}/dashboard`))?.status()).toBe(200);
    expect(await page.locator('h1').textContent()).toBe('Dashboard');
    expect(await browser.context.cookies(relay.url)).toEqual([]);
  });

  it('shows every section of the dashboard', async () => {
    await page.goto(`${relay.url}/dashboard`);
    const headings = await page.locator('h2').allTextContents();
    expect(headings).toEqual(expect.arrayContaining(['Devices', 'Editors online', 'Personal access tokens', 'Recent calls']));
    await browser.screenshot(page, 'dashboard-empty');
  });
});

describe('personal access tokens', () => {
  let token = '';

  it('creates a token with the chosen scopes, shows it once, and a reload does not show it again', async () => {
    await page.goto(`${relay.url}/dashboard`);
    await page.fill('input[name=name]', 'browser-made');
    await page.check('input[name=scope][value=exec]');
    await page.uncheck('input[name=scope][value=write]');
    await page.fill('input[name=days]', '30');
    await page.click('#tokens button[type=submit]:has-text("Create token")');
    await page.waitForURL(`${relay.url}/dashboard/tokens/new`);
    token = (await page.locator('#token').textContent()) ?? '';
    expect(token.split('.')).toHaveLength(3);
    await expect.poll(() => page.locator('[role=alert]').textContent()).toMatch(/shown only this once/);
    await browser.screenshot(page, 'token-shown-once');

    const reloaded = await page.reload();
    expect(reloaded?.status()).toBe(410);
    expect(await page.content()).not.toContain(token);

    // The token is real: the MCP endpoint takes it, and the call shows among the recent calls.
    expect((await toolsList(token)).status).toBe(200);
    const call = await mcpPost(token, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'read_buffer', arguments: { buffer: 'secret-notes.txt' } } });
    expect(call.status).toBe(200);

    await page.goto(`${relay.url}/dashboard`);
    const row = tokenRow(page, 'browser-made');
    await expect.poll(() => row.textContent()).toMatch(/read exec[\s\S]*active/);
    expect(await page.content()).not.toContain(token);
    const logged = page.locator('#calls tr', { hasText: 'read_buffer' });
    await expect.poll(() => logged.textContent()).toMatch(/browser-made \(personal access token\)[\s\S]*NO_EDITOR/);
    expect(await page.content()).not.toContain('secret-notes.txt');
  });

  it('revokes it: the row says revoked and the token stops working', async () => {
    await page.goto(`${relay.url}/dashboard`);
    await tokenRow(page, 'browser-made').locator('button:has-text("Revoke")').click();
    await page.waitForURL(`${relay.url}/dashboard#tokens`);
    await expect.poll(() => tokenRow(page, 'browser-made').textContent()).toContain('revoked');
    expect((await toolsList(token)).status).toBe(401);
  });
});

describe('pairing a device, then revoking it', () => {
  let credential = '';

  it('the owner approves a pairing request in the browser and the device gets its credential', async () => {
    const started = await postJson('/pair/device', { name: 'browser-paired', hostname: 'desk.example' });
    expect(started.status).toBe(200);
    const pairing = (await started.json()) as { device_code: string; user_code: string; verification_uri_complete: string; interval: number };
    const pending = await postJson('/pair/token', { device_code: pairing.device_code });
    expect(((await pending.json()) as { error: string }).error).toBe('authorization_pending');
    const polledAt = Date.now();

    await page.goto(pairing.verification_uri_complete);
    expect(await page.content()).toContain(pairing.user_code);
    expect(await page.content()).toContain('desk.example');
    await browser.screenshot(page, 'pair-request');
    await page.click('button:has-text("Approve")');
    await page.waitForURL(`${relay.url}/pair/approve`);
    await browser.screenshot(page, 'pair-approved');

    // RFC 8628 §3.5: a device waits `interval` seconds between polls (sooner is slow_down).
    await new Promise((r) => setTimeout(r, Math.max(0, pairing.interval * 1000 - (Date.now() - polledAt)) + 100));
    const approved = await postJson('/pair/token', { device_code: pairing.device_code });
    expect(approved.status, await approved.clone().text()).toBe(200);
    credential = ((await approved.json()) as { credential: string }).credential;
    expect(credential).not.toBe('');
    expect((await deviceJwt(credential)).status).toBe(200);
  });

  it('the dashboard lists the device with its hostname; revoking it ends its credential', async () => {
    await page.goto(`${relay.url}/dashboard`);
    const row = page.locator('#devices tr', { hasText: 'browser-paired' });
    await expect.poll(() => row.textContent()).toMatch(/desk\.example[\s\S]*offline/);
    await row.locator('button:has-text("Revoke")').click();
    await page.waitForURL(`${relay.url}/dashboard#devices`);
    await expect.poll(() => page.locator('#devices tr', { hasText: 'browser-paired' }).textContent()).toContain('revoked');
    expect((await deviceJwt(credential)).status).toBe(401);
  });
});

describe('OAuth consent, then revoking the grant', () => {
  let callback: Callback;
  let accessToken = '';

  beforeAll(async () => {
    callback = await startCallback();
  });
  afterAll(async () => {
    await callback?.close();
  });

  it('a registered client is sent to the consent page, the owner ticks scopes and allows, the client gets a code', async () => {
    const client_id = await registerClient('Browser <b>Test</b> Client', callback.url);
    const verifier = randomBytes(32).toString('base64url');
    await page.goto(authorizeUrl(client_id, callback.url, verifier));
    // The client's name is shown as text, never as markup.
    expect(await page.locator('main').textContent()).toContain('Browser <b>Test</b> Client');
    expect(await page.locator('main b').count()).toBe(0);
    await page.check('input[name=scope][value=exec]');
    await browser.screenshot(page, 'consent');
    await page.click('button[value=allow]');
    const query = await callback.next;
    expect(query.get('state')).toBe('state-from-the-client');
    const code = query.get('code') ?? '';
    expect(code).not.toBe('');

    const token = await fetch(`${relay.url}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: callback.url, client_id, code_verifier: verifier, resource: relay.mcpUrl }),
    });
    expect(token.status).toBe(200);
    const granted = (await token.json()) as { access_token: string; scope: string };
    expect(granted.scope.split(' ').sort()).toEqual(['exec', 'read', 'write']);
    accessToken = granted.access_token;
    expect((await toolsList(accessToken)).status).toBe(200);
  });

  it('the dashboard lists the grant with its client, redirect host and scopes; revoking it ends the token', async () => {
    await page.goto(`${relay.url}/dashboard`);
    const row = page.locator('#grants tr', { hasText: 'Browser <b>Test</b> Client' });
    await expect.poll(() => row.textContent()).toContain(new URL(callback.url).host);
    expect(await row.textContent()).toMatch(/read write exec|read exec write|exec read write/);
    await browser.screenshot(page, 'dashboard-desktop');
    await row.locator('button:has-text("Revoke")').click();
    await page.waitForURL(`${relay.url}/dashboard#grants`);
    expect(await page.locator('#grants tr', { hasText: 'Browser <b>Test</b> Client' }).count()).toBe(0);
    expect((await toolsList(accessToken)).status).toBe(401);
  });
});

describe('on a phone', () => {
  it('every page fits a 390 px wide screen', async () => {
    const phone = await browser.newPage(PHONE);
    try {
      await phone.goto(`${relay.url}/dashboard`);
      expect(new URL(phone.url()).pathname).toBe('/dashboard');
      await fitsPhone(phone);
      await browser.screenshot(phone, 'dashboard-phone');

      await phone.fill('input[name=name]', 'a-token-with-a-rather-long-name-for-a-phone-screen-0123456789');
      await phone.click('#tokens button[type=submit]:has-text("Create token")');
      await phone.waitForURL(`${relay.url}/dashboard/tokens/new`);
      await fitsPhone(phone);
      await browser.screenshot(phone, 'token-shown-once-phone');

      await phone.goto(`${relay.url}/pair`);
      await fitsPhone(phone);
      await phone.click('button:has-text("Get a pairing ticket")');
      await phone.waitForURL(`${relay.url}/pair/ticket`);
      expect(await phone.locator('.secret code').textContent()).toMatch(/^vimrelay pair http:\/\/127\.0\.0\.1:\d+ --ticket vrt_[\w-]{22}$/);
      await fitsPhone(phone);
      await browser.screenshot(phone, 'pair-ticket-phone');
      const started = await postJson('/pair/device', { name: 'a-device-with-a-long-name-0123456789', hostname: 'build-server-17.ci.internal.example.com' });
      const { verification_uri_complete } = (await started.json()) as { verification_uri_complete: string };
      await phone.goto(verification_uri_complete);
      await fitsPhone(phone);
      await browser.screenshot(phone, 'pair-request-phone');

      const clientId = await registerClient('An Assistant With A Long Name Registered Dynamically', 'http://127.0.0.1:9/callback');
      await phone.goto(authorizeUrl(clientId, 'http://127.0.0.1:9/callback', randomBytes(32).toString('base64url')));
      expect(await phone.locator('button[value=allow]').count()).toBe(1);
      await fitsPhone(phone);
      await browser.screenshot(phone, 'consent-phone');

      await phone.setContent(await (await fetch(`${relay.url}/dashboard`, { headers: { Authorization: ownerBasic('not the owner secret') } })).text());
      expect(await phone.locator('[role=alert]').textContent()).toContain('not the owner secret');
      await fitsPhone(phone);
      await browser.screenshot(phone, 'signin-phone');
    } finally {
      await phone.close();
    }
  });
});
