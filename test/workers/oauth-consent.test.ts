// OAuth as the MCP 2026-07-28 authorization pages describe it, and the consent and dashboard rows
// a user sees, against the real Worker in workerd: the metadata advertises RFC 9207 `iss` and
// Client ID Metadata Documents (registration still accepted); every authorization response,
// success or error, carries `iss`; the consent page ticks what the client asked for (a step-up
// for `exec` comes back with exec, and write kept); the dashboard shows one row per client however often it was
// allowed, and names clients in Recent calls.
import { env, exports } from 'cloudflare:workers';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openConsent, postConsent, signIn, tickedScopes as ticked, type Fetcher } from '../helpers/consent-flow.ts';
import { BASE, deviceJwt, editor, FakeAgent, forgetRegistrations, mint, postMcp, relay, uniqueName } from './helpers.ts';

// More clients register here than a minute's limit allows (registration-limits.test.ts tests it).
beforeEach(forgetRegistrations);

const MCP = `${BASE}/mcp`;
const LOOPBACK = 'http://127.0.0.1:43118/callback';
const fetcher: Fetcher = (url, init) => exports.default.fetch(new Request(url, init));

function b64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  return { verifier, challenge: b64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)))) };
}

async function register(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await relay('/oauth/register', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_name: name, redirect_uris: [LOOPBACK], token_endpoint_auth_method: 'none', ...extra }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

function authorizeUrl(clientId: string, challenge: string, params: Record<string, string | undefined> = {}): string {
  const url = new URL(`${BASE}/authorize`);
  const all: Record<string, string | undefined> = { response_type: 'code', client_id: clientId, redirect_uri: LOOPBACK, scope: 'read write', state: 'st', resource: MCP, code_challenge: challenge, code_challenge_method: 'S256', ...params };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) url.searchParams.set(k, v);
  return url.toString();
}

/** Opens consent for `scope`, submits the boxes as ticked, trades the code; the token response. */
async function consentAsTicked(clientId: string, scope: string): Promise<{ access_token: string; scope: string }> {
  const { verifier, challenge } = await pkce();
  const form = await openConsent(fetcher, authorizeUrl(clientId, challenge, { scope }), session);
  const back = await postConsent(fetcher, BASE, form, 'allow', ticked(form.html));
  const code = new URL(back.headers.get('Location') ?? '').searchParams.get('code') ?? '';
  const res = await relay('/oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: LOOPBACK, resource: MCP }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { access_token: string; scope: string };
}

let session: string;
beforeAll(async () => {
  session = await signIn(fetcher, BASE, env.OWNER_SECRET ?? '');
});

describe('authorization server metadata (RFC 8414)', () => {
  it('advertises RFC 9207 iss and Client ID Metadata Documents, and still a registration endpoint', async () => {
    const doc = (await (await relay('/.well-known/oauth-authorization-server')).json()) as Record<string, unknown>;
    expect(doc).toMatchObject({ issuer: BASE, authorization_response_iss_parameter_supported: true, client_id_metadata_document_supported: true, registration_endpoint: `${BASE}/oauth/register` });
  });

  it('dynamic registration still works, application_type included (MCP 2026-07-28 asks clients to send it)', async () => {
    expect(await register('Native app', { application_type: 'native' })).toMatch(/\S/);
  });
});

describe('every authorization response carries iss (RFC 9207 §2)', () => {
  it('success: code, state and iss', async () => {
    const clientId = await register('iss-success');
    const { challenge } = await pkce();
    const form = await openConsent(fetcher, authorizeUrl(clientId, challenge), session);
    const back = new URL((await postConsent(fetcher, BASE, form, 'allow', ['read'])).headers.get('Location') ?? '');
    expect(back.searchParams.get('code')).toMatch(/\S/);
    expect(back.searchParams.get('state')).toBe('st');
    expect(back.searchParams.get('iss')).toBe(BASE);
  });

  it.each([
    ['the owner denied', 'access_denied', undefined],
    ['no PKCE (our own check)', 'invalid_request', { code_challenge: undefined, code_challenge_method: undefined }],
    ['a foreign resource (RFC 8707)', 'invalid_target', { resource: 'https://other.example/mcp' }],
    ['an unsupported response type', 'unsupported_response_type', { response_type: 'token' }],
  ] as const)('error, %s: %s with state and iss', async (_what, error, params) => {
    const clientId = await register(`iss-${error}`);
    const { challenge } = await pkce();
    let location: string;
    if (error === 'access_denied') {
      const form = await openConsent(fetcher, authorizeUrl(clientId, challenge), session);
      location = (await postConsent(fetcher, BASE, form, 'deny', [])).headers.get('Location') ?? '';
    } else {
      const res = await fetcher(authorizeUrl(clientId, challenge, params), { headers: { Cookie: session }, redirect: 'manual' });
      expect(res.status).toBe(302);
      location = res.headers.get('Location') ?? '';
    }
    const back = new URL(location);
    expect(`${back.origin}${back.pathname}`).toBe(LOOPBACK);
    expect(back.searchParams.get('error')).toBe(error);
    expect(back.searchParams.get('state')).toBe('st');
    expect(back.searchParams.get('iss')).toBe(BASE);
  });
});

describe('the consent page ticks what the client asked for', () => {
  it.each([
    ['read write', ['read', 'write']],
    ['read exec', ['read', 'exec']],
    ['exec', ['read', 'exec']],
    ['read write save terminal', ['read', 'write', 'save', 'terminal']],
    ['', ['read', 'write']],
    ['profile email', ['read', 'write']],
  ])('scope "%s" opens with %j ticked', async (scope, expected) => {
    const clientId = await register('tick');
    const { challenge } = await pkce();
    const form = await openConsent(fetcher, authorizeUrl(clientId, challenge, { scope: scope === '' ? undefined : scope }), session);
    expect(ticked(form.html)).toEqual(expected);
  });

  it('a step-up for exec, asked as the challenge says and allowed as the page opens, gets a token that may run commands and still edit', async () => {
    const clientId = await register('step-up');
    const first = await consentAsTicked(clientId, 'read write');
    const run = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'run_command', arguments: { commands: ['echo 1'] } } };
    const refused = await postMcp(first.access_token, run);
    expect(refused.status).toBe(403);
    const asked = /scope="([^"]*)"/.exec(refused.headers.get('WWW-Authenticate') ?? '')?.[1];
    expect(asked).toBe('read write exec');
    const stepped = await consentAsTicked(clientId, asked ?? '');
    expect(stepped.scope.split(' ').sort()).toEqual(['exec', 'read', 'write']);
    // Past the scope check: the call reaches the Hub, which has no editor to give it to.
    const res = await postMcp(stepped.access_token, run);
    expect(res.status).toBe(200);
    expect(JSON.stringify(await res.json())).toContain('NO_EDITOR');
  });
});

describe('the agent hears the client named as the consent page named it', () => {
  it('an OAuth client by the name the owner allowed, a token by its own, each beside its id', async () => {
    const { agent } = await FakeAgent.online((await deviceJwt(uniqueName('named-'))).token, [editor('nvim-1')]);
    try {
      const name = uniqueName('MCP CLI Proxy ');
      const clientId = await register(name);
      const oauth = await consentAsTicked(clientId, 'read write');
      const pat = await mint({ kind: 'access', name: uniqueName('local-') });
      const read = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_buffer', arguments: {} } };
      for (const [token, id, shown] of [
        [oauth.access_token, clientId, name],
        [pat.token, `pat:${pat.name}`, `${pat.name} (personal access token)`],
      ] as const) {
        const answered = postMcp(token, read);
        const call = await agent.next('call');
        expect([call.client, call.client_name]).toEqual([id, shown]);
        agent.answer(call.id, { ok: false, error: { code: 'BUFFER_NOT_FOUND', message: 'm', hint: 'h' } });
        expect((await answered).status).toBe(200);
      }
    } finally {
      await agent.close();
    }
  });
});

describe('the dashboard', () => {
  async function dashboard(): Promise<{ body: string; csrf: string }> {
    const body = await (await relay('/dashboard', { headers: { Cookie: session } })).text();
    return { body, csrf: /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '' };
  }
  const grantsOf = (body: string): string => body.slice(body.indexOf('id="grants"'), body.indexOf('id="tokens"'));

  it('one row per client: allowing it again updates the row (scopes, count); Revoke ends every grant', async () => {
    const name = uniqueName('Twice Allowed ');
    const clientId = await register(name);
    const a = await consentAsTicked(clientId, 'read');
    const b = await consentAsTicked(clientId, 'read exec');
    const grants = grantsOf((await dashboard()).body);
    expect(grants.split(`<strong>${name}</strong>`).length - 1).toBe(1);
    const row = grants.slice(grants.indexOf(`<strong>${name}</strong>`));
    expect(row.slice(0, row.indexOf('</tr>'))).toMatch(/<td>read exec<\/td>[\s\S]*2 authorizations/);

    const { csrf } = await dashboard();
    const res = await relay('/dashboard/grants/revoke', { method: 'POST', headers: { Cookie: session }, body: new URLSearchParams({ client: clientId, csrf }), redirect: 'manual' });
    expect(res.status).toBe(303);
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    expect((await postMcp(a.access_token, list)).status).toBe(401);
    expect((await postMcp(b.access_token, list)).status).toBe(401);
    expect(grantsOf((await dashboard()).body)).not.toContain(`<strong>${name}</strong>`);
  });

  it('Recent calls name the client: an OAuth client by its registered name, a token by its own', async () => {
    const name = uniqueName('Named Assistant ');
    const clientId = await register(name);
    const oauth = await consentAsTicked(clientId, 'read');
    const pat = await mint({ kind: 'access', name: uniqueName('laptop-') });
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_buffer', arguments: {} } };
    expect((await postMcp(oauth.access_token, call)).status).toBe(200);
    expect((await postMcp(pat.token, call)).status).toBe(200);
    const { body } = await dashboard();
    const calls = body.slice(body.indexOf('id="calls"'));
    expect(calls).toContain(`<span title="${clientId}">${name}</span>`);
    expect(calls).toContain(`<span title="pat:${pat.name}">${pat.name} (personal access token)</span>`);
  });
});
