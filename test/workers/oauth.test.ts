// OAuth 2.1 for MCP clients (MCP authorization spec 2025-06-18 / 2025-11-25) against the real
// Worker in workerd: discovery documents, the 401 and 403 challenges, CORS, the registration
// policy, the consent page, the token endpoint, and one test per failure class. The owner's side
// goes through the real sign-in and consent forms (test/helpers/consent-flow.ts).
import { env, exports } from 'cloudflare:workers';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { OWNER_ACCOUNT } from '../../worker/account.ts';
import { oauthHelpers } from '../../worker/auth/oauth.ts';
import { approve, openConsent, postConsent, signIn, type Fetcher } from '../helpers/consent-flow.ts';
import { BASE, forgetRegistrations, mcpClient, mcpHeaders, mint, postMcp, relay, uniqueName } from './helpers.ts';

// More clients register here than a minute's limit allows (registration-limits.test.ts tests it).
beforeEach(forgetRegistrations);

const MCP = `${BASE}/mcp`;
const METADATA = `${BASE}/.well-known/oauth-protected-resource/mcp`;
const LOOPBACK = 'http://127.0.0.1:43117/callback';
const listTools = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

const fetcher: Fetcher = (url, init) => exports.default.fetch(new Request(url, init));

function b64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** A PKCE pair (RFC 7636 §4.1, §4.2: S256). */
async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = b64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  return { verifier, challenge };
}

interface Registered {
  client_id: string;
  client_secret?: string;
  redirect_uris: string[];
}

/** RFC 7591 registration; the raw response. */
function register(redirectUris: string[], extra: Record<string, unknown> = {}): Promise<Response> {
  return relay('/oauth/register', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_name: 'Test client', redirect_uris: redirectUris, token_endpoint_auth_method: 'none', ...extra }),
  });
}

async function registered(redirectUris: string[] = [LOOPBACK], extra: Record<string, unknown> = {}): Promise<Registered> {
  const res = await register(redirectUris, extra);
  if (res.status !== 201) throw new Error(`registration answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Registered;
}

function authorizeUrl(params: Record<string, string | undefined>): string {
  const url = new URL(`${BASE}/authorize`);
  const all: Record<string, string | undefined> = { response_type: 'code', scope: 'read write', state: 'st-1', resource: MCP, code_challenge_method: 'S256', ...params };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) url.searchParams.set(k, v);
  return url.toString();
}

function tokenRequest(params: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return relay('/oauth/token', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(params) });
}

interface Tokens {
  access_token: string;
  refresh_token: string;
  scope: string;
  token_type: string;
  expires_in: number;
}

let session: string;
beforeAll(async () => {
  session = await signIn(fetcher, BASE, env.OWNER_SECRET ?? '');
});

/** A client, an approved authorization and its code. */
async function authorized(scopes: string[] = ['read', 'write']): Promise<{ client: Registered; verifier: string; code: string }> {
  const client = await registered();
  const { verifier, challenge } = await pkce();
  const back = await approve(fetcher, BASE, authorizeUrl({ client_id: client.client_id, redirect_uri: LOOPBACK, code_challenge: challenge }), session, scopes);
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`no code in ${back.toString()}`);
  return { client, verifier, code };
}

async function exchange(client: Registered, code: string, verifier: string): Promise<Tokens> {
  const res = await tokenRequest({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: client.client_id, redirect_uri: LOOPBACK, resource: MCP });
  if (res.status !== 200) throw new Error(`token answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Tokens;
}

async function oauthError(res: Response): Promise<string> {
  return ((await res.json()) as { error: string }).error;
}

describe('discovery', () => {
  it.each(['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'])(
    'protected resource metadata at %s names exactly the MCP URL (RFC 9728 §3) and every scope it takes',
    async (path) => {
      const res = await relay(path);
      expect(res.status).toBe(200);
      const doc = (await res.json()) as Record<string, unknown>;
      expect(doc.resource).toBe(MCP);
      expect(doc.authorization_servers).toEqual([BASE]);
      // Every scope a client may ask for, the step-up ones too (RFC 9728 §2); the challenge asks for fewer.
      expect(doc.scopes_supported).toEqual(['read', 'write', 'open', 'save', 'exec', 'terminal']);
      expect(doc.bearer_methods_supported).toEqual(['header']);
      expect(doc.resource_name).toBe('vimrelay');
    },
  );

  it('authorization server metadata (RFC 8414): endpoints, S256 only, the six scopes, DCR and CIMD', async () => {
    const res = await relay('/.well-known/oauth-authorization-server');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc).toMatchObject({
      issuer: BASE,
      authorization_endpoint: `${BASE}/authorize`,
      token_endpoint: `${BASE}/oauth/token`,
      registration_endpoint: `${BASE}/oauth/register`,
      code_challenge_methods_supported: ['S256'],
      scopes_supported: ['read', 'write', 'open', 'save', 'exec', 'terminal'],
      client_id_metadata_document_supported: true,
    });
    expect(doc.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
  });
});

describe('challenges', () => {
  it('401 names the resource metadata and the scopes of an ordinary session, read and write (RFC 9728 §5.1, RFC 6750 §3)', async () => {
    const res = await postMcp(null, listTools);
    expect(res.status).toBe(401);
    expect(res.headers.get('WWW-Authenticate')).toBe(`Bearer realm="OAuth", resource_metadata="${METADATA}", scope="read write"`);
  });

  it('403 insufficient_scope with a PAT lacking the scope, naming every scope needed, an ordinary session\'s too (MCP 2025-11-25)', async () => {
    const reader = await mint({ kind: 'access', name: uniqueName('pat-read'), scopes: ['read'] });
    const res = await postMcp(reader.token, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'save_buffer', arguments: { buffer: 1 } } });
    expect(res.status).toBe(403);
    expect(res.headers.get('WWW-Authenticate')).toBe(
      `Bearer realm="OAuth", error="insufficient_scope", scope="read write save", resource_metadata="${METADATA}", error_description="This call needs the save scope."`,
    );
  });

  it('a batch is refused whole when one call is outside the scopes', async () => {
    const reader = await mint({ kind: 'access', name: uniqueName('pat-batch'), scopes: ['read', 'write'] });
    const call = (id: number, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
    const res = await postMcp(reader.token, [call(1, 'list_editors'), call(2, 'run_command'), call(3, 'send_to_terminal')]);
    expect(res.status).toBe(403);
    expect(res.headers.get('WWW-Authenticate')).toContain('scope="read write exec terminal"');
  });
});

describe('/mcp paths', () => {
  it('a path below /mcp is no endpoint, even with a valid token', async () => {
    const pat = await mint({ kind: 'access', name: uniqueName('sub') });
    const res = await relay('/mcp/tools', { method: 'POST', headers: mcpHeaders(pat.token), body: JSON.stringify(listTools) });
    expect(res.status).toBe(404);
  });
});

describe('CORS', () => {
  const origin = 'http://localhost:6274';

  it('answers a preflight on /mcp allowing authorization, content-type and mcp-protocol-version', async () => {
    const res = await relay('/mcp', {
      method: 'OPTIONS',
      headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type, mcp-protocol-version' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe(origin);
    const allowed = (res.headers.get('Access-Control-Allow-Headers') ?? '').toLowerCase();
    for (const h of ['authorization', 'content-type', 'mcp-protocol-version']) expect(allowed).toContain(h);
    expect(res.headers.get('Access-Control-Allow-Methods')).toContain('POST');
  });

  it('exposes WWW-Authenticate and Mcp-Session-Id on /mcp answers', async () => {
    const res = await postMcp(null, listTools, { Origin: origin });
    expect(res.status).toBe(401);
    const exposed = res.headers.get('Access-Control-Expose-Headers') ?? '';
    expect(exposed).toContain('WWW-Authenticate');
    expect(exposed).toContain('Mcp-Session-Id');
  });

  it('serves the metadata documents cross-origin, preflight included', async () => {
    const pre = await relay('/.well-known/oauth-protected-resource/mcp', { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'mcp-protocol-version' } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('Access-Control-Allow-Headers')?.toLowerCase()).toContain('mcp-protocol-version');
    const res = await relay('/.well-known/oauth-authorization-server', { headers: { Origin: origin } });
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe(origin);
  });

  it('a foreign Origin gets no preflight grant on /mcp', async () => {
    const res = await relay('/mcp', { method: 'OPTIONS', headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' } });
    expect(res.status).toBe(403);
    expect(res.headers.get('Access-Control-Allow-Origin')).toBeNull();
  });
});

describe('registration policy', () => {
  it.each([
    'https://claude.ai/api/mcp/auth_callback',
    'https://claude.com/api/mcp/auth_callback',
    'https://chatgpt.com/connector_platform_oauth_redirect',
    'https://chatgpt.com/connector/oauth/c_0123abcDEF',
    'http://127.0.0.1:33418/callback',
    'http://localhost/cb',
    'http://[::1]:8080/cb',
    'https://app.example/oauth/callback',
  ])('accepts %s', async (uri) => {
    const res = await register([uri]);
    expect(res.status).toBe(201);
    expect(((await res.json()) as Registered).redirect_uris).toEqual([uri]);
  });

  it.each([
    'https://evil.example/cb',
    'https://chatgpt.com/connector/oauth/a/b',
    'https://claude.ai/api/mcp/auth_callback/x',
    'https://app.example/oauth/callback2',
    'https://localhost.evil.example/cb',
  ])('refuses %s with invalid_redirect_uri (RFC 7591 §3.2.2)', async (uri) => {
    const res = await register([uri]);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; error_description: string };
    expect(body.error).toBe('invalid_redirect_uri');
    expect(body.error_description).toContain(uri);
  });

  it('refuses a registration when any one of its URIs is refused', async () => {
    expect((await register([LOOPBACK, 'https://evil.example/cb'])).status).toBe(400);
  });

  it('applies again at /authorize, to clients that never registered here (rendered, never redirected)', async () => {
    // A client created administratively skips registration, as a metadata-document client does.
    const client = await oauthHelpers(env, BASE).createClient({ redirectUris: ['https://evil.example/cb'], clientName: 'Admin-made', tokenEndpointAuthMethod: 'none' });
    const { challenge } = await pkce();
    const res = await relay(authorizeUrl({ client_id: client.clientId, redirect_uri: 'https://evil.example/cb', code_challenge: challenge }).slice(BASE.length), { headers: { Cookie: session }, redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('Location')).toBeNull();
    expect(await res.text()).toContain('https://evil.example/cb is not a hosted assistant callback');
  });
});

describe('consent page', () => {
  it('without a session: sign in first, then back to the whole /authorize URL', async () => {
    const client = await registered();
    const { challenge } = await pkce();
    const url = authorizeUrl({ client_id: client.client_id, redirect_uri: LOOPBACK, code_challenge: challenge });
    const res = await relay(url.slice(BASE.length), { redirect: 'manual' });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('Location') ?? '', BASE);
    expect(location.pathname).toBe('/signin');
    expect(location.searchParams.get('next')).toBe(url.slice(BASE.length));
  });

  it('shows who asks (escaped), where the tokens go, a loopback warning, the six scopes with read and write ticked', async () => {
    const client = await registered([LOOPBACK], { client_name: '<script>alert(1)</script> "Evil"' });
    const { challenge } = await pkce();
    const form = await openConsent(fetcher, authorizeUrl({ client_id: client.client_id, redirect_uri: LOOPBACK, code_challenge: challenge }), session);
    const { html, response } = form;
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &quot;Evil&quot;');
    expect(html).toContain('registered itself');
    expect(html).toContain('<strong>127.0.0.1</strong>');
    expect(html).toContain('program on this computer');
    for (const scope of ['read', 'write']) expect(html).toMatch(new RegExp(`name="scope" value="${scope}" checked`));
    for (const scope of ['open', 'save', 'exec', 'terminal']) expect(html).toMatch(new RegExp(`name="scope" value="${scope}">`));
    const csp = response.headers.get('Content-Security-Policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self' http://127.0.0.1:43117");
    expect(form.cookies.some((c) => c.startsWith('__Host-oauth-consent'))).toBe(true);
  });

  it('a hosted assistant gets no loopback warning', async () => {
    const client = await registered(['https://claude.ai/api/mcp/auth_callback']);
    const { challenge } = await pkce();
    const form = await openConsent(fetcher, authorizeUrl({ client_id: client.client_id, redirect_uri: 'https://claude.ai/api/mcp/auth_callback', code_challenge: challenge }), session);
    expect(form.html).toContain('<strong>claude.ai</strong>');
    expect(form.html).not.toContain('program on this computer');
  });

  it('Deny sends access_denied back with state and iss (RFC 6749 §4.1.2.1, RFC 9207)', async () => {
    const client = await registered();
    const { challenge } = await pkce();
    const form = await openConsent(fetcher, authorizeUrl({ client_id: client.client_id, redirect_uri: LOOPBACK, code_challenge: challenge }), session);
    const res = await postConsent(fetcher, BASE, form, 'deny', []);
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get('Location') ?? '');
    expect(`${back.origin}${back.pathname}`).toBe(LOOPBACK);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('st-1');
    expect(back.searchParams.get('iss')).toBe(BASE);
  });

  it('a consent post without the CSRF token is 403 and issues nothing', async () => {
    const client = await registered();
    const { challenge } = await pkce();
    const form = await openConsent(fetcher, authorizeUrl({ client_id: client.client_id, redirect_uri: LOOPBACK, code_challenge: challenge }), session);
    const res = await postConsent(fetcher, BASE, form, 'allow', ['read'], ['csrf']);
    expect(res.status).toBe(403);
    expect(res.headers.get('Location')).toBeNull();
    // The form still works with it: the refusal consumed nothing.
    expect((await postConsent(fetcher, BASE, form, 'allow', ['read'])).status).toBe(303);
  });

  it('a replayed consent handle is refused (single use)', async () => {
    const client = await registered();
    const { challenge } = await pkce();
    const form = await openConsent(fetcher, authorizeUrl({ client_id: client.client_id, redirect_uri: LOOPBACK, code_challenge: challenge }), session);
    expect((await postConsent(fetcher, BASE, form, 'allow', ['read'])).status).toBe(303);
    const again = await postConsent(fetcher, BASE, form, 'allow', ['read']);
    expect(again.status).toBe(400);
    expect(again.headers.get('Location')).toBeNull();
  });

  it('a handle from another browser (without its binding cookie) is refused', async () => {
    const client = await registered();
    const { challenge } = await pkce();
    const form = await openConsent(fetcher, authorizeUrl({ client_id: client.client_id, redirect_uri: LOOPBACK, code_challenge: challenge }), session);
    const res = await postConsent(fetcher, BASE, { ...form, cookies: [session] }, 'allow', ['read']);
    expect(res.status).toBe(400);
  });

  it('nothing ticked: refused, nothing issued', async () => {
    const client = await registered();
    const { challenge } = await pkce();
    const form = await openConsent(fetcher, authorizeUrl({ client_id: client.client_id, redirect_uri: LOOPBACK, code_challenge: challenge }), session);
    expect((await postConsent(fetcher, BASE, form, 'allow', [])).status).toBe(400);
  });
});

describe('the flow', () => {
  it('code -> tokens (no-store) -> an MCP call with the access token', async () => {
    const { client, verifier, code } = await authorized(['read', 'write']);
    const res = await tokenRequest({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: client.client_id, redirect_uri: LOOPBACK, resource: MCP });
    expect(res.status).toBe(200);
    expect(res.headers.get('Cache-Control')).toContain('no-store'); // OAuth 2.1 §3.2.3
    const tokens = (await res.json()) as Tokens & { resource?: string };
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.scope.split(' ').sort()).toEqual(['read', 'write']);
    expect(tokens.refresh_token).toBeTruthy();
    const mcp = await mcpClient(tokens.access_token);
    try {
      expect((await mcp.listTools()).tools.length).toBeGreaterThan(0);
      const result = await mcp.callTool({ name: 'list_editors', arguments: {} });
      expect(result.isError).toBeFalsy();
    } finally {
      await mcp.close();
    }
  });

  it('the ticked scopes bound the token: a read-only grant gets 403 insufficient_scope for a write', async () => {
    const { client, verifier, code } = await authorized(['read']);
    const tokens = await exchange(client, code, verifier);
    expect(tokens.scope).toBe('read');
    const res = await postMcp(tokens.access_token, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'write_buffer', arguments: { buffer: 1, text: 'x' } } });
    expect(res.status).toBe(403);
    expect(res.headers.get('WWW-Authenticate')).toContain('error="insufficient_scope", scope="read write"');
  });

  it('refresh rotates: each refresh gives a new refresh token, which works', async () => {
    const { client, verifier, code } = await authorized();
    const first = await exchange(client, code, verifier);
    const refresh = (token: string) => tokenRequest({ grant_type: 'refresh_token', refresh_token: token, client_id: client.client_id, resource: MCP });
    const r1 = await refresh(first.refresh_token);
    expect(r1.status).toBe(200);
    expect(r1.headers.get('Cache-Control')).toContain('no-store');
    const second = (await r1.json()) as Tokens;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await postMcp(second.access_token, listTools)).status).toBe(200);
    const r2 = await refresh(second.refresh_token);
    expect(r2.status).toBe(200);
    expect((await postMcp(((await r2.json()) as Tokens).access_token, listTools)).status).toBe(200);
  });

  it('a revoked grant: its access and refresh tokens stop working', async () => {
    const { client, verifier, code } = await authorized();
    const tokens = await exchange(client, code, verifier);
    expect((await postMcp(tokens.access_token, listTools)).status).toBe(200);
    const helpers = oauthHelpers(env, BASE);
    const grants = await helpers.listUserGrants(OWNER_ACCOUNT);
    const grant = grants.items.find((g) => g.clientId === client.client_id);
    expect(grant).toBeDefined();
    expect(grant?.metadata).toMatchObject({ clientName: 'Test client' });
    await helpers.revokeGrant(grant?.id ?? '', OWNER_ACCOUNT);
    const res = await postMcp(tokens.access_token, listTools);
    expect(res.status).toBe(401);
    expect(res.headers.get('WWW-Authenticate')).toContain('error="invalid_token"');
    const refreshed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id });
    expect(await oauthError(refreshed)).toBe('invalid_grant');
  });

  it('a second authorization of the same client keeps the first grant (revokeExistingGrants: false)', async () => {
    const a = await authorized();
    const first = await exchange(a.client, a.code, a.verifier);
    const { challenge, verifier } = await pkce();
    const back = await approve(fetcher, BASE, authorizeUrl({ client_id: a.client.client_id, redirect_uri: LOOPBACK, code_challenge: challenge }), session, ['read']);
    await exchange(a.client, back.searchParams.get('code') ?? '', verifier);
    expect((await postMcp(first.access_token, listTools)).status).toBe(200);
  });
});

// RFC 9700 §4.14.2 (refresh token rotation): a refresh token is exchanged once; one presented
// again, by the thief or by the client it was stolen from, revokes the whole grant.
describe('refresh token reuse', () => {
  /** A client with its first tokens, and its refresh request. */
  async function grantWithTokens(): Promise<{ first: Tokens; refresh: (token: string) => Promise<Response> }> {
    const { client, verifier, code } = await authorized();
    const first = await exchange(client, code, verifier);
    const refresh = (token: string) => tokenRequest({ grant_type: 'refresh_token', refresh_token: token, client_id: client.client_id, resource: MCP });
    return { first, refresh };
  }

  async function refreshed(res: Response): Promise<Tokens> {
    if (res.status !== 200) throw new Error(`refresh answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as Tokens;
  }

  /** Every access token refused at /mcp and every refresh token refused at the token endpoint. */
  async function expectDead(refresh: (token: string) => Promise<Response>, ...tokens: Tokens[]): Promise<void> {
    for (const t of tokens) {
      expect((await postMcp(t.access_token, listTools)).status).toBe(401);
      const again = await refresh(t.refresh_token);
      expect(again.status).toBe(400);
      expect(await oauthError(again)).toBe('invalid_grant');
    }
  }

  it('the client refreshed, then a thief replays the old refresh token: refused, and the grant is revoked', async () => {
    const { first, refresh } = await grantWithTokens();
    const client = await refreshed(await refresh(first.refresh_token));
    expect((await postMcp(client.access_token, listTools)).status).toBe(200);
    const replay = await refresh(first.refresh_token);
    expect(replay.status).toBe(400);
    expect(await oauthError(replay)).toBe('invalid_grant');
    await expectDead(refresh, client, first);
  });

  it('a thief refreshed twice with a stolen token: the client\'s use of it revokes the grant, the thief\'s newest tokens included', async () => {
    const { first, refresh } = await grantWithTokens();
    const thief = await refreshed(await refresh(first.refresh_token));
    const thiefAgain = await refreshed(await refresh(thief.refresh_token));
    expect((await postMcp(thiefAgain.access_token, listTools)).status).toBe(200);
    const client = await refresh(first.refresh_token);
    expect(client.status).toBe(400);
    expect(await oauthError(client)).toBe('invalid_grant');
    await expectDead(refresh, thiefAgain);
  });

  it('two exchanges of one refresh token at once: the grant is revoked, whatever either was answered', async () => {
    const { first, refresh } = await grantWithTokens();
    const answers = await Promise.all([refresh(first.refresh_token), refresh(first.refresh_token)]);
    expect(answers.map((a) => a.status)).not.toEqual([200, 200]);
    const issued: Tokens[] = [];
    for (const a of answers) if (a.status === 200) issued.push((await a.json()) as Tokens);
    await expectDead(refresh, first, ...issued);
  });

  it('a refresh token never issued, naming the grant, revokes nothing; a refused exchange does not use the token up', async () => {
    const { first, refresh } = await grantWithTokens();
    const [user, grant] = first.refresh_token.split(':');
    const madeUp = await refresh(`${user}:${grant}:${'A'.repeat(32)}`);
    expect(await oauthError(madeUp)).toBe('invalid_grant');
    expect(await oauthError(await refresh(`${user}:${grant}:${'A'.repeat(32)}`))).toBe('invalid_grant');
    const other = await registered();
    const wrongClient = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: other.client_id, resource: MCP });
    expect(await oauthError(wrongClient)).toBe('invalid_grant');
    expect((await postMcp(first.access_token, listTools)).status).toBe(200);
    const next = await refreshed(await refresh(first.refresh_token));
    expect((await postMcp(next.access_token, listTools)).status).toBe(200);
  });
});

describe('failure classes', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('no PKCE (public client): the error goes back to the client, nothing is shown', async () => {
    const client = await registered();
    const res = await relay(authorizeUrl({ client_id: client.client_id, redirect_uri: LOOPBACK, code_challenge_method: undefined }).slice(BASE.length), { headers: { Cookie: session }, redirect: 'manual' });
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get('Location') ?? '');
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('no PKCE (confidential client): refused too (OAuth 2.1 §4.1.1)', async () => {
    const client = await registered([LOOPBACK], { token_endpoint_auth_method: 'client_secret_basic' });
    expect(client.client_secret).toBeTruthy();
    const res = await relay(authorizeUrl({ client_id: client.client_id, redirect_uri: LOOPBACK, code_challenge_method: undefined }).slice(BASE.length), { headers: { Cookie: session }, redirect: 'manual' });
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get('Location') ?? '');
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('error_description')).toContain('PKCE');
  });

  it('PKCE plain is refused (S256 only)', async () => {
    const client = await registered();
    const res = await relay(authorizeUrl({ client_id: client.client_id, redirect_uri: LOOPBACK, code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }).slice(BASE.length), { headers: { Cookie: session }, redirect: 'manual' });
    expect(new URL(res.headers.get('Location') ?? '').searchParams.get('error')).toBe('invalid_request');
  });

  it('wrong verifier: invalid_grant (RFC 7636 §4.6)', async () => {
    const { client, code } = await authorized();
    const { verifier: other } = await pkce();
    const res = await tokenRequest({ grant_type: 'authorization_code', code, code_verifier: other, client_id: client.client_id, redirect_uri: LOOPBACK });
    expect(res.status).toBe(400);
    expect(await oauthError(res)).toBe('invalid_grant');
  });

  it('wrong redirect URI at /authorize: rendered, never redirected (RFC 6749 §4.1.2.1)', async () => {
    const client = await registered();
    const { challenge } = await pkce();
    const res = await relay(authorizeUrl({ client_id: client.client_id, redirect_uri: 'http://127.0.0.1:43117/other', code_challenge: challenge }).slice(BASE.length), { headers: { Cookie: session }, redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('Location')).toBeNull();
  });

  it('wrong redirect URI at the token endpoint: invalid_grant', async () => {
    const { client, verifier, code } = await authorized();
    const res = await tokenRequest({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: client.client_id, redirect_uri: 'http://127.0.0.1:43117/other' });
    expect(res.status).toBe(400);
    expect(await oauthError(res)).toBe('invalid_grant');
  });

  it('replayed code: invalid_grant the second time', async () => {
    const { client, verifier, code } = await authorized();
    await exchange(client, code, verifier);
    const res = await tokenRequest({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: client.client_id, redirect_uri: LOOPBACK });
    expect(res.status).toBe(400);
    expect(await oauthError(res)).toBe('invalid_grant');
  });

  it('wrong resource: invalid_target at /authorize and at the token endpoint (RFC 8707 §2)', async () => {
    const client = await registered();
    const { challenge } = await pkce();
    const res = await relay(authorizeUrl({ client_id: client.client_id, redirect_uri: LOOPBACK, code_challenge: challenge, resource: 'https://other.example/mcp' }).slice(BASE.length), { headers: { Cookie: session }, redirect: 'manual' });
    expect(new URL(res.headers.get('Location') ?? '').searchParams.get('error')).toBe('invalid_target');
    const trailing = await relay(authorizeUrl({ client_id: client.client_id, redirect_uri: LOOPBACK, code_challenge: challenge, resource: `${MCP}/` }).slice(BASE.length), { headers: { Cookie: session }, redirect: 'manual' });
    expect(new URL(trailing.headers.get('Location') ?? '').searchParams.get('error')).toBe('invalid_target');

    const { client: c2, verifier, code } = await authorized();
    const token = await tokenRequest({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: c2.client_id, redirect_uri: LOOPBACK, resource: 'https://other.example/mcp' });
    expect(token.status).toBe(400);
    expect(await oauthError(token)).toBe('invalid_target');
  });

  it('unknown client at the token endpoint: 401 invalid_client, so that assistants re-register', async () => {
    const res = await tokenRequest({ grant_type: 'authorization_code', code: 'a:b:c', code_verifier: 'x'.repeat(43), client_id: 'no-such-client', redirect_uri: LOOPBACK });
    expect(res.status).toBe(401);
    expect(await oauthError(res)).toBe('invalid_client');
  });

  it('unknown client at /authorize: rendered, never redirected', async () => {
    const { challenge } = await pkce();
    const res = await relay(authorizeUrl({ client_id: 'no-such-client', redirect_uri: LOOPBACK, code_challenge: challenge }).slice(BASE.length), { headers: { Cookie: session }, redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('Location')).toBeNull();
  });

  it('expired access token: 401 invalid_token once the clock passes its expiry (the library’s own check)', async () => {
    const { client, verifier, code } = await authorized();
    const tokens = await exchange(client, code, verifier);
    expect((await postMcp(tokens.access_token, listTools)).status).toBe(200);
    // Move this isolate's clock (the Worker's too: same isolate) past expires_in; the KV record
    // still exists (KV keeps its own clock), so the library's expiry check is what refuses it.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + (tokens.expires_in + 5) * 1000);
    const res = await postMcp(tokens.access_token, listTools);
    expect(res.status).toBe(401);
    expect(res.headers.get('WWW-Authenticate')).toContain('error="invalid_token"');
  });

  it('a token for another audience (issued by this relay under another origin) is refused', async () => {
    const other = 'https://other-relay.test';
    const otherFetch: Fetcher = (url, init) => exports.default.fetch(new Request(url, init));
    const otherSession = await signIn(otherFetch, other, env.OWNER_SECRET ?? '');
    const reg = await exports.default.fetch(
      new Request(`${other}/oauth/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ client_name: 'x', redirect_uris: [LOOPBACK], token_endpoint_auth_method: 'none' }) }),
    );
    const client = (await reg.json()) as Registered;
    const { verifier, challenge } = await pkce();
    const url = new URL(`${other}/authorize`);
    for (const [k, v] of Object.entries({ response_type: 'code', client_id: client.client_id, redirect_uri: LOOPBACK, code_challenge: challenge, code_challenge_method: 'S256', state: 's', resource: `${other}/mcp` })) url.searchParams.set(k, v);
    const back = await approve(otherFetch, other, url.toString(), otherSession, ['read']);
    const tokenRes = await exports.default.fetch(
      new Request(`${other}/oauth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code') ?? '', code_verifier: verifier, client_id: client.client_id, redirect_uri: LOOPBACK }),
      }),
    );
    const tokens = (await tokenRes.json()) as Tokens;
    const at = (origin: string) => exports.default.fetch(new Request(`${origin}/mcp`, { method: 'POST', headers: mcpHeaders(tokens.access_token), body: JSON.stringify(listTools) }));
    expect((await at(other)).status).toBe(200);
    const refused = await at(BASE);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('WWW-Authenticate')).toContain('error="invalid_token"');
  });

  it('an expired or revoked personal access token says which (RFC 6750 error_description)', async () => {
    const pat = await mint({ kind: 'access', name: uniqueName('pat-exp'), ttl_seconds: 60 });
    expect((await postMcp(pat.token, listTools)).status).toBe(200);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 120_000);
    const expired = await postMcp(pat.token, listTools);
    expect(expired.status).toBe(401);
    expect(expired.headers.get('WWW-Authenticate')).toContain(`resource_metadata="${METADATA}", error="invalid_token", error_description="The token has expired."`);
  });
});
