// Client ID Metadata Documents as a server-side request forgery would use them, against the real
// Worker in workerd whose every outbound request reaches a recorded test network (network.ts):
// anonymous visitors make the relay fetch nothing (at /authorize or the token endpoint); the owner
// signed in makes it fetch nothing from an IP literal in any spelling, a local name, a name
// resolving to loopback, link-local or ULA addresses, or through a redirect; a public document is
// fetched, once resolved, and its client shown as published by its domain; a document whose
// client_name breaks the rule a registration's is held to (at most 100 characters, one line, no
// control characters or runs of white space) is refused, its name never on a consent page; one
// whose name changes between the consent page and Allow is granted nothing.
import { env, exports } from 'cloudflare:workers';
import { beforeEach, describe, expect, it } from 'vitest';
import { cimdUrlRefusal, isCimdClientId, publicAddress } from '../../../worker/auth/cimd-policy.ts';
import { openConsent, postConsent, signIn, type Fetcher } from '../../helpers/consent-flow.ts';

const BASE = 'https://relay.test';
const fetcher: Fetcher = (url, init) => exports.default.fetch(new Request(url, init));
const REDIRECT = 'http://127.0.0.1:43117/callback';

async function seen(): Promise<string[]> {
  const log = env.EGRESS_LOG;
  if (!log) throw new Error('no EGRESS_LOG binding: run this file in the workers-egress project');
  return (await (await log.fetch('https://log/')).json()) as string[];
}

/** The hosts the Worker sent anything to, DNS queries apart. */
async function contacted(): Promise<string[]> {
  return (await seen()).map((u) => new URL(u)).filter((u) => u.hostname !== 'cloudflare-dns.com').map((u) => u.host);
}

/** The names the Worker asked DNS about. */
async function resolved(): Promise<string[]> {
  return (await seen()).map((u) => new URL(u)).filter((u) => u.hostname === 'cloudflare-dns.com').map((u) => u.searchParams.get('name') ?? '');
}

function authorizeUrl(clientId: string): string {
  const url = new URL(`${BASE}/authorize`);
  const params = { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, scope: 'read', state: 's', resource: `${BASE}/mcp`, code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeUt8zRoqoHjP7ZmiQ6Q', code_challenge_method: 'S256' };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}

let session: string;

beforeEach(async () => {
  session ??= await signIn(fetcher, BASE, env.OWNER_SECRET ?? '');
  await env.EGRESS_LOG?.fetch('https://log/', { method: 'DELETE' });
});

describe('anonymous visitors', () => {
  it('/authorize with a CIMD client id: sent to sign in, nothing fetched or resolved', async () => {
    const res = await fetcher(authorizeUrl('https://public.example/client.json'), { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('Location')).toMatch(/^\/signin\?next=/);
    expect(await seen()).toEqual([]);
  });

  it('/oauth/token with a CIMD client id (field, Basic, assertion): invalid_client, nothing fetched or resolved', async () => {
    const forms: [Record<string, string>, Record<string, string>][] = [
      [{ grant_type: 'authorization_code', code: 'a:b:c', code_verifier: 'x'.repeat(43), client_id: 'https://public.example/client.json', redirect_uri: REDIRECT }, {}],
      [{ grant_type: 'refresh_token', refresh_token: 'a:b:c' }, { Authorization: `Basic ${btoa(`${encodeURIComponent('https://public.example/client.json')}:`)}` }],
      [{ grant_type: 'refresh_token', refresh_token: 'a:b:c', client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: `e30.${btoa(JSON.stringify({ iss: 'https://public.example/client.json' })).replace(/=+$/, '')}.x` }, {}],
      [{ grant_type: 'authorization_code', code: 'a:b:c', client_id: 'https://127.0.0.1:8443/client.json' }, {}],
    ];
    for (const [fields, headers] of forms) {
      const res = await fetcher(`${BASE}/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields) });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'invalid_client' });
    }
    expect(await seen()).toEqual([]);
  });
});

describe('the owner signed in', () => {
  it.each([
    'https://127.0.0.1:8443/client.json',
    'https://2130706433/client.json',
    'https://0x7f.1/client.json',
    'https://[::1]/client.json',
    'https://[::ffff:127.0.0.1]/client.json',
    'https://169.254.169.254/latest/meta-data/',
    'https://10.0.0.8/client.json',
    'https://93.184.216.34/client.json',
  ])('an IP literal, %s: refused without a request', async (clientId) => {
    const res = await fetcher(authorizeUrl(clientId), { headers: { Cookie: session }, redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('could not be verified');
    expect(await seen()).toEqual([]);
  });

  it.each(['https://localhost/client.json', 'https://app.localhost/client.json', 'https://printer.local/c.json', 'https://db.internal/c.json', 'https://router.home.arpa/c.json', 'https://intranet/c.json'])(
    'a local name, %s: refused without a request, DNS included',
    async (clientId) => {
      expect((await fetcher(authorizeUrl(clientId), { headers: { Cookie: session }, redirect: 'manual' })).status).toBe(400);
      expect(await seen()).toEqual([]);
    },
  );

  it.each(['rebind.example', 'metadata.example', 'mixed.example', 'ula.example', 'nxdomain.example'])(
    'a name resolving to a private address (or to none), %s: resolved, then refused without a request to it',
    async (host) => {
      expect((await fetcher(authorizeUrl(`https://${host}/client.json`), { headers: { Cookie: session }, redirect: 'manual' })).status).toBe(400);
      expect(await resolved()).toContain(host);
      expect(await contacted()).toEqual([]);
    },
  );

  it('a redirect is never followed', async () => {
    const res = await fetcher(authorizeUrl('https://redirect.example/client.json'), { headers: { Cookie: session }, redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(await contacted()).toEqual(['redirect.example']);
  });

  it('a public document is fetched, and its client shown as published by its domain', async () => {
    const form = await openConsent(fetcher, authorizeUrl('https://public.example/client.json'), session);
    expect(form.html).toContain('Published Client');
    expect(form.html).toContain('Published by <strong>public.example</strong>');
    expect(new Set(await contacted())).toEqual(new Set(['public.example']));
  });

  // The rule a registration's client_name is held to (oauth.ts clientNameRefusal), for a client
  // that never registers: its document is refused, and no consent page shows its name.
  it.each([
    ['one character too long', '/name-101.json', 'client_name must be at most 100 characters.'],
    ['a line break', '/name-newline.json', 'client_name must not contain control characters or line breaks.'],
    ['a run of spaces', '/name-spaces.json', 'client_name must not contain runs of white space.'],
  ])('a document whose client_name has %s: refused, no consent page', async (_what, path, reason) => {
    const res = await fetcher(authorizeUrl(`https://public.example${path}`), { headers: { Cookie: session }, redirect: 'manual' });
    const html = await res.text();
    expect(res.status).toBe(400);
    expect(html).toContain('This app cannot be authorized here');
    expect(html).toContain(reason);
    expect(html).not.toContain('name="handle"');
    expect(html).not.toContain('Published Client');
  });

  // The name the owner allowed is the one the grant records: a document fetched again at Allow
  // that says another name, or one the rule refuses, gets nothing.
  it.each([
    ['another name', '/renamed.json', 'Your Bank'],
    ['a name the rule refuses', '/renamed-badly.json', 'Published Client\nvimrelay: this app is verified'],
  ])('a document that changes its client_name to %s between the consent page and Allow: nothing is granted', async (_what, path, name) => {
    const form = await openConsent(fetcher, authorizeUrl(`https://public.example${path}`), session);
    expect(form.html).toContain('Allow <strong>Published Client</strong>');
    await env.EGRESS_LOG?.fetch(`https://log/?${new URLSearchParams({ path, name })}`, { method: 'POST' });
    const res = await postConsent(fetcher, BASE, form, 'allow', ['read']);
    expect(res.status).toBe(400);
    expect(res.headers.get('Location')).toBeNull();
    expect(await res.text()).toContain('This app changed its name');
    const dashboard = await (await fetcher(`${BASE}/dashboard`, { headers: { Cookie: session } })).text();
    expect(dashboard).not.toContain(`public.example${path}`);
  });

  it('a document whose client_name stays: Allow sends the client its code, and the grant is listed under that name', async () => {
    const form = await openConsent(fetcher, authorizeUrl('https://public.example/client.json'), session);
    const res = await postConsent(fetcher, BASE, form, 'allow', ['read']);
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get('Location') ?? '').searchParams.get('code')).toBeTruthy();
    const dashboard = await (await fetcher(`${BASE}/dashboard`, { headers: { Cookie: session } })).text();
    expect(dashboard).toContain('Published Client');
  });

  it('a document whose client_name is exactly 100 characters: its consent page shows it whole', async () => {
    const form = await openConsent(fetcher, authorizeUrl('https://public.example/name-100.json'), session);
    expect(form.html).toContain(`Allow <strong>${'N'.repeat(100)}</strong>`);
  });
});

describe('the policy (pure)', () => {
  it('CIMD client ids are https URLs with a path', () => {
    expect(isCimdClientId('https://public.example/client.json')).toBe(true);
    expect(isCimdClientId('https://public.example/')).toBe(true);
    expect(isCimdClientId('https://public.example')).toBe(false);
    expect(isCimdClientId('http://public.example/client.json')).toBe(false);
    expect(isCimdClientId('a1b2c3')).toBe(false);
  });

  it('names, not addresses, and no local names', () => {
    expect(cimdUrlRefusal(new URL('https://public.example/x'))).toBeNull();
    expect(cimdUrlRefusal(new URL('https://0177.0.0.1/x'))).toContain('IP address');
    expect(cimdUrlRefusal(new URL('http://public.example/x'))).toContain('https');
    expect(cimdUrlRefusal(new URL('https://LOCALHOST./x'))).toContain('local');
  });

  it.each([
    ['93.184.216.34', true],
    ['8.8.8.8', true],
    ['2606:4700::1111', true],
    ['64:ff9b::808:808', true],
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['100.127.255.255', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['198.18.0.1', false],
    ['192.0.2.1', false],
    ['::1', false],
    ['::', false],
    ['fd00::1', false],
    ['fc00::1', false],
    ['fe80::1', false],
    ['ff02::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:8.8.8.8', false],
    ['64:ff9b::7f00:1', false],
    ['2001:db8::1', false],
    ['2002:c000:0204::1', false],
    ['2001::1', false],
    ['not an address', false],
  ])('publicAddress(%s) is %s', (address, expected) => {
    expect(publicAddress(address)).toBe(expected);
  });
});
