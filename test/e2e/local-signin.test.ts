// The local relay's owner sign-in over HTTP (worker/auth/basic-owner.ts): HTTP Basic with the owner
// secret as the password, under the owner-secret guess limits, and no cookie ever set; another
// local account's wrong guesses hold out everyone but the owner, who names OWNER_USER. The same in
// a real browser: pages.test.ts; why Basic and not the cookie: other-port.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintToken } from '../../agent/relay/admin.ts';
import { asOther, itAsOther } from '../helpers/other-user.ts';
import { ownerBasic, withRelay, type TestRelay } from '../helpers/relay.ts';

const CHALLENGE = 'Basic realm="vimrelay", charset="UTF-8"';

let relay: TestRelay;

beforeAll(async () => {
  relay = await withRelay();
}, 120_000);

afterAll(() => relay?.stop());

function get(path: string, authorization?: string): Promise<Response> {
  return fetch(`${relay.url}${path}`, { redirect: 'manual', headers: authorization === undefined ? {} : { Authorization: authorization } });
}

/** The CSRF token of the dashboard's forms, signed in with `authorization`. */
async function csrf(authorization: string): Promise<string> {
  const html = await (await get('/dashboard', authorization)).text();
  return /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
}

describe('the owner pages of the local relay', () => {
  it.each([
    ['no Authorization header', undefined],
    ['a Bearer token', 'Bearer abc'],
    ['Basic that is not base64', 'Basic ***'],
    ['Basic without a colon', `Basic ${Buffer.from('owner').toString('base64')}`],
    ['Basic with an empty password', ownerBasic('')],
  ])('%s: 401 with the Basic challenge, saying what to type, nothing counted as a guess', async (_what, authorization) => {
    for (const path of ['/dashboard', '/pair', '/signin', '/authorize?client_id=x']) {
      const res = await get(path, authorization);
      expect([path, res.status, res.headers.get('WWW-Authenticate')]).toEqual([path, 401, CHALLENGE]);
      const text = await res.text();
      expect(text).toContain('<code>OWNER_USER</code>');
      expect(text).not.toContain('role="alert"');
    }
  });

  it('the owner secret opens every page, under any user name (a colon in the password is the password\'s); no cookie is set', async () => {
    for (const auth of [ownerBasic(relay.ownerSecret), ownerBasic(relay.ownerSecret, 'someone else')]) {
      const res = await get('/dashboard', auth);
      expect(res.status).toBe(200);
      expect(res.headers.get('Set-Cookie')).toBeNull();
      expect((await get('/pair', auth)).status).toBe(200);
    }
    const signin = await get('/signin?next=/pair', ownerBasic(relay.ownerSecret));
    expect([signin.status, signin.headers.get('Location')]).toEqual([303, '/pair']);
    expect((await get('/dashboard', `Basic ${Buffer.from(`a:b:${relay.ownerSecret}`).toString('base64')}`)).status).toBe(401);
  });

  it('a wrong secret: 401 again, saying so', async () => {
    const res = await get('/dashboard', ownerBasic('not the owner secret'));
    expect([res.status, res.headers.get('WWW-Authenticate')]).toEqual([401, CHALLENGE]);
    expect(await res.text()).toMatch(/role="alert">That is not the owner secret/);
  });

  it('the sign-in form sets no cookie: posting it goes back to the challenge', async () => {
    const res = await fetch(`${relay.url}/signin`, { method: 'POST', body: new URLSearchParams({ secret: relay.ownerSecret, next: '/dashboard' }), redirect: 'manual' });
    expect([res.status, res.headers.get('Location'), res.headers.get('Set-Cookie')]).toEqual([303, '/signin', null]);
  });

  it('sign-out forms are CSRF-checked, then say what signing out is here', async () => {
    const auth = ownerBasic(relay.ownerSecret);
    const token = await csrf(auth);
    for (const path of ['/signout', '/signout/everywhere']) {
      const post = (body: Record<string, string>) => fetch(`${relay.url}${path}`, { method: 'POST', headers: { Authorization: auth }, body: new URLSearchParams(body), redirect: 'manual' });
      expect((await post({})).status).toBe(403);
      const res = await post({ csrf: token });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('change <code>OWNER_SECRET</code>');
    }
    expect((await get('/dashboard', auth)).status).toBe(200);
  });
});

describe('wrong secrets from one address', () => {
  // A relay of its own: the guesses above count too.
  beforeAll(async () => {
    await relay.stop();
    relay = await withRelay();
  }, 120_000);

  it('after 10 in a minute every attempt answers 429 with Retry-After, the right secret included, and no challenge', async () => {
    for (let i = 0; i < 10; i++) expect((await get('/dashboard', ownerBasic(`wrong ${i}`))).status).toBe(401);
    for (const auth of [ownerBasic('wrong again'), ownerBasic(relay.ownerSecret)]) {
      const res = await get('/dashboard', auth);
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('Retry-After'))).toBeGreaterThan(0);
      expect(res.headers.get('WWW-Authenticate')).toBeNull();
    }
  });
});

// Another local account (uid 65534) guessing as fast as the limits let it: ten wrong secrets from
// 127.0.0.1, then from every loopback address it can name (Miniflare takes CF-Connecting-IP from
// the client), with the user names an owner might type; prints the statuses it got.
const GUESSER = `
const [url] = process.argv.slice(1);
const basic = (user, secret) => 'Basic ' + Buffer.from(user + ':' + secret).toString('base64');
const statuses = [];
for (let a = 1; a <= 7; a++) {
  for (let i = 0; i < 10; i++) {
    const headers = { Authorization: basic(['owner', 'admin', 'root', ''][i % 4], 'guess-' + a + '-' + i) };
    if (a > 1) headers['CF-Connecting-IP'] = '127.0.0.' + a;
    statuses.push((await fetch(url + '/dashboard', { headers })).status);
  }
}
console.log(JSON.stringify(statuses));
`;

describe('wrong secrets from another local account', () => {
  let own: TestRelay;
  beforeAll(async () => {
    own = await withRelay();
  }, 120_000);
  afterAll(() => own?.stop());

  itAsOther('hold out every attempt but the owner\'s: with OWNER_USER the browser and the launcher get in; without it, the right secret is refused too', async () => {
    const guessed = asOther(process.execPath, ['--input-type=module', '-e', GUESSER, own.url]);
    expect(guessed.status, guessed.stderr).toBe(0);
    const statuses = JSON.parse(guessed.stdout) as number[];
    // Every guess it got compared was wrong (401); then everything it tried was held back (429).
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.at(-1)).toBe(429);
    expect(new Set(statuses)).toEqual(new Set([401, 429]));
    // Its limits hold for whoever does not name the owner's user name, the right secret included.
    for (const user of ['owner', 'someone else']) expect((await getFrom(own, '/dashboard', ownerBasic(own.ownerSecret, user))).status).toBe(429);
    // The owner's browser, and the launcher's admin calls, name it.
    const page = await getFrom(own, '/dashboard', ownerBasic(own.ownerSecret, own.ownerUser));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<h1>Dashboard</h1>');
    const minted = await mintToken(own.url, { user: own.ownerUser, secret: own.ownerSecret }, { kind: 'access', name: 'while-guessed' });
    expect(minted.token).toBeTruthy();
  }, 60_000);
});

function getFrom(relay: TestRelay, path: string, authorization: string): Promise<Response> {
  return fetch(`${relay.url}${path}`, { redirect: 'manual', headers: { Authorization: authorization } });
}
