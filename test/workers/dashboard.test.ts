// The owner's dashboard against the real Worker and Hub in workerd: the session guard, CSRF on
// every form, personal access tokens shown once and revoked, device revocation disconnecting a
// (fake) agent over a real socket, escaping of hostile names, and the Hub's recent-calls log.
import { runInDurableObject } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hubFor } from '../../worker/account.ts';
import { REVEAL_COOKIE } from '../../worker/auth/reveal.ts';
import { SESSION_COOKIE } from '../../worker/auth/session.ts';
import { CALL_LOG_FLUSH_MS, CALL_LOG_KEEP } from '../../worker/hub/call-log.ts';
import type { Hub } from '../../worker/hub/hub.ts';
import { ago, duration, utcClock, utcMinute } from '../../worker/pages/dashboard-format.ts';
import { parseTokenForm } from '../../worker/routes/dashboard.ts';
import { redirectHost } from '../../worker/routes/dashboard-grants.ts';
import { approve, type Fetcher } from '../helpers/consent-flow.ts';
import { admin, BASE, deviceJwt, editor, FakeAgent, forgetRegistrations, mint, outcomeOf, ownerSession, postMcp, rawCall, relay, uniqueName } from './helpers.ts';

// More clients register here than a minute's limit allows (registration-limits.test.ts tests it).
beforeEach(forgetRegistrations);

const agents: FakeAgent[] = [];

afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

/** The `name=value` part of a Set-Cookie header. */
function pair(setCookie: string | null): string {
  return (setCookie ?? '').split(';')[0] ?? '';
}

/** Signs in with the owner secret; returns the session's Cookie header value. */
async function signIn(): Promise<string> {
  const cookie = await ownerSession();
  expect(cookie.startsWith(`${SESSION_COOKIE}=`)).toBe(true);
  return cookie;
}

/** GET /dashboard with `cookie`: status, body, and the CSRF token its forms carry. */
async function dashboard(cookie: string): Promise<{ status: number; body: string; csrf: string }> {
  const res = await relay('/dashboard', { headers: { Cookie: cookie }, redirect: 'manual' });
  const body = await res.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';
  return { status: res.status, body, csrf };
}

/** POSTs a form to the dashboard. */
function post(path: string, cookie: string | null, fields: [string, string][]): Promise<Response> {
  return relay(path, {
    method: 'POST',
    headers: cookie === null ? {} : { Cookie: cookie },
    body: new URLSearchParams(fields),
    redirect: 'manual',
  });
}

async function accessTokens(): Promise<{ jti: string; name: string; scopes: string[]; status: string; expires_at: string; created_at: string }[]> {
  const res = await admin('GET', '/tokens');
  const { tokens } = (await res.json()) as { tokens: { jti: string; kind: string; name: string; scopes: string[]; status: string; expires_at: string; created_at: string }[] };
  return tokens.filter((t) => t.kind === 'access');
}

let cookie: string;
let csrf: string;
beforeAll(async () => {
  cookie = await signIn();
  csrf = (await dashboard(cookie)).csrf;
  expect(csrf).not.toBe('');
});

describe('the session guard', () => {
  it('sends a signed-out browser to sign in, for pages and forms alike, and does nothing', async () => {
    const before = (await accessTokens()).length;
    const page = await relay('/dashboard', { redirect: 'manual' });
    expect(page.status).toBe(303);
    expect(page.headers.get('Location')).toBe('/signin?next=%2Fdashboard');
    const form = await post('/dashboard/tokens', null, [['name', 'sneaky'], ['scope', 'read'], ['days', '1']]);
    expect(form.status).toBe(303);
    expect(form.headers.get('Location')).toMatch(/^\/signin\?next=/);
    const forged = await post('/dashboard/tokens', `${SESSION_COOKIE}=1.2.3`, [['name', 'sneaky'], ['scope', 'read'], ['days', '1'], ['csrf', csrf]]);
    expect(forged.status).toBe(303);
    expect((await accessTokens()).length).toBe(before);
  });

  it('serves the page with the sections, no script, and headers that forbid framing and caching', async () => {
    const res = await relay('/dashboard', { headers: { Cookie: cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Security-Policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('Cache-Control')).toBe('no-store');
    const body = await res.text();
    for (const heading of ['Devices', 'Editors online', 'Personal access tokens', 'Recent calls']) expect(body).toContain(`>${heading}</h2>`);
    expect(body).not.toMatch(/<script/i);
  });
});

describe('connecting an assistant', () => {
  it('shows the MCP URL of the whole catalog and of each toolset, each of which answers as a toolset endpoint', async () => {
    const { body } = await dashboard(cookie);
    expect(body).toContain('>Connect an assistant</h2>');
    const urls = [...body.matchAll(/<code class="secret">([^<]+)<\/code>/g)].map((m) => m[1]);
    expect(urls).toEqual([`${BASE}/mcp`, ...['read', 'edit', 'lsp', 'exec', 'show'].map((set) => `${BASE}/mcp/${set}`)]);
    // Each one is an endpoint whose challenge names its own metadata, as a connector will find it.
    for (const url of urls) {
      const res = await exports.default.fetch(new Request(url ?? '', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' }));
      expect(res.status, url).toBe(401);
      expect(res.headers.get('WWW-Authenticate'), url).toContain(`resource_metadata="${(url ?? '').replace('/mcp', '/.well-known/oauth-protected-resource/mcp')}"`);
    }
    // What the read set asks for, beside its tools.
    expect(body).toMatch(/mcp\/read<\/code>.*?<td><small>list_editors, connect_editor, [^<]*<\/small><\/td>\s*<td><small>read<\/small>/s);
  });
});

describe('CSRF', () => {
  it('refuses every form without this session\'s token (403) and changes nothing', async () => {
    const target = await mint({ kind: 'access', name: uniqueName('csrf-target-') });
    const other = await signIn();
    const otherCsrf = (await dashboard(other)).csrf;
    expect(otherCsrf).not.toBe(csrf);
    const before = (await accessTokens()).length;
    const attempts: [string, [string, string][]][] = [
      ['/dashboard/tokens', [['name', 'no-csrf'], ['scope', 'read'], ['days', '1']]],
      ['/dashboard/tokens', [['name', 'wrong-csrf'], ['scope', 'read'], ['days', '1'], ['csrf', otherCsrf]]],
      ['/dashboard/tokens', [['name', 'garbage-csrf'], ['scope', 'read'], ['days', '1'], ['csrf', 'x'.repeat(43)]]],
      [`/dashboard/tokens/${target.jti}/revoke`, []],
      [`/dashboard/tokens/${target.jti}/revoke`, [['csrf', otherCsrf]]],
      ['/dashboard/devices/whatever/revoke', [['csrf', '']]],
    ];
    for (const [path, fields] of attempts) {
      const res = await post(path, cookie, fields);
      expect(res.status, path).toBe(403);
      expect(await res.text()).toContain('This form has expired');
    }
    const after = await accessTokens();
    expect(after.length).toBe(before);
    expect(after.find((t) => t.jti === target.jti)?.status).toBe('active');
  });
});

describe('personal access tokens', () => {
  it('creates a token with the chosen scopes and lifetime, shows it once, and it works on /mcp', async () => {
    const name = uniqueName('phone-');
    const res = await post('/dashboard/tokens', cookie, [['name', name], ['scope', 'exec'], ['scope', 'read'], ['days', '7'], ['csrf', csrf]]);
    expect(res.status).toBe(303);
    expect(res.headers.get('Location')).toBe('/dashboard/tokens/new');
    const reveal = pair(res.headers.get('Set-Cookie'));
    expect(reveal.startsWith(`${REVEAL_COOKIE}=`)).toBe(true);
    expect(res.headers.get('Set-Cookie')).toMatch(/; Path=\/; Secure; HttpOnly; SameSite=Strict; Max-Age=300$/);

    const shown = await relay('/dashboard/tokens/new', { headers: { Cookie: `${cookie}; ${reveal}` } });
    expect(shown.status).toBe(200);
    expect(shown.headers.get('Set-Cookie')).toMatch(new RegExp(`^${REVEAL_COOKIE}=; .*Max-Age=0$`));
    const body = await shown.text();
    const token = /<code id="token">([^<]+)<\/code>/.exec(body)?.[1] ?? '';
    expect(token.split('.')).toHaveLength(3);
    expect(body).toContain('shown only this once');

    // The token is a real access token with exactly those scopes, for 7 days.
    const record = (await accessTokens()).find((t) => t.name === name);
    expect(record?.scopes).toEqual(['read', 'exec']);
    // `exp` is in whole seconds, the creation time in milliseconds.
    const lifetimeMs = Date.parse(record?.expires_at ?? '') - Date.parse(record?.created_at ?? '');
    expect(lifetimeMs).toBeGreaterThan(7 * 86_400_000 - 1000);
    expect(lifetimeMs).toBeLessThanOrEqual(7 * 86_400_000);
    expect(outcomeOf(await rawCall(token, 'list_editors', {})).ok).toBe(true);

    // A reload (the browser dropped the cleared cookie) and another session get nothing.
    const reload = await relay('/dashboard/tokens/new', { headers: { Cookie: cookie } });
    expect(reload.status).toBe(410);
    expect(await reload.text()).not.toContain(token);
    const other = await relay('/dashboard/tokens/new', { headers: { Cookie: `${await signIn()}; ${reveal}` } });
    expect(other.status).toBe(410);
    // The dashboard lists the token but never its text.
    const page = await dashboard(cookie);
    expect(page.body).toContain(name);
    expect(page.body).not.toContain(token);
  });

  it('refuses an invalid form with a 400 page that says why and mints nothing', async () => {
    const before = (await accessTokens()).length;
    const cases: [[string, string][], RegExp][] = [
      [[['name', 'no-scope'], ['days', '1']], /at least one scope/],
      [[['name', 'a/b'], ['scope', 'read'], ['days', '1']], /must not contain/],
      [[['name', ''], ['scope', 'read'], ['days', '1']], /name must be 1 to 64 characters/],
      [[['name', 'days'], ['scope', 'read'], ['days', '0']], /1 to 365/],
      [[['name', 'days'], ['scope', 'read'], ['days', '366']], /1 to 365/],
      [[['name', 'scope'], ['scope', 'root'], ['days', '1']], /Unknown scope/],
    ];
    for (const [fields, message] of cases) {
      const res = await post('/dashboard/tokens', cookie, [...fields, ['csrf', csrf]]);
      expect(res.status).toBe(400);
      expect(await res.text()).toMatch(message);
    }
    expect((await accessTokens()).length).toBe(before);
  });

  it('revokes a token: 303 back, status revoked, refused on /mcp; an unknown jti is 404', async () => {
    const minted = await mint({ kind: 'access', name: uniqueName('to-revoke-') });
    const res = await post(`/dashboard/tokens/${minted.jti}/revoke`, cookie, [['csrf', csrf]]);
    expect(res.status).toBe(303);
    expect(res.headers.get('Location')).toBe('/dashboard#tokens');
    expect((await accessTokens()).find((t) => t.jti === minted.jti)?.status).toBe('revoked');
    const mcp = await relay('/mcp', { method: 'POST', headers: { Authorization: `Bearer ${minted.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(mcp.status).toBe(401);
    expect((await post('/dashboard/tokens/no-such-jti/revoke', cookie, [['csrf', csrf]])).status).toBe(404);
  });
});

describe('devices and editors', () => {
  it('lists a connected device and its editors, and revoking it disconnects the agent at once', async () => {
    const device = await deviceJwt(uniqueName('desk-'));
    const { agent } = await FakeAgent.online(device.token, [editor('nvim-7', { name: 'notes', cwd: '/home/u/notes', current_file: '/home/u/notes/todo.md' })]);
    agents.push(agent);
    const before = (await dashboard(cookie)).body;
    expect(before).toContain(device.device.name);
    expect(before).toContain('>online<');
    expect(before).toContain(`${device.device.name}/nvim-7`);
    expect(before).toContain('/home/u/notes/todo.md');

    const res = await post(`/dashboard/devices/${device.device.id}/revoke`, cookie, [['csrf', csrf]]);
    expect(res.status).toBe(303);
    expect(res.headers.get('Location')).toBe('/dashboard#devices');
    expect((await agent.closed).code).toBe(4001);
    const after = (await dashboard(cookie)).body;
    expect(after).toContain('>revoked<');
    expect(after).not.toContain(`${device.device.name}/nvim-7`);
    expect((await post('/dashboard/devices/no-such-device/revoke', cookie, [['csrf', csrf]])).status).toBe(404);
  });
});

describe('escaping', () => {
  it('shows hostile token, device, editor and client names as text', async () => {
    const hostile = '<script>alert("x")<\\script><img src=x onerror=alert(1)>';
    await mint({ kind: 'access', name: hostile.slice(0, 64) });
    const device = await deviceJwt(`"><script>d`);
    const { agent } = await FakeAgent.online(device.token, [editor('e<b>1', { name: '<iframe src=x>', cwd: `/tmp/"'<x>` })]);
    agents.push(agent);
    const caller = await mint({ kind: 'access', name: '<b>caller' });
    expect(outcomeOf(await rawCall(caller.token, 'list_editors', {})).ok).toBe(true);

    const { body } = await dashboard(cookie);
    expect(body).not.toMatch(/<script|<img|<iframe|<b>/i);
    expect(body).toContain('&lt;script&gt;alert(&quot;x&quot;)');
    expect(body).toContain('&quot;&gt;&lt;script&gt;d');
    expect(body).toContain('&lt;iframe src=x&gt;');
    expect(body).toContain('/tmp/&quot;&#39;&lt;x&gt;');
    expect(body).toContain('pat:&lt;b&gt;caller');
  });

  it('parseTokenForm keeps the scopes in catalog order and trims the name', () => {
    const form = new URLSearchParams();
    form.append('name', '  laptop  ');
    for (const s of ['terminal', 'read', 'read']) form.append('scope', s);
    form.append('days', '30');
    expect(parseTokenForm(form)).toEqual({ ok: true, name: 'laptop', scopes: ['read', 'terminal'], days: 30 });
  });
});

describe('OAuth grants', () => {
  const fetcher: Fetcher = (url, init) => exports.default.fetch(new Request(url, init));
  const redirectUri = 'http://127.0.0.1:45999/callback';
  const b64url = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

  /** A client registered with `name`, authorized by the owner for `scopes`; its access token. */
  async function grantTo(name: string, scopes: string[]): Promise<string> {
    const reg = await relay('/oauth/register', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_name: name, redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
    });
    expect(reg.status).toBe(201);
    const { client_id } = (await reg.json()) as { client_id: string };
    const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
    const challenge = b64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
    const url = new URL(`${BASE}/authorize`);
    const params = { response_type: 'code', client_id, redirect_uri: redirectUri, scope: scopes.join(' '), state: 's', code_challenge: challenge, code_challenge_method: 'S256', resource: `${BASE}/mcp` };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    const back = await approve(fetcher, BASE, url.href, cookie, scopes);
    const token = await relay('/oauth/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code') ?? '', redirect_uri: redirectUri, client_id, code_verifier: verifier, resource: `${BASE}/mcp` }),
    });
    expect(token.status).toBe(200);
    return ((await token.json()) as { access_token: string }).access_token;
  }

  it('lists a grant with its client (escaped), redirect host and scopes; revoking it (CSRF-checked) ends its token', async () => {
    const hostile = `<img src=x onerror=alert(1)>${uniqueName('Evil')}`;
    const token = await grantTo(hostile, ['read', 'write']);
    const tools = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    expect((await postMcp(token, tools)).status).toBe(200);

    const { body } = await dashboard(cookie);
    expect(body).not.toContain('<img');
    expect(body).toContain(`&lt;img src=x onerror=alert(1)&gt;`);
    const row = body.slice(body.indexOf('id="grants"'), body.indexOf('id="tokens"'));
    expect(row).toContain('redirects to 127.0.0.1:45999');
    expect(row).toContain('read write');
    const client = /action="\/dashboard\/grants\/revoke"><input type="hidden" name="csrf" value="[^"]+"><input type="hidden" name="client" value="([^"]+)">/.exec(row)?.[1] ?? '';
    expect(client).not.toBe('');

    expect((await post('/dashboard/grants/revoke', cookie, [['client', client]])).status).toBe(403);
    expect((await postMcp(token, tools)).status).toBe(200);
    const res = await post('/dashboard/grants/revoke', cookie, [['client', client], ['csrf', csrf]]);
    expect(res.status).toBe(303);
    expect(res.headers.get('Location')).toBe('/dashboard#grants');
    expect((await postMcp(token, tools)).status).toBe(401);
    expect((await dashboard(cookie)).body).not.toContain(`value="${client}"`);
    expect((await post('/dashboard/grants/revoke', cookie, [['client', 'no-such-client'], ['csrf', csrf]])).status).toBe(404);
  });
});

describe('recent calls', () => {
  it('records tool, editor, client, outcome and duration, never arguments', async () => {
    const device = await deviceJwt(uniqueName('calls-'));
    const { agent } = await FakeAgent.online(device.token, [editor('nvim-1')]);
    agents.push(agent);
    const caller = await mint({ kind: 'access', name: uniqueName('logger-') });
    const secretText = 'SECRET-BUFFER-TEXT-4711';
    const pending = rawCall(caller.token, 'find_and_replace', { buffer: 1, old_text: secretText, new_text: secretText });
    const call = await agent.next('call');
    agent.answer(call.id, { ok: false, error: { code: 'NO_MATCH', message: `no ${secretText}`, hint: 'read_buffer first' } });
    await pending;

    const calls = await hubFor(env).recentCalls(10);
    expect(calls[0]).toMatchObject({ tool: 'find_and_replace', editor: `${device.device.name}/nvim-1`, client: `pat:${caller.name}`, outcome: 'NO_MATCH' });
    expect(calls[0]?.duration_ms).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(calls)).not.toContain(secretText);
    const { body } = await dashboard(cookie);
    expect(body).toContain('find_and_replace');
    expect(body).toContain('NO_MATCH');
    expect(body).not.toContain(secretText);
  });

  it(`writes a call's row within ${CALL_LOG_FLUSH_MS} ms of its answer, nobody reading the log`, async () => {
    const hub = hubFor(env);
    const client = uniqueName('unread-');
    await hub.callTool({ tool: 'list_editors', args: {}, scopes: ['read'], client, callKey: `${client}:1` });
    const written = async (): Promise<boolean> =>
      runInDurableObject(hub, (_instance: Hub, state) => state.storage.sql.exec('SELECT 1 FROM call_log WHERE client = ?', client).toArray().length === 1);
    // Not at once: with the calls of the same second, after the answer.
    expect(await written()).toBe(false);
    // Polled, a liveness bound only: the flush is a timer in the Hub.
    let seen = false;
    for (let i = 0; i < 100 && !seen; i++) seen = await new Promise((r) => setTimeout(r, 100)).then(written);
    expect(seen).toBe(true);
  });

  it(`keeps only the newest ${CALL_LOG_KEEP}`, async () => {
    const hub = hubFor(env);
    for (let i = 0; i < CALL_LOG_KEEP + 5; i++) {
      await hub.callTool({ tool: 'list_editors', args: {}, scopes: ['read'], client: `bulk-${i}`, callKey: `bulk:${i}` });
    }
    const calls = await hub.recentCalls(1000);
    expect(calls).toHaveLength(CALL_LOG_KEEP);
    expect(calls[0]?.client).toBe(`bulk-${CALL_LOG_KEEP + 4}`);
    expect(calls.at(-1)?.client).toBe('bulk-5');
  });
});

describe('formatting', () => {
  it('writes times in UTC, relative ages, durations and redirect hosts', () => {
    const now = Date.parse('2026-12-01T12:00:00Z');
    expect(utcMinute('2026-12-01T02:13:59.999Z')).toBe('2026-12-01 02:13 UTC');
    expect(utcMinute(null)).toBe('—');
    expect(utcClock('2026-12-01T02:13:07Z')).toBe('02:13:07');
    expect(ago(null, now)).toBe('never');
    expect(ago('2026-12-01T11:59:30Z', now)).toBe('just now');
    expect(ago('2026-12-01T11:55:00Z', now)).toBe('5 min ago');
    expect(ago('2026-12-01T09:00:00Z', now)).toBe('3 h ago');
    expect(ago('2026-11-30T12:00:00Z', now)).toBe('1 day ago');
    expect(ago('2026-11-20T12:00:00Z', now)).toBe('11 days ago');
    expect([duration(850), duration(1234), duration(31_400)]).toEqual(['850 ms', '1.2 s', '31 s']);
    expect(redirectHost('https://claude.ai/api/mcp/auth_callback')).toBe('claude.ai');
    expect(redirectHost('http://127.0.0.1:33418/cb')).toBe('127.0.0.1:33418');
    expect(redirectHost('com.example.app:/cb')).toBe('com.example.app:/cb');
    expect(redirectHost(undefined)).toBe('unknown');
  });
});
