// The pages a user meets, in real headless Chromium against a real relay (local workerd): the front
// page and a browser's 404; the consent page of a step-up request (`read exec`) opening with read
// and exec ticked, allowed untouched, giving a token that holds exec; the pairing page's list of
// waiting requests, dismissed from the browser; and signing out from the dashboard.
// Screenshots under test-artifacts/screenshots/.
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestBrowser } from '../helpers/browser.ts';
import { PAGE_SITE_START_MS, startPageSite, stopPageSite, withOwnerSecret } from '../helpers/page-site.ts';
import type { TestRelay } from '../helpers/relay.ts';

let relay: TestRelay;
let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  ({ relay, browser, page } = await startPageSite());
}, PAGE_SITE_START_MS);

afterAll(() => stopPageSite({ relay, browser }));

async function signIn(p: Page): Promise<void> {
  expect((await p.goto(withOwnerSecret(`${relay.url}/dashboard`, relay.ownerSecret)))?.status()).toBe(200);
}

describe('the front page and 404s', () => {
  it('/ says what this is and shows the MCP URL to paste; a missing path is a page', async () => {
    await page.goto(relay.url);
    expect(await page.locator('h1').textContent()).toContain('vimrelay');
    expect(await page.locator('main code').first().textContent()).toBe(`${relay.url}/mcp`);
    expect(await page.locator('a[href="/dashboard"]').count()).toBe(1);
    await browser.screenshot(page, 'home');
    const missing = await page.goto(`${relay.url}/no/such/page`);
    expect(missing?.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Not found');
  });
});

describe('a step-up consent', () => {
  it('opens with the requested scopes ticked, and Allow as it stands grants exec', async () => {
    let received!: (q: URLSearchParams) => void;
    const next = new Promise<URLSearchParams>((resolve) => (received = resolve));
    const callback = createServer((req, res) => {
      received(new URL(req.url ?? '/', 'http://127.0.0.1').searchParams);
      res.end('ok');
    });
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    const redirectUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    try {
      const reg = await fetch(`${relay.url}/oauth/register`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ client_name: 'Stepping Up', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
      });
      const { client_id } = (await reg.json()) as { client_id: string };
      const verifier = randomBytes(32).toString('base64url');
      const url = new URL(`${relay.url}/authorize`);
      const params = {
        response_type: 'code',
        client_id,
        redirect_uri: redirectUri,
        scope: 'read exec',
        state: 'st',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        resource: relay.mcpUrl,
      };
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);

      await signIn(page);
      await page.goto(url.href);
      const box = (scope: string) => page.locator(`input[name=scope][value=${scope}]`);
      expect(await box('read').isChecked()).toBe(true);
      expect(await box('exec').isChecked()).toBe(true);
      for (const scope of ['write', 'open', 'save', 'terminal']) expect(await box(scope).isChecked(), scope).toBe(false);
      await browser.screenshot(page, 'consent-step-up');
      await page.click('button[value=allow]');
      const query = await next;
      expect(query.get('iss')).toBe(relay.url);
      const token = await fetch(`${relay.url}/oauth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: query.get('code') ?? '', redirect_uri: redirectUri, client_id, code_verifier: verifier, resource: relay.mcpUrl }),
      });
      expect(((await token.json()) as { scope: string }).scope.split(' ').sort()).toEqual(['exec', 'read']);
    } finally {
      await new Promise<void>((resolve) => callback.close(() => resolve()));
    }
  });
});

describe('the pairing page', () => {
  it('lists requests waiting, and dismisses them from the browser', async () => {
    for (const name of ['stranger-1', 'stranger-2']) {
      const res = await fetch(`${relay.url}/pair/device`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name, hostname: `${name}.example` }) });
      expect(res.status).toBe(200);
    }
    await page.goto(`${relay.url}/pair`);
    expect(await page.locator('tr', { hasText: 'stranger-1' }).count()).toBe(1);
    await browser.screenshot(page, 'pair-waiting');
    await page.locator('tr', { hasText: 'stranger-1' }).locator('button:has-text("Dismiss")').click();
    await page.waitForURL(`${relay.url}/pair`);
    expect(await page.locator('tr', { hasText: 'stranger-1' }).count()).toBe(0);
    await page.click('button:has-text("Dismiss all")');
    await page.waitForURL(`${relay.url}/pair`);
    expect(await page.locator('main').textContent()).toContain('No pairing request is waiting');
  });
});

describe('signing out', () => {
  it('Sign out says how: quit the browser, or change the secret to sign every browser out', async () => {
    await signIn(page);
    await page.goto(`${relay.url}/dashboard`);
    expect(await page.locator('#sessions').textContent()).toContain('change OWNER_SECRET in .dev.vars');
    expect(await page.locator('button:has-text("Sign out everywhere")').count()).toBe(0);
    await browser.screenshot(page, 'dashboard-sign-ins');

    await page.click('header button:has-text("Sign out")');
    await page.waitForURL(`${relay.url}/signout`);
    expect(await page.locator('main').textContent()).toContain('to sign this browser out, quit it');
    await browser.screenshot(page, 'sign-out');
  });
});
