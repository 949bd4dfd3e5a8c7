// The local relay's sign-in against another local account's program on another port of 127.0.0.1
// (auth/basic-owner.ts). Real headless Chromium signs in to the dashboard; the other account (uid
// 65534) registers an OAuth client whose loopback redirect is its own listener, and the owner
// denies it on the consent page, so that the browser is sent there. Whatever reached that program,
// replayed by it to the relay, opens nothing: browsers send cookies to every port of a host, but
// HTTP Basic credentials only to the origin that asked for them.
import { createHash, randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect } from 'vitest';
import { launchBrowser, type TestBrowser } from '../helpers/browser.ts';
import { describeAsOther, itAsOther, spawnAsOther } from '../helpers/other-user.ts';
import { PAGE_SITE_START_MS, withOwnerSecret } from '../helpers/page-site.ts';
import { withRelay, type TestRelay } from '../helpers/relay.ts';

// The other account's program: listens on a port of 127.0.0.1, prints it, then for each request
// replays the request's Cookie and Authorization headers to the relay's dashboard and consent
// endpoint, and prints what came in and what the replays answered.
const LISTENER = `
import { createServer } from 'node:http';
const relay = process.argv[1];
const server = createServer(async (req, res) => {
  const stolen = {};
  for (const name of ['cookie', 'authorization']) if (req.headers[name]) stolen[name] = req.headers[name];
  const replay = async (path) => (await fetch(relay + path, { headers: stolen, redirect: 'manual' })).status;
  const line = { url: req.url, headers: req.headers, dashboard: await replay('/dashboard'), signin: await replay('/signin') };
  res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
  process.stdout.write(JSON.stringify(line) + '\\n');
});
server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: server.address().port }) + '\\n'));
`;

interface Visit {
  url: string;
  headers: Record<string, string>;
  dashboard: number;
  signin: number;
}

describeAsOther('another account on another port of 127.0.0.1', () => {
  let relay: TestRelay;
  let browser: TestBrowser;
  let listener: ChildProcess;
  let port: number;
  const visits: Visit[] = [];

  beforeAll(async () => {
    relay = await withRelay();
    browser = await launchBrowser();
    listener = spawnAsOther(process.execPath, ['--input-type=module', '-e', LISTENER, relay.url], { stdio: ['ignore', 'pipe', 'inherit'] });
    const lines = createInterface({ input: listener.stdout! });
    port = await new Promise<number>((resolve) => {
      lines.on('line', (line) => {
        const message = JSON.parse(line) as { port: number } | Visit;
        if ('port' in message) resolve(message.port);
        else visits.push(message);
      });
    });
  }, PAGE_SITE_START_MS);

  afterAll(async () => {
    listener?.kill();
    await browser?.close();
    await relay?.stop();
  });

  itAsOther('what the browser sends it after the owner denies its client opens neither the dashboard nor sign-in', async () => {
    const page = await browser.newPage();
    // Signing in as a person does at the browser's prompt: the owner secret as the password.
    const signedIn = await page.goto(withOwnerSecret(`${relay.url}/dashboard`, relay.ownerSecret));
    expect(signedIn?.status()).toBe(200);
    expect(await page.locator('h1').textContent()).toBe('Dashboard');

    // The other account registers a client (anonymous registration is open on the local relay)
    // whose redirect URI is its own listener, and sends the owner the authorization link.
    const callback = `http://127.0.0.1:${port}/callback`;
    const registered = await fetch(`${relay.url}/oauth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_name: 'Innocent Tool', redirect_uris: [callback], token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'] }),
    });
    expect(registered.status).toBe(201);
    const { client_id } = (await registered.json()) as { client_id: string };
    const authorize = new URL(`${relay.url}/authorize`);
    const verifier = randomBytes(32).toString('base64url');
    const params = { response_type: 'code', client_id, redirect_uri: callback, scope: 'read', state: 's', code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', resource: relay.mcpUrl };
    for (const [k, v] of Object.entries(params)) authorize.searchParams.set(k, v);

    await page.goto(authorize.href);
    expect(await page.locator('main').textContent()).toContain('Innocent Tool');
    await page.click('button[value=deny]');
    await page.waitForURL(`${callback}?*`);
    // The redirect's own request is printed once its replays are answered; the browser may also
    // have asked that origin for /favicon.ico, before or after it.
    const redirected = (): Visit | undefined => visits.find((v) => new URL(v.url, callback).pathname === '/callback');
    await expect.poll(redirected).toBeDefined();
    expect(new URL((redirected() as Visit).url, callback).searchParams.get('error')).toBe('access_denied');

    // Nothing the browser sent that origin, whatever it asked for, opens the relay.
    for (const visit of visits) {
      expect(visit.headers.authorization, visit.url).toBeUndefined();
      expect(visit.dashboard, visit.url).toBe(401);
      expect(visit.signin, visit.url).toBe(401);
    }
    // The browser itself is still signed in: the listener got nothing because nothing was sent, not because the owner had gone.
    expect((await page.goto(`${relay.url}/dashboard`))?.status()).toBe(200);
  });
});
